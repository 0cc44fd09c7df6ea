"""Celery tasks of the datasets app: take an id, call the job function, nothing else.

The job functions live in datasets/jobs.py, which queues these tasks: both modules import
the other as a module, so either may be imported first.

A job's task runs under the job's claim (core.jobs.run_claimed): a re-delivered message for
a job that is finished or running elsewhere does nothing."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.jobs import fail_job, run_claimed
from datasets import jobs


@shared_task(name="datasets.import_dataset")
def import_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, jobs.run_import_job)


@shared_task(name="datasets.export_dataset")
def export_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_claimed(job_id, jobs.run_export_job)


# The chord reads its parts' results: these two keep theirs (task_ignore_result is global).
@shared_task(name="datasets.export_m2_part", acks_late=True, ignore_result=False)
def export_m2_part_task(
    job_id: int, version_id: int, first: int, last: int, resources_dir: str | None
) -> tuple[int, str]:
    return jobs.export_m2_part(
        job_id=job_id, version_id=version_id, first=first, last=last, resources_dir=resources_dir
    )


@shared_task(name="datasets.export_m2_assemble", ignore_result=False)
def export_m2_assemble_task(
    parts: list[list[Any]], job_id: int, resources_dir: str | None
) -> dict[str, Any] | None:
    return jobs.assemble_m2_parts(parts=parts, job_id=job_id, resources_dir=resources_dir)


@shared_task(name="datasets.export_m2_failed")
def export_m2_failed_task(request: Any, exc: Any, traceback: Any, job_id: int) -> None:
    fail_job(job_id, message=f"M2 extraction failed: {exc}")


@shared_task(name="datasets.prepare_release_references")
def prepare_release_references_task(job_id: int) -> int | None:
    return run_claimed(job_id, jobs.prepare_release_references)
