"""A killed export leaves no hidden temporary file: the sweeper that
fails the job of a dead worker removes the `.<name>.*` file write_atomically was filling.

No worker is killed here: the job row and the export folder are put in the state a worker
killed mid-write leaves (running, lease run out, a half-written temporary file beside the
target), and the real sweeper runs. test_faults.py kills real workers (marker `services`)."""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import timezone

from core.jobs import sweep_expired_jobs
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.jobs import export_path, request_export
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def test_the_sweeper_removes_the_temporary_file_of_an_export_whose_worker_died(
    tmp_path: Path,
) -> None:
    with override_settings(MEDIA_ROOT=str(tmp_path)):
        dataset = make_dataset(sentences=["我很喜欢吃平果"])
        # Not run: the on-commit send never fires inside this test's transaction.
        job = request_export(user=make_user(Role.ADMIN), dataset=dataset, fmt="jsonl")
        out = export_path(job)
        out.parent.mkdir(parents=True)
        # What write_atomically had open when the worker was killed (the same mkstemp name).
        handle, partial = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
        os.write(handle, b'{"id": "1"}\n' * 1000)
        os.close(handle)
        kept = [out.parent / "notes.txt", out.parent / f".{out.name}"]  # not its temporary files
        for path in kept:
            path.write_text("keep")
        BackgroundJob.objects.filter(pk=job.pk).update(
            status=JobStatus.RUNNING,
            lease_expires_at=timezone.now() - timedelta(seconds=5),
            task_name="datasets.export",
        )
        assert sweep_expired_jobs() == 1
        job.refresh_from_db()
        assert job.status == JobStatus.FAILED and job.retryable
        assert not Path(partial).exists()
        assert not list(out.parent.glob(f".{out.name}.*"))
        assert all(path.read_text() == "keep" for path in kept)


def test_the_sweeper_leaves_the_files_of_other_kinds_of_job_alone(tmp_path: Path) -> None:
    with override_settings(MEDIA_ROOT=str(tmp_path)):
        job = request_export(
            user=make_user(Role.ADMIN), dataset=make_dataset(sentences=["句子"]), fmt="jsonl"
        )
        out = export_path(job)
        out.parent.mkdir(parents=True)
        partial = out.parent / f".{out.name}.abc123"
        partial.write_text("half")
        BackgroundJob.objects.filter(pk=job.pk).update(
            kind="datasets.import",  # same folder and file name, but not an export
            status=JobStatus.RUNNING,
            lease_expires_at=timezone.now() - timedelta(seconds=5),
            task_name="datasets.import",
        )
        assert sweep_expired_jobs() == 1
        assert partial.exists()
