"""Sending work to the queue as one decision: the job row, what the request stored for it
(uploads) and its message commit together or not at all (a broker that does not take the
message within GEC_BROKER_TIMEOUT rolls the row back: a 503, nothing half made); and the
shared body of import tasks over stored uploads. The job model and its states: core/jobs.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import JobCancelled, fail_job, queue_job, start_job
from core.models import BackgroundJob
from core.uploads import discard_stored_uploads

T = TypeVar("T")


def enqueue_job(
    *,
    kind: str,
    user: Any,
    task: Any,
    task_args: Callable[[int], tuple[Any, ...]],
    params: dict[str, Any] | None = None,
    message: str = "",
    total: int = 0,
    audit: tuple[Any, str, dict[str, Any]] | None = None,
) -> BackgroundJob:
    """Create a job, send its task and write the audit entry as one decision: if the broker
    does not take the message (ServiceUnavailable) nothing of it stays. `task_args(job_id)`
    gives the task's arguments, which usually carry the new job's id. `audit` is
    (target, action, details); the job's id is added to the details."""
    with transaction.atomic():
        job = start_job(kind=kind, user=user, total=total, params=params, message=message)
        queue_job(job, task, *task_args(job.pk))
        if audit is not None:
            target, action, details = audit
            log_action(target, user, action, {"job": job.pk, **details})
    return job


def enqueue_upload_job(
    *,
    kind: str,
    user: Any,
    params: dict[str, Any],
    folder: str,
    store: Callable[[Path], list[dict[str, str]]],
    task: Any,
    message: str = "",
) -> BackgroundJob:
    """Create a job, store its uploads under MEDIA_ROOT/<folder>/<job id>/ and send its task
    (with the job's id) as one decision. `store(target)` writes the files through the bounded
    reader and returns their {"path", "name"} records, kept as params["files"]. If a limit is
    passed or the broker does not take the message, the row rolls back and the stored files
    are removed (a full disk becomes a 503)."""
    target: Path | None = None
    try:
        with transaction.atomic():
            job = start_job(kind=kind, user=user, params={**params, "files": []}, message=message)
            target = Path(settings.MEDIA_ROOT) / folder / str(job.pk)
            target.mkdir(parents=True, exist_ok=True)
            job.params = {**job.params, "files": store(target)}
            job.save(update_fields=["params"])
            queue_job(job, task, job.pk)
    except BaseException as exc:
        discard_stored_uploads(target, exc)
        raise
    return job


def run_upload_job(job_id: int, work: Callable[[BackgroundJob], T]) -> T | None:
    """The body of an import task over stored uploads: `work(job)` for a job that is still
    live; a refused input (ServiceError, with its field), a cancel or an unreadable stored
    file fails the job instead of raising."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    try:
        return work(job)
    except (ServiceError, JobCancelled) as exc:
        fail_job(
            job_id,
            message=getattr(exc, "message", str(exc)),
            result={"field": getattr(exc, "field", None)},
        )
    except OSError as exc:
        fail_job(job_id, message=f"stored upload unreadable: {exc}")
    return None
