"""Celery tasks of the publishing app: take an id, call the job function, nothing else."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.jobs import run_claimed
from publishing import jobs


@shared_task(name="publishing.report")
def report_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, jobs.run_report_job)


@shared_task(name="publishing.publish")
def publish_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, jobs.run_publish_job)
