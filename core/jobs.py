"""Progress of long work (imports, exports, scoring runs): one model, a few helpers.

A job row is created and committed before the work starts, so a page can poll it. The work
itself often runs inside one big transaction (an all-or-nothing import); progress written
through that transaction's connection would stay invisible until the end. On PostgreSQL
`report_progress` therefore writes through a separate autocommit connection. On SQLite a
second writer would wait on the first one's lock, so there progress is written through the
work's own connection and shows when its transaction ends (the quick start runs tasks
in-process anyway).

Faults (docs/operations.md; leases and claims in core/job_leases.py): a job is a small state
machine, queued -> running (with a lease its worker renews) -> done | failed (retryable or
not) | cancelled. A task claims its job row under a lock before it works (`run_claimed`), so
a re-delivered message for a job that is finished or running elsewhere does nothing.
`sweep_expired_jobs` fails running jobs whose lease ran out (their worker died) as
retryable; `retry_job` queues such a job again. Tasks are sent with `send_task`
(core.broker) inside the transaction that writes the job: if the broker does not take the
message within GEC_BROKER_TIMEOUT the transaction rolls back and the user gets a 503,
nothing half made; a message that reaches a frozen broker late then finds no job.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.dispatch import Signal
from django.utils import timezone

# Queuing lives in core.broker; the apps import it from here, with the job helpers.
from core.broker import send_best_effort as send_best_effort
from core.broker import send_task as send_task
from core.broker import tasks_run_in_process as tasks_run_in_process
from core.exceptions import Conflict, NotFound
from core.job_leases import (
    claim_job,
    claims,
    keep_alive,
    leases_apply,
    new_lease,
    side_cursor,
)
from core.models import BackgroundJob, JobStatus
from core.roles import Role, has_role

logger = logging.getLogger("gec.jobs")
T = TypeVar("T")

LIVE = (JobStatus.QUEUED, JobStatus.RUNNING)

# Sent (job=...) when the sweeper fails a job whose worker died: an app whose rows mirror a
# job's state (a SystemScore) marks them failed too. Lower apps never import upward.
job_expired = Signal()


class JobCancelled(Exception):
    """Raised by work that noticed its job was cancelled; the work's transaction rolls back."""


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
    """Progress and heartbeat: only a live job is written, and only by its own claim."""
    fields = {**fields, "updated_at": timezone.now()}
    if leases_apply():
        fields["lease_expires_at"] = new_lease()
    token = claims.get(job_id)
    if connection.in_atomic_block and connection.vendor != "sqlite":
        table = BackgroundJob._meta.db_table
        columns = ", ".join(f"{name} = %s" for name in fields)
        claim_sql, claim_args = (" AND claim = %s", [token]) if token else ("", [])
        try:
            with side_cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET {columns} WHERE id = %s AND status IN (%s, %s)"
                    + claim_sql,
                    [*fields.values(), job_id, *LIVE, *claim_args],
                )
                if cursor.rowcount:
                    return
        except DatabaseError:
            pass  # progress is best effort; the work goes on
        # The job row was created inside this same transaction (not visible elsewhere):
        # write it here, it becomes visible with the transaction.
    rows = BackgroundJob.objects.filter(pk=job_id, status__in=LIVE)
    if token:
        rows = rows.filter(claim=token)
    rows.update(**fields)


def _status_of(job_id: int) -> str | None:
    if connection.in_atomic_block and connection.vendor != "sqlite":
        try:
            with side_cursor() as cursor:
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
    if settings.GEC_TEST_HOLD_AT_DONE:
        _hold_for_fault_test(job_id, int(done))


# Jobs this process has held once already (a held job that was not killed goes on).
_held: set[int] = set()


def _hold_for_fault_test(job_id: int, done: int) -> None:
    """Test-only checkpoint (settings.GEC_TEST_HOLD_AT_DONE; never set in a deployment).

    The progress just written is visible; the work's transaction is open. Stopping here lets
    tests/core/test_faults.py kill the worker mid-work on any machine, fast or loaded: the
    marker file says "held", the test kills. A sleep before the kill raced the work itself."""
    if done < settings.GEC_TEST_HOLD_AT_DONE or job_id in _held or not settings.GEC_TEST_HOLD_DIR:
        return
    _held.add(job_id)
    marker = Path(settings.GEC_TEST_HOLD_DIR) / f"job-{job_id}"
    marker.write_text(str(done), encoding="utf-8")
    logger.warning("job %s held at %s units done for a fault test", job_id, done)
    deadline = time.monotonic() + settings.GEC_TEST_HOLD_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.05)


