"""Celery tasks of the datasets app: take an id, call the job function, nothing else."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.jobs import fail_job
from datasets.jobs import (
    assemble_m2_parts,
    export_m2_part,
    prepare_release_references,
    run_export_job,
    run_import_job,
)


@shared_task(name="datasets.import_dataset")
def import_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_import_job(job_id)


@shared_task(name="datasets.export_dataset")
def export_dataset_task(job_id: int) -> dict[str, Any] | None:
    return run_export_job(job_id)


@shared_task(name="datasets.export_m2_part", acks_late=True)
def export_m2_part_task(
    job_id: int, version_id: int, first: int, last: int, resources_dir: str | None
) -> str:
    return export_m2_part(
        job_id=job_id, version_id=version_id, first=first, last=last, resources_dir=resources_dir
    )


@shared_task(name="datasets.export_m2_assemble")
def export_m2_assemble_task(
    parts: list[str], job_id: int, resources_dir: str | None
) -> dict[str, Any] | None:
    return assemble_m2_parts(parts=parts, job_id=job_id, resources_dir=resources_dir)


@shared_task(name="datasets.export_m2_failed")
def export_m2_failed_task(request: Any, exc: Any, traceback: Any, job_id: int) -> None:
    fail_job(job_id, message=f"M2 extraction failed: {exc}")


@shared_task(name="datasets.prepare_release_references")
def prepare_release_references_task(version_id: int) -> int:
    return prepare_release_references(version_id)
