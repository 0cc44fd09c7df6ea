"""Celery tasks of the datasets part: take a job id, call the service, nothing else."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from annotate.exporting import run_export_job
from annotate.importing import run_import_job


@shared_task(name="annotate.import_dataset")
def import_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_import_job(job_id)


@shared_task(name="annotate.export_dataset")
def export_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_export_job(job_id)
