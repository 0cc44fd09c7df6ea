"""Progress of long work (imports, exports, scoring runs): one model, a few helpers.

A job row is created and committed before the work starts, so a page can poll it. The work
itself often runs inside one big transaction (an all-or-nothing import); progress written
through that transaction's connection would stay invisible until the end. On PostgreSQL
`report_progress` therefore writes through a separate autocommit connection. On SQLite a
second writer would wait on the first one's lock, so there progress is written through the
work's own connection and shows when its transaction ends (the quick start runs tasks
in-process anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, connection, connections
from django.utils import timezone

from core.exceptions import NotFound
from core.models import BackgroundJob, JobStatus
from core.roles import Role, has_role


class JobCancelled(Exception):
    """Raised by work that noticed its job was cancelled; the work's transaction rolls back."""


@contextmanager
def _side_cursor() -> Iterator[Any]:
    """A short-lived second connection in autocommit mode. Opened per write (progress is
    written a few dozen times per job) so no idle connection outlives the work. A lock
    timeout makes a write give up rather than wait on a row the work's transaction holds."""
    conn = connections.create_connection("default")
    try:
        with conn.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
            yield cursor
    finally:
        conn.close()


# In-process listeners (a management command's progress line): job id -> callback(done, total).
_listeners: dict[int, Callable[[int, int | None], None]] = {}


@contextmanager
def listen(job_id: int, callback: Callable[[int, int | None], None]) -> Iterator[None]:
    """Call `callback(done, total)` on every progress report of `job_id` in this process."""
    _listeners[job_id] = callback
    try:
        yield
    finally:
        _listeners.pop(job_id, None)


def start_job(
    *,
    kind: str,
    user: Any = None,
    total: int = 0,
    params: dict[str, Any] | None = None,
    message: str = "",
) -> BackgroundJob:
    """Create a queued job. Call it outside the work's transaction so pollers can see it."""
    creator = user if getattr(user, "is_authenticated", False) else None
    return BackgroundJob.objects.create(
        kind=kind,
        created_by=creator,
        total=max(0, int(total)),
        params=params or {},
        message=message,
    )


def _write(job_id: int, fields: dict[str, Any]) -> None:
    fields = {**fields, "updated_at": timezone.now()}
    live = [JobStatus.QUEUED, JobStatus.RUNNING]
    if connection.in_atomic_block and connection.vendor != "sqlite":
        table = BackgroundJob._meta.db_table
        columns = ", ".join(f"{name} = %s" for name in fields)
        try:
            with _side_cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET {columns} WHERE id = %s AND status IN (%s, %s)",
                    [*fields.values(), job_id, *live],
                )
                if cursor.rowcount:
                    return
        except DatabaseError:
            pass  # progress is best effort; the work goes on
        # The job row was created inside this same transaction (not visible elsewhere):
        # write it here, it becomes visible with the transaction.
    BackgroundJob.objects.filter(pk=job_id, status__in=live).update(**fields)


def _status_of(job_id: int) -> str | None:
    if connection.in_atomic_block and connection.vendor != "sqlite":
        try:
            with _side_cursor() as cursor:
                cursor.execute(
                    f"SELECT status FROM {BackgroundJob._meta.db_table} WHERE id = %s", [job_id]
                )
                row = cursor.fetchone()
            if row is not None:
                return str(row[0])
        except DatabaseError:
            pass
    return BackgroundJob.objects.filter(pk=job_id).values_list("status", flat=True).first()


def mark_running(job_id: int, *, total: int | None = None, message: str = "") -> None:
    fields: dict[str, Any] = {"status": JobStatus.RUNNING, "started_at": timezone.now()}
    if total is not None:
        fields["total"] = max(0, int(total))
    if message:
        fields["message"] = message
    _write(job_id, fields)


def report_progress(
    job_id: int | None, done: int, *, total: int | None = None, message: str | None = None
) -> None:
    """Record `done` units of work; raise JobCancelled if someone cancelled the job.

    `job_id` None is accepted (and ignored) so services can be called without a job.
    """
    if job_id is None:
        return
    if _status_of(job_id) == JobStatus.CANCELLED:
        raise JobCancelled(f"job {job_id} was cancelled")
    listener = _listeners.get(job_id)
    if listener is not None:
        listener(int(done), total)
    fields: dict[str, Any] = {"status": JobStatus.RUNNING, "done": max(0, int(done))}
    if total is not None:
        fields["total"] = max(0, int(total))
    if message is not None:
        fields["message"] = message
    _write(job_id, fields)


def finish_job(job_id: int, *, result: dict[str, Any] | None = None, message: str = "") -> None:
    job = BackgroundJob.objects.get(pk=job_id)
    if job.status == JobStatus.CANCELLED:
        return
    job.status = JobStatus.DONE
    job.done = max(job.done, job.total)
    job.result = result or {}
    job.message = message
    job.finished_at = timezone.now()
    job.save()


def fail_job(job_id: int, *, message: str, result: dict[str, Any] | None = None) -> None:
    job = BackgroundJob.objects.get(pk=job_id)
    if job.status == JobStatus.CANCELLED:
        return
    job.status = JobStatus.FAILED
    job.message = message
    job.result = result or {}
    job.finished_at = timezone.now()
    job.save()


def cancel_job(job_id: int, *, user: Any) -> BackgroundJob:
    """Ask running work to stop; it notices at its next progress report and rolls back."""
    job = get_job_for(user=user, job_id=job_id)
    if not job.is_finished:
        job.status = JobStatus.CANCELLED
        job.message = "cancelled"
        job.finished_at = timezone.now()
        job.save()
    return job


def can_view_job(user: Any, job: BackgroundJob) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return job.created_by_id == user.pk or has_role(user, Role.ADMIN)


def get_job_for(*, user: Any, job_id: int) -> BackgroundJob:
    """The job if `user` may see it (its creator or an admin); NotFound otherwise, so ids
    of other people's jobs are not revealed."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or not can_view_job(user, job):
        raise NotFound(f"no job {job_id}")
    return job


def job_state(job: BackgroundJob) -> dict[str, Any]:
    return {
        "id": job.pk,
        "kind": job.kind,
        "status": job.status,
        "done": job.done,
        "total": job.total,
        "percent": job.percent,
        "message": job.message,
        "result": job.result,
        "finished": job.is_finished,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
