"""One way to run the work behind a job-backed row (a `SystemScore`, a `MetaEvaluation`): the
row's status follows the work, and the job's with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.utils import timezone

from core.exceptions import ServiceError
from core.jobs import JobCancelled, fail_job, mark_running
from scoring.models import MetaEvaluation, ScoreStatus, SystemScore

T = TypeVar("T")


def run_job_backed(
    row: SystemScore | MetaEvaluation,
    *,
    job_id: int | None,
    total: int,
    message: str,
    work: Callable[[], T],
) -> T | None:
    """Mark `row` running (and its job, `total` steps, `message`) and return what `work`
    returns. When the work stops, None: the row is marked cancelled (the job was cancelled:
    JobCancelled) or failed with a message a person can read (ServiceError, ValueError; the
    job fails with it), and re-read."""
    rows = type(row).objects.filter(pk=row.pk)
    rows.update(status=ScoreStatus.RUNNING, started_at=timezone.now(), error="")
    if job_id is not None:
        mark_running(job_id, total=total, message=message)
    try:
        return work()
    except JobCancelled:
        rows.update(status=ScoreStatus.CANCELLED, finished_at=timezone.now())
    except (ServiceError, ValueError) as exc:
        error = exc.message if isinstance(exc, ServiceError) else str(exc)
        rows.update(status=ScoreStatus.FAILED, error=error, finished_at=timezone.now())
        if job_id is not None:
            fail_job(job_id, message=error)
    row.refresh_from_db()
    return None
