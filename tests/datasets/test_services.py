"""Imports and exports through Redis and a real Celery worker process on PostgreSQL
(run by .ci/run; skipped without DATABASE_URL and REDIS_URL)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.jobs import export_path, request_export, request_import
from datasets.models import Dataset
from datasets.services.releases import release_dataset
from tests.factories import make_user
from tests.parallel import worker_log

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def wait_for(job_id: int, seconds: float = 180) -> BackgroundJob:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = BackgroundJob.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish in {seconds} s")


def test_import_and_m2_export_run_in_the_worker(celery_worker, mucgec_dev: Path) -> None:
    admin = make_user(Role.ADMIN)
    head = "".join(
        line + "\n" for line in mucgec_dev.read_text(encoding="utf-8").splitlines()[:200]
    )
    job = request_import(
        user=admin,
        name="svc",
        fmt="mucgec",
        source_name="mucgec",
        uploads=[("head.txt", SimpleUploadedFile("head.txt", head.encode()))],
    )
    job = wait_for(job.pk)
    assert job.status == JobStatus.DONE, job.message
    assert job.result["sentences"] == 200 and job.done == job.total == 200
    dataset = Dataset.objects.get(name="svc")
    version = release_dataset(dataset=dataset, user=admin)
    export_job = request_export(user=admin, dataset=dataset, fmt="m2", version=version)
    try:
        export_job = wait_for(export_job.pk)
        assert export_job.status == JobStatus.DONE, export_job.message
        # The worker (with its extraction process pool) wrote what the library gives directly.
        from gecscore.m2 import format_m2_block

        from gecscore import annotate_sentence, load_resources

        resources = load_resources(settings.GEC_CHERRANT_RESOURCES or None)
        rows = [line.split("\t") for line in head.splitlines()]
        expected = "".join(
            format_m2_block(annotate_sentence(r[1], r[2:], resources=resources)[0]) + "\n\n"
            for r in rows
        )
        assert export_path(export_job).read_text(encoding="utf-8") == expected
        assert export_job.result["label"] == "svc@v1" and export_job.result["sentences"] == 200
    finally:
        shutil.rmtree(
            Path(settings.MEDIA_ROOT) / "exports" / str(export_job.pk), ignore_errors=True
        )


def test_a_bad_upload_fails_in_the_worker_and_writes_nothing(celery_worker) -> None:
    admin = make_user(Role.ADMIN)
    job = request_import(
        user=admin,
        name="svcbad",
        fmt="mucgec",
        uploads=[("b.txt", SimpleUploadedFile("b.txt", "1\t他去。\r\n".encode()))],
    )
    job = wait_for(job.pk)
    assert job.status == JobStatus.FAILED and "b.txt, line 1, field line end" in job.message
    assert not Dataset.objects.filter(name="svcbad").exists()


def test_a_large_release_is_extracted_in_parts_across_workers(
    celery_worker, mucgec_dev: Path, settings
) -> None:
    from gecscore.m2 import format_m2_block

    from datasets.models import ReferenceM2Cache
    from gecscore import annotate_sentence, load_resources

    settings.GEC_EXPORT_PART_SENTENCES = 40
    admin = make_user(Role.ADMIN)
    head = "".join(
        line + "\n" for line in mucgec_dev.read_text(encoding="utf-8").splitlines()[:130]
    )
    job = wait_for(
        request_import(
            user=admin,
            name="fan",
            fmt="mucgec",
            uploads=[("h.txt", SimpleUploadedFile("h.txt", head.encode()))],
        ).pk
    )
    assert job.status == JobStatus.DONE, job.message
    dataset = Dataset.objects.get(name="fan")
    version = release_dataset(dataset=dataset, user=admin)
    ReferenceM2Cache.objects.filter(
        version=version
    ).delete()  # a background preparation may have run
    export_job = request_export(user=admin, dataset=dataset, fmt="m2", version=version)
    assert export_job.params["fanout_part"] == 40
    try:
        export_job = wait_for(export_job.pk)
        assert export_job.status == JobStatus.DONE, export_job.message
        assert "in 4 parts" in export_job.message and export_job.done == 130
        resources = load_resources(settings.GEC_CHERRANT_RESOURCES or None)
        expected = "".join(
            format_m2_block(annotate_sentence(r[1], r[2:], resources=resources)[0]) + "\n\n"
            for r in (line.split("\t") for line in head.splitlines())
        )
        assert export_path(export_job).read_text(encoding="utf-8") == expected
        assert ReferenceM2Cache.objects.get(version=version).m2_text == expected
    finally:
        shutil.rmtree(
            Path(settings.MEDIA_ROOT) / "exports" / str(export_job.pk), ignore_errors=True
        )


def _tasks_received(name_part: str) -> int:
    log = worker_log("celery-worker")
    return sum(
        1
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
        if "received" in line and name_part in line
    )


def test_a_release_is_extracted_once_with_one_trigger(celery_worker, mucgec_dev: Path) -> None:
    """One trigger queues the release's reference-M2 extraction, and the worker runs it once."""
    from core.models import AuditLog
    from datasets.formats import ImportFile
    from datasets.models import ReferenceM2Cache
    from datasets.services.imports import import_dataset

    admin = make_user(Role.ADMIN)
    head = "".join(line + "\n" for line in mucgec_dev.read_text(encoding="utf-8").splitlines()[:60])
    import_dataset(
        name="once", fmt="mucgec", files=[ImportFile("h.txt", head.encode())], user=admin
    )
    received_before = _tasks_received("prepare_release_references")
    version = release_dataset(dataset=Dataset.objects.get(name="once"), user=admin)
    deadline = time.monotonic() + 120
    while not ReferenceM2Cache.objects.filter(version=version).exists():
        assert time.monotonic() < deadline, "the release's reference M2 was never extracted"
        time.sleep(0.5)
    time.sleep(3)  # room for a second trigger's task to arrive and run
    assert _tasks_received("prepare_release_references") - received_before == 1
    extractions = AuditLog.objects.filter(
        action="dataset.reference_m2.extracted", object_id=str(version.pk)
    )
    assert extractions.count() == 1