def _end(job_id: int, fields: dict[str, Any]) -> bool:
    """Move a live job to an end state. A run that lost its claim (the sweeper failed it, a
    re-delivery took it over) changes nothing. True when this call ended the job."""
    rows = BackgroundJob.objects.filter(pk=job_id, status__in=LIVE)
    token = claims.get(job_id)
    if token:
        rows = rows.filter(claim=token)
    ended = bool(
        rows.update(
            **fields, lease_expires_at=None, finished_at=timezone.now(), updated_at=timezone.now()
        )
    )
    if ended and not fields.get("retryable"):
        job = BackgroundJob.objects.filter(pk=job_id).first()
        if job is not None:
            transaction.on_commit(lambda: discard_temporary_files(job.params))
    return ended


def finish_job(job_id: int, *, result: dict[str, Any] | None = None, message: str = "") -> None:
    job = BackgroundJob.objects.filter(pk=job_id).only("total", "done").first()
    if job is None:
        return
    _end(
        job_id,
        {
            "status": JobStatus.DONE,
            "done": max(job.done, job.total),
            "result": result or {},
            "message": message,
            "retryable": False,
        },
    )


def fail_job(
    job_id: int, *, message: str, result: dict[str, Any] | None = None, retryable: bool = False
) -> None:
    _end(
        job_id,
        {
            "status": JobStatus.FAILED,
            "message": message,
            "result": result or {},
            "retryable": retryable,
        },
    )


def settle_job(job_id: int | None, *, result: dict[str, Any], message: str) -> None:
    """Mark the job done inside the work's own transaction, under a lock on its row, after
    checking it is still this run's: the rows and "done" commit together, so a job cannot
    be seen unfinished with its rows written (and imported twice by a retry or a
    re-delivery). Raises JobCancelled, rolling the work back, when the job was cancelled,
    failed by the sweeper or taken over by another claim."""
    if job_id is None:
        return
    job = BackgroundJob.objects.select_for_update().filter(pk=job_id).first()
    token = claims.get(job_id)
    if job is None or job.status not in LIVE or (token and job.claim != token):
        raise JobCancelled(f"job {job_id} is no longer this worker's to finish")
    job.status = JobStatus.DONE
    job.done = max(job.done, job.total)
    job.result = result
    job.message = message
    job.retryable = False
    job.lease_expires_at = None
    job.finished_at = timezone.now()
    job.save()
    params = job.params
    transaction.on_commit(lambda: discard_temporary_files(params))


def discard_temporary_files(params: dict[str, Any]) -> None:
    """Delete a job's uploads (`params["files"]`: [{"path": ...}]) and their folder if empty.
    Only files under MEDIA_ROOT are the job's own copies; a command's input files are not."""
    media = Path(settings.MEDIA_ROOT).resolve()
    for entry in params.get("files", []) or []:
        path = Path(str(entry.get("path", ""))) if isinstance(entry, dict) else None
        if path is None or not path.name or not path.resolve().is_relative_to(media):
            continue
        path.unlink(missing_ok=True)
        # Not empty (another file of the job) or already gone: left alone.
        with contextlib.suppress(OSError):
            path.parent.rmdir()


def cancel_job(job_id: int, *, user: Any) -> BackgroundJob:
    """Ask running work to stop; it notices at its next progress report and rolls back."""
    job = get_job_for(user=user, job_id=job_id)
    if not job.is_finished:
        BackgroundJob.objects.filter(pk=job.pk, status__in=LIVE).update(
            status=JobStatus.CANCELLED,
            message="cancelled",
            retryable=False,
            lease_expires_at=None,
            finished_at=timezone.now(),
        )
        job.refresh_from_db()
        discard_temporary_files(job.params)
    elif job.status == JobStatus.FAILED and job.retryable:
        # Cancelling a failed job gives up on retrying it: its uploads go.
        BackgroundJob.objects.filter(pk=job.pk).update(retryable=False)
        job.refresh_from_db()
        discard_temporary_files(job.params)
    return job


def can_view_job(user: Any, job: BackgroundJob) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return job.created_by_id == user.pk or has_role(user, Role.ADMIN)


