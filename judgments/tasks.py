"""Celery tasks of the judgments app: take an id, call the job function, nothing else.

judgments/jobs.py and judgments/results.py queue these tasks (jobs.py imports this module and
this one it, as modules, so either may be imported first). A job's task runs under the job's claim
(core.jobs.run_claimed)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.jobs import run_claimed
from judgments import jobs, results_job


@shared_task(name="judgments.import_judgments")
def import_judgments_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, jobs.run_import_job)


@shared_task(name="judgments.compute_results")
def compute_results_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, results_job.run_results_job)
