"""Leases and claims of background jobs: a worker claims a job row under a lock and keeps a
lease on it alive while it works, so the sweeper (core.jobs.sweep_expired_jobs) can tell a
dead worker's job from a live one. Leases need a second connection that sees the job row
while the work's transaction is open, so they apply on PostgreSQL only.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone

from core.models import BackgroundJob, JobStatus

logger = logging.getLogger("gec.jobs")


def lease_seconds() -> int:
    return max(2, int(getattr(settings, "GEC_JOB_LEASE_SECONDS", 60)))


def leases_apply() -> bool:
    """Leases need a second connection that sees the job row while the work's transaction
    is open: PostgreSQL. On SQLite (the quick start, in-process) jobs are not leased."""
    return connection.vendor != "sqlite"


def new_lease() -> Any:
    return timezone.now() + timedelta(seconds=lease_seconds()) if leases_apply() else None


# The claims this process holds: job id -> claim token (set by core.jobs.run_claimed for its
# work).
claims: dict[int, str] = {}


@contextmanager
def side_cursor() -> Iterator[Any]:
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


def _claim_token() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def claim_job(job_id: int, *, wait_for_row: float | None = None) -> BackgroundJob | None:
    """Take a job for this worker: lock its row, check its state, mark it running with a
    fresh lease and claim. None (do nothing) when it is finished, cancelled, failed, or
    running under a live lease elsewhere. A queued job, or a running one whose lease ran
    out (its worker died and Redis handed the message out again), is taken.

    The message can arrive before the transaction that wrote the job commits (send_task
    publishes inside it): a missing row is waited for, up to `wait_for_row` seconds
    (settings.GEC_JOB_ROW_WAIT_SECONDS). A row that never comes belongs to a request that
    rolled back (the broker timed out after the message reached it): nothing is done."""
    if wait_for_row is None:
        wait_for_row = float(getattr(settings, "GEC_JOB_ROW_WAIT_SECONDS", 15.0))
    deadline = time.monotonic() + wait_for_row
    while True:
        with transaction.atomic():
            job = BackgroundJob.objects.select_for_update().filter(pk=job_id).first()
            if job is not None:
                now = timezone.now()
                expired = (
                    job.status == JobStatus.RUNNING
                    and job.lease_expires_at is not None
                    and job.lease_expires_at < now
                )
                if job.status != JobStatus.QUEUED and not expired:
                    logger.info("job %s is %s: nothing to do", job_id, job.status)
                    return None
                job.status = JobStatus.RUNNING
                job.claim = _claim_token()
                job.attempts += 1
                job.lease_expires_at = new_lease()
                job.started_at = now
                job.retryable = False
                job.save()
                return job
        if time.monotonic() >= deadline:
            logger.warning("job %s not found: its request rolled back", job_id)
            return None
        time.sleep(0.2)


@contextmanager
def keep_alive(job_id: int, token: str | None = None) -> Iterator[None]:
    """Renew the job's lease every third of its length from a thread while the block runs,
    so a long step without progress reports keeps the job alive; a dead process stops it."""
    if not leases_apply():
        yield
        return
    stop = threading.Event()
    table = BackgroundJob._meta.db_table

    def beat() -> None:
        while not stop.wait(lease_seconds() / 3):
            claim_sql, claim_args = (" AND claim = %s", [token]) if token else ("", [])
            try:
                with side_cursor() as cursor:
                    cursor.execute(
                        f"UPDATE {table} SET lease_expires_at = %s "
                        f"WHERE id = %s AND status = %s" + claim_sql,
                        [new_lease(), job_id, JobStatus.RUNNING, *claim_args],
                    )
            except Exception:  # a missed beat is retried; the lease has slack for two
                logger.warning("heartbeat of job %s not written", job_id, exc_info=True)

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


@contextmanager
def watch_cancel(
    job_id: int | None, on_cancel: Callable[[], None], *, every: float
) -> Iterator[None]:
    """Call `on_cancel()` once, from a thread, when the job stops being this run's while the
    block runs (cancelled, failed by the sweeper, taken over by another claim): for work that
    blocks longer than a Cancel may wait between two progress reports, such as a request to
    an LLM endpoint. The job row is read every `every` seconds over one connection of the
    thread's own. PostgreSQL only, like leases: on SQLite tasks run in-process and the work
    notices a cancel at its next progress report."""
    if job_id is None or not leases_apply():
        yield
        return
    done = threading.Event()
    token = claims.get(job_id)
    table = BackgroundJob._meta.db_table

    def watch() -> None:
        conn = connections.create_connection("default")
        try:
            while not done.wait(every):
                try:
                    with conn.cursor() as cursor:
                        cursor.execute(f"SELECT status, claim FROM {table} WHERE id = %s", [job_id])
                        row = cursor.fetchone()
                except Exception:  # the next look may work; the work goes on meanwhile
                    logger.warning("cancel watch of job %s: no read", job_id, exc_info=True)
                    continue
                if row is None:
                    # Not committed yet (work run in-process inside the transaction that made
                    # the job): nobody else can have cancelled it.
                    continue
                live = row[0] in (JobStatus.QUEUED, JobStatus.RUNNING)
                if not live or (token and row[1] != token):
                    on_cancel()
                    return
        finally:
            conn.close()

    thread = threading.Thread(target=watch, name=f"job-{job_id}-cancel-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)