def get_job_for(*, user: Any, job_id: int) -> BackgroundJob:
    """The job if `user` may see it (its creator or an admin); NotFound otherwise, so ids
    of other people's jobs are not revealed."""
    sweep_expired_jobs()
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
        "retryable": job.status == JobStatus.FAILED and job.retryable and bool(job.task_name),
        "attempts": job.attempts,
        "lease_expires_at": job.lease_expires_at.isoformat() if job.lease_expires_at else None,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


# --- queuing ---------------------------------------------------------------------------------


def queue_job(job: BackgroundJob, task: Any, *args: Any) -> None:
    """Record which task runs `job` (for Retry) and send it (see send_task)."""
    BackgroundJob.objects.filter(pk=job.pk).update(task_name=task.name, task_args=list(args))
    job.task_name, job.task_args = task.name, list(args)
    send_task(task, *args)


# --- running under a claim, sweeping ----------------------------------------------------------


def run_claimed(job_id: int, work: Callable[[int], T]) -> T | None:
    """The body of every job task: claim the job (or do nothing), keep its lease alive while
    `work(job_id)` runs, and fail the job (not retryable, uploads deleted) on an unexpected
    error instead of leaving it running."""
    job = claim_job(job_id)
    if job is None:
        return None
    claims[job_id] = job.claim
    try:
        with keep_alive(job_id, job.claim):
            return work(job_id)
    except Exception as exc:
        logger.exception("job %s failed", job_id)
        fail_job(
            job_id, message=f"the work stopped on an internal error: {type(exc).__name__}: {exc}"
        )
        return None
    finally:
        claims.pop(job_id, None)


def sweep_expired_jobs() -> int:
    """Fail (as retryable) every running job whose lease ran out: its worker is gone. Also
    stop keeping uploads of retryable jobs older than GEC_JOB_RETRY_HOURS. Cheap (indexed);
    runs on every read of a job and from Celery beat. Returns how many jobs it failed."""
    now = timezone.now()
    failed = 0
    expired = list(
        BackgroundJob.objects.filter(
            status=JobStatus.RUNNING, lease_expires_at__lt=now
        ).values_list("pk", flat=True)
    )
    for pk in expired:
        with transaction.atomic():
            # skip_locked: a job whose work is committing holds its row; it is not dead.
            job = (
                BackgroundJob.objects.select_for_update(skip_locked=True)
                .filter(pk=pk, status=JobStatus.RUNNING, lease_expires_at__lt=now)
                .first()
            )
            if job is None:
                continue
            job.status = JobStatus.FAILED
            job.retryable = bool(job.task_name)
            job.message = (
                f"the worker running this job stopped (killed, crashed or restarted) at "
                f"{job.done}/{job.total}; nothing of the unfinished work was kept"
                + ("; retry it" if job.retryable else "")
            )
            job.lease_expires_at = None
            job.claim = ""
            job.finished_at = now
            job.save()
            job_expired.send(sender=BackgroundJob, job=job)
            failed += 1
            logger.warning("job %s: lease expired, failed as retryable", pk)
    old = now - timedelta(hours=int(getattr(settings, "GEC_JOB_RETRY_HOURS", 24)))
    for job in BackgroundJob.objects.filter(
        status=JobStatus.FAILED, retryable=True, finished_at__lt=old
    ):
        BackgroundJob.objects.filter(pk=job.pk).update(retryable=False)
        discard_temporary_files(job.params)
    return failed


def retry_job(*, job_id: int, user: Any) -> BackgroundJob:
    """Queue a failed-and-retryable job again (same row, same task). 503 and no change when
    the broker cannot be reached."""
    get_job_for(user=user, job_id=job_id)
    with transaction.atomic():
        job = BackgroundJob.objects.select_for_update().get(pk=job_id)
        if job.status != JobStatus.FAILED or not job.retryable or not job.task_name:
            raise Conflict(f"job {job_id} is {job.status} and cannot be retried")
        job.status = JobStatus.QUEUED
        job.retryable = False
        job.done = 0
        job.claim = ""
        job.finished_at = None
        job.message = f"queued again (attempt {job.attempts + 1})"
        job.save()
        job_retried.send(sender=BackgroundJob, job=job)
        send_task(current_app.tasks[job.task_name], *job.task_args)
    return job


# Sent (job=...) inside the retry's transaction, so a mirror row (SystemScore) is queued too.
job_retried = Signal()
