"""The job state machine on any database: claims, the sweeper, Retry, temporary
uploads, and statistics read through a cache that is down. The kill -9 / dead broker
versions with real processes are in test_faults.py (marker `services`)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from core.cache import cached
from core.job_leases import claim_job
from core.jobs import (
    cancel_job,
    fail_job,
    finish_job,
    retry_job,
    start_job,
    sweep_expired_jobs,
)
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_a_queued_job_is_claimed_once_and_a_second_delivery_does_nothing() -> None:
    job = start_job(kind="test.kind")
    first = claim_job(job.pk, wait_for_row=0)
    assert first is not None and first.status == JobStatus.RUNNING and first.claim
    assert first.attempts == 1
    BackgroundJob.objects.filter(pk=job.pk).update(
        lease_expires_at=timezone.now() + timedelta(seconds=60)
    )
    assert claim_job(job.pk, wait_for_row=0) is None  # running under a live lease elsewhere
    finish_job(job.pk)
    assert claim_job(job.pk, wait_for_row=0) is None  # done: nothing twice


def test_a_running_job_whose_lease_ran_out_is_taken_over_by_a_redelivery() -> None:
    job = start_job(kind="test.kind")
    first = claim_job(job.pk, wait_for_row=0)
    assert first is not None
    BackgroundJob.objects.filter(pk=job.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    second = claim_job(job.pk, wait_for_row=0)
    assert second is not None and second.claim != first.claim and second.attempts == 2


def test_a_missing_job_row_is_not_claimed() -> None:
    assert claim_job(987654, wait_for_row=0) is None


def test_the_sweeper_fails_expired_jobs_as_retryable_and_leaves_live_ones() -> None:
    dead = start_job(kind="test.kind")
    live = start_job(kind="test.kind")
    now = timezone.now()
    BackgroundJob.objects.filter(pk=dead.pk).update(
        status=JobStatus.RUNNING, lease_expires_at=now - timedelta(seconds=5), task_name="core.ping"
    )
    BackgroundJob.objects.filter(pk=live.pk).update(
        status=JobStatus.RUNNING,
        lease_expires_at=now + timedelta(seconds=60),
        task_name="core.ping",
    )
    assert sweep_expired_jobs() == 1
    dead.refresh_from_db()
    live.refresh_from_db()
    assert dead.status == JobStatus.FAILED and dead.retryable
    assert "worker" in dead.message and dead.lease_expires_at is None
    assert live.status == JobStatus.RUNNING


def test_retry_queues_a_retryable_job_again_and_refuses_others(
    django_capture_on_commit_callbacks: Any,
) -> None:
    admin = make_user(Role.ADMIN)
    job = start_job(kind="test.kind", user=admin)
    BackgroundJob.objects.filter(pk=job.pk).update(
        status=JobStatus.FAILED, retryable=True, task_name="core.ping", task_args=["again"]
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        retried = retry_job(job_id=job.pk, user=admin)
    assert retried.status == JobStatus.QUEUED and not retried.retryable
    assert len(callbacks) == 1  # the task is sent (in-process: after the commit)
    from core.exceptions import Conflict

    with pytest.raises(Conflict):
        retry_job(job_id=job.pk, user=admin)  # queued now, not failed


def test_the_retry_form_goes_back_to_the_job_page_or_to_next(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Regression: a POST without `next` (or with a foreign one) went to / instead of the job."""
    from django.test import Client

    admin = make_user(Role.ADMIN)
    client = Client()
    client.force_login(admin)
    job = start_job(kind="test.kind", user=admin)
    job_page = f"/datasets/jobs/{job.pk}/"
    retry = f"/jobs/{job.pk}/retry/"
    cases = [({}, job_page), ({"next": "https://evil.example/"}, job_page)]
    cases += [({"next": "/datasets/"}, "/datasets/")]
    for data, expected in cases:
        BackgroundJob.objects.filter(pk=job.pk).update(
            status=JobStatus.FAILED, retryable=True, task_name="core.ping", task_args=["again"]
        )
        with django_capture_on_commit_callbacks(execute=False):
            response = client.post(retry, data)
        assert response.status_code == 302 and response["Location"] == expected, data
    refused = client.post(retry)  # queued now: not retryable, the message shows on its page
    assert refused.status_code == 302 and refused["Location"] == job_page
    assert client.get(job_page).status_code == 200


def test_uploads_are_deleted_when_a_job_ends_however_it_ends(
    django_capture_on_commit_callbacks: Any,
) -> None:
    admin = make_user(Role.ADMIN)
    folder = Path(settings.MEDIA_ROOT) / "imports" / "test-states"
    folder.mkdir(parents=True, exist_ok=True)
    outside = Path(settings.BASE_DIR) / "README.md"  # a command's own input: never deleted

    def job_with_file(name: str) -> tuple[BackgroundJob, Path]:
        path = folder / name
        path.write_text("x", encoding="utf-8")
        files = [{"path": str(path)}, {"path": str(outside)}]
        return start_job(kind="test.kind", user=admin, params={"files": files}), path

    done, done_path = job_with_file("done.txt")
    failed, failed_path = job_with_file("failed.txt")
    cancelled, cancelled_path = job_with_file("cancelled.txt")
    kept, kept_path = job_with_file("kept.txt")
    with django_capture_on_commit_callbacks(execute=True):
        finish_job(done.pk)
        fail_job(failed.pk, message="bad line 3")
        fail_job(kept.pk, message="worker died", retryable=True)
    cancel_job(cancelled.pk, user=admin)
    assert not done_path.exists() and not failed_path.exists() and not cancelled_path.exists()
    assert kept_path.exists()  # kept for Retry
    assert outside.exists()
    BackgroundJob.objects.filter(pk=kept.pk).update(
        finished_at=timezone.now() - timedelta(hours=settings.GEC_JOB_RETRY_HOURS + 1)
    )
    sweep_expired_jobs()
    assert not kept_path.exists()  # the retry window closed
    kept.refresh_from_db()
    assert not kept.retryable


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
)
def test_a_dead_cache_is_read_through_by_computing() -> None:
    calls = []

    def compute() -> dict[str, int]:
        calls.append(1)
        return {"n": 1}

    assert cached("test:key", compute, 60) == {"n": 1}
    assert cached("test:key", compute, 60) == {"n": 1}
    assert len(calls) == 2  # computed each time, no error
