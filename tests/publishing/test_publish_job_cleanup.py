"""A publish from the page (a background job) that is cancelled at any step, or whose worker
is killed mid-write, leaves nothing under MEDIA_ROOT/publish/, so its message ("cancelled",
"nothing of the unfinished work was kept") is true; a retry then publishes."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from core.jobs import cancel_job, listen
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from publishing import jobs, services, tasks
from tests.core.faultkit import wait_for
from tests.core.test_faults import ended, kill_when_held
from tests.core.test_faults import worker as worker  # the fault tests' killable worker
from tests.factories import make_user
from tests.publishing.test_publish import release_with_defects


def files_under(folder: Path) -> list[str]:
    return (
        sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
        if folder.exists()
        else []
    )


@pytest.mark.django_db
@pytest.mark.parametrize("step", range(services.PUBLISH_STEPS))
def test_a_publish_cancelled_at_any_step_leaves_nothing(
    step: int, settings: Any, tmp_path: Path
) -> None:
    """Cancel is pressed while the job reports step `step`; the job notices at its next
    report (or, after the last one, when it would finish) and removes everything."""
    settings.MEDIA_ROOT = tmp_path / "media"
    admin = make_user(Role.ADMIN)
    version = release_with_defects()
    services.compute_report(version=version)  # only the folder's steps report progress
    job = jobs.request_publish(version=version, user=admin)
    seen: list[int] = []

    def press_cancel_at(done: int, total: int | None) -> None:
        seen.append(done)
        if done == step:
            cancel_job(job.pk, user=admin)

    with listen(job.pk, press_cancel_at):
        assert tasks.publish_task(job.pk) is None
    assert step in seen and max(seen) <= step + 1
    job.refresh_from_db()
    assert (job.status, job.message) == (JobStatus.CANCELLED, "cancelled")
    assert files_under(tmp_path / "media") in ([], ["publish"])


@pytest.mark.django_db
def test_a_publish_not_cancelled_keeps_only_its_zip(settings: Any, tmp_path: Path) -> None:
    """The same run without Cancel: the zip stays (the download), the folder goes."""
    settings.MEDIA_ROOT = tmp_path / "media"
    admin = make_user(Role.ADMIN)
    version = release_with_defects()
    job = jobs.request_publish(version=version, user=admin)
    tasks.publish_task(job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.DONE, job.message
    assert files_under(tmp_path / "media") == ["publish", f"publish/{job.pk}.zip"]


# --- a worker killed mid-publish (PostgreSQL, Redis and real worker processes) --------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.hold_worker_at(services.PUBLISH_STEPS - 2)
def test_a_worker_killed_mid_publish_leaves_nothing_and_the_retry_publishes(
    worker: Any, client: Any
) -> None:
    admin = make_user(Role.ADMIN)
    client.force_login(admin)
    version = release_with_defects()
    services.compute_report(version=version)
    job = jobs.request_publish(version=version, user=admin)
    # Held at its progress report before Croissant: the card and the data are written.
    kill_when_held(
        worker, job.pk, at_least=services.PUBLISH_STEPS - 2, total=services.PUBLISH_STEPS
    )
    folder = jobs.publish_folder(job)
    written = files_under(folder)
    assert any(name.endswith("/README.md") for name in written), written
    state = wait_for(lambda: ended(client, job.pk), timeout=60, what="the sweeper")
    assert state["status"] == JobStatus.FAILED and state["retryable"], state
    assert "nothing of the unfinished work was kept" in state["message"]
    assert not folder.exists()
    assert not jobs.publish_archive(job).exists()
    assert not list(folder.parent.glob(f"{job.pk}.*"))

    worker.start()
    response = client.post(f"/jobs/{job.pk}/retry/", HTTP_ACCEPT="application/json")
    assert response.status_code == 202, response.content
    state = wait_for(lambda: ended(client, job.pk), timeout=120, what="the retry")
    assert state["status"] == JobStatus.DONE, state
    response = client.get(reverse("publishing:download", args=[job.pk]))
    names = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))).namelist()
    assert "learners-v1/README.md" in names and "learners-v1/SHA256SUMS" in names
    assert not folder.exists()
    assert BackgroundJob.objects.get(pk=job.pk).attempts == 2
