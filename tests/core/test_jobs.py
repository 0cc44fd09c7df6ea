from __future__ import annotations

import pytest
from django.test import Client

from core.exceptions import NotFound
from core.jobs import (
    JobCancelled,
    cancel_job,
    fail_job,
    finish_job,
    get_job_for,
    report_progress,
    start_job,
)
from core.models import JobStatus
from core.roles import Role
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_job_goes_from_queued_to_done_with_progress() -> None:
    owner = make_user(Role.ADMIN)
    job = start_job(kind="test.work", user=owner, total=10)
    assert job.status == JobStatus.QUEUED and job.percent == 0
    report_progress(job.pk, 4)
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING and job.done == 4 and job.percent == 40
    finish_job(job.pk, result={"rows": 10})
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.percent == 100 and job.result == {"rows": 10}
    assert job.finished_at is not None


def test_cancelled_job_stops_the_work_and_stays_cancelled() -> None:
    owner = make_user(Role.ADMIN)
    job = start_job(kind="test.work", user=owner, total=10)
    cancel_job(job.pk, user=owner)
    with pytest.raises(JobCancelled):
        report_progress(job.pk, 5)
    fail_job(job.pk, message="late failure")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_only_the_creator_and_admins_see_a_job(client: Client) -> None:
    owner = make_user(Role.ANNOTATOR)
    other = make_user(Role.ANNOTATOR)
    admin = make_user(Role.ADMIN)
    job = start_job(kind="test.work", user=owner, total=3)
    with pytest.raises(NotFound):
        get_job_for(user=other, job_id=job.pk)
    assert get_job_for(user=admin, job_id=job.pk) == job
    client.login(username=other.username, password=PASSWORD)
    assert client.get(f"/jobs/{job.pk}/").status_code == 404
    client.login(username=owner.username, password=PASSWORD)
    state = client.get(f"/jobs/{job.pk}/").json()
    assert state["status"] == "queued" and state["total"] == 3
    assert client.post(f"/jobs/{job.pk}/cancel/").json()["status"] == "cancelled"
    client.logout()
    assert client.get(f"/jobs/{job.pk}/").status_code == 401


def test_in_process_listener_sees_progress_only_while_listening() -> None:
    from core.jobs import listen

    job = start_job(kind="test.work", total=10)
    seen: list[tuple[int, int | None]] = []
    with listen(job.pk, lambda done, total: seen.append((done, total))):
        report_progress(job.pk, 3, total=10)
        report_progress(job.pk, 7)
    report_progress(job.pk, 9)
    assert seen == [(3, 10), (7, None)]
