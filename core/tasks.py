"""Celery tasks of the core app (found by the Celery app's autodiscovery)."""

from __future__ import annotations

from celery import shared_task

from core.jobs import sweep_expired_jobs as sweep


@shared_task(name="core.sweep_expired_jobs")
def sweep_expired_jobs() -> int:
    """Beat's backstop for the sweeper that also runs on every read of a job."""
    return sweep()
