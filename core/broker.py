"""Sending work to the broker within a bounded time (docs/operations.md, "Queuing is one
decision"): `send_task` inside the transaction that writes the job, `send_best_effort` after
the commit. Both wait GEC_BROKER_TIMEOUT at most, whether the broker is closed, frozen
(accepts TCP, never answers) or slow. The apps import these through core.jobs."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection, transaction

from core.exceptions import ServiceUnavailable

logger = logging.getLogger("gec.jobs")


def tasks_run_in_process() -> bool:
    """True when Celery runs tasks eagerly (the quick start): there is no broker to reach."""
    return bool(current_app.conf.task_always_eager)


def broker_timeout() -> float:
    return float(getattr(settings, "GEC_BROKER_TIMEOUT", 3.0))


# A failed publish is tried once more (on a new connection) only when it failed at once: a
# pooled connection that Redis closed since (a restart) fails in milliseconds. A failure that
# took this long was a wait on an unresponsive broker; trying again would wait again.
QUICK_FAILURE_SECONDS = 0.5


class BrokerUnavailable(Exception):
    """The broker did not take a message within GEC_BROKER_TIMEOUT (closed, frozen, slow)."""


def publish(task: Any, args: tuple[Any, ...]) -> None:
    """Hand `task(*args)` to the broker, waiting GEC_BROKER_TIMEOUT seconds at most (plus
    QUICK_FAILURE_SECONDS for one quick reconnect); BrokerUnavailable otherwise.

    Each socket operation is bounded by the transport's socket timeouts (settings:
    CELERY_BROKER_TRANSPORT_OPTIONS); kombu's publish retries would add one bounded wait per
    try, so the retry callback stops them once a wait has run out. A message written to a
    frozen broker's socket may still be taken when the broker resumes: callers decide with a
    transaction that rolls back on BrokerUnavailable, so such a late message finds no job
    (core.job_leases.claim_job) and does nothing."""
    started = time.monotonic()

    def stop_after_a_wait(exc: BaseException, interval: float) -> None:
        if time.monotonic() - started >= QUICK_FAILURE_SECONDS:
            raise BrokerUnavailable(f"{type(exc).__name__}: {exc}") from exc

    try:
        # Celery merges this policy into CELERY_TASK_PUBLISH_RETRY_POLICY.
        task.apply_async(
            args, connect_timeout=broker_timeout(), retry_policy={"errback": stop_after_a_wait}
        )
    except BrokerUnavailable:
        raise
    except Exception as exc:  # kombu OperationalError, redis ConnectionError/TimeoutError, OSError
        raise BrokerUnavailable(f"{type(exc).__name__}: {exc}") from exc
    finally:
        elapsed = time.monotonic() - started
        if elapsed > broker_timeout() + QUICK_FAILURE_SECONDS:
            logger.warning("publishing %s took %.1f s", task.name, elapsed)


def send_task(task: Any, *args: Any) -> None:
    """Send `task(*args)` to the broker now, inside the caller's transaction.

    With a broker the caller's transaction must still be open: if the broker does not take
    the message within GEC_BROKER_TIMEOUT seconds (closed port, frozen or overloaded Redis)
    this raises ServiceUnavailable (503) and the caller's writes (the job row, a release, an
    upload) roll back with it; a message that reaches Redis late then finds no job and does
    nothing. A worker that receives the message before the commit waits for the job row
    (`claim_job`). In-process (the quick start) the task runs after the commit, as before.
    """
    if tasks_run_in_process():
        transaction.on_commit(lambda: task.apply_async(args))
        return
    if not connection.in_atomic_block:
        raise RuntimeError("send_task needs the transaction that writes the job (atomic)")
    started = time.monotonic()
    try:
        publish(task, args)
    except BrokerUnavailable as exc:
        logger.warning(
            "broker unreachable, %s not queued after %.1f s: %s",
            task.name,
            time.monotonic() - started,
            exc,
        )
        raise ServiceUnavailable(
            "the task queue cannot be reached right now, so the work was not started and "
            "nothing was changed; try again in a minute (an operator can check /healthz)"
        ) from exc


def send_best_effort(task: Any, *args: Any) -> bool:
    """Send after the commit and swallow a broker outage (logged): for follow-up work that
    something else recovers (stale annotator samples are rescored on the next read). The
    request waits GEC_BROKER_TIMEOUT at most; the task must be harmless if it arrives late."""

    def send() -> None:
        try:
            publish(task, args)
        except BrokerUnavailable as exc:
            logger.warning("broker unreachable, %s(%s) skipped: %s", task.name, args, exc)

    transaction.on_commit(send)
    return True
