"""The release report and a publish from the page, as background jobs (a report over a
100k-sentence release and its comparison corpora takes a minute; a publish writes every
format). Each `request_*` records the job and queues its task after the commit; each
`run_*` is the task's body under the job's claim (core.jobs.run_claimed)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from core.exceptions import ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, fail_job, finish_job, mark_running, settle_job
from core.models import BackgroundJob
from datasets.models import DatasetVersion
from publishing import services, tasks

JOB_KIND_REPORT = "publishing.report"
JOB_KIND_PUBLISH = "publishing.publish"


def request_report(*, version: DatasetVersion, user: Any) -> BackgroundJob:
    return enqueue_job(
        kind=JOB_KIND_REPORT,
        user=user,
        params={"version_id": version.pk},
        message=f"queued: checks of {version.label}",
        task=tasks.report_task,
        task_args=lambda job_id: (job_id,),
    )


def request_publish(*, version: DatasetVersion, user: Any) -> BackgroundJob:
    return enqueue_job(
        kind=JOB_KIND_PUBLISH,
        user=user,
        params={"version_id": version.pk},
        message=f"queued: publishing {version.label}",
        task=tasks.publish_task,
        task_args=lambda job_id: (job_id,),
    )


def publish_folder(job: BackgroundJob) -> Path:
    return Path(settings.MEDIA_ROOT) / "publish" / str(job.pk)


def publish_archive(job: BackgroundJob) -> Path:
    return publish_folder(job).with_suffix(".zip")


def _archive_being_written(job: BackgroundJob) -> Path:
    """The zip until it is whole (make_archive adds ".zip" to the name it is given)."""
    return publish_folder(job).with_suffix(".partial.zip")


def discard_publish_files(job: BackgroundJob) -> None:
    """Everything a publish job writes under MEDIA_ROOT: its folder (the staging folder of
    publish_release inside it), the zip being written and the finished zip."""
    shutil.rmtree(publish_folder(job), ignore_errors=True)
    _archive_being_written(job).unlink(missing_ok=True)
    publish_archive(job).unlink(missing_ok=True)


def _version(job: BackgroundJob) -> DatasetVersion:
    version = (
        DatasetVersion.objects.select_related("dataset")
        .filter(pk=job.params.get("version_id"))
        .first()
    )
    if version is None:
        raise ServiceError("the release was deleted", field="release")
    return version


def run_report_job(job_id: int) -> dict[str, Any] | None:
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    mark_running(job_id, message="checking")
    try:
        report = services.compute_report(version=_version(job), user=job.created_by, job_id=job_id)
    except (ServiceError, JobCancelled) as exc:
        fail_job(job_id, message=getattr(exc, "message", str(exc)))
        return None
    result = {"report": report.pk, "counts": report.counts()}
    finish_job(job_id, result=result, message="checked")
    return result


def run_publish_job(job_id: int) -> dict[str, Any] | None:
    """Writes the folder under MEDIA_ROOT/publish/<job>/ and one zip of it beside it (what
    the page downloads). Whatever stops it (an error, Cancel, a lost claim) removes what it
    wrote; a killed worker's files are removed when the sweeper fails its job
    (publishing.receivers). A re-delivered or retried message starts from nothing."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    mark_running(job_id, message="publishing")
    discard_publish_files(job)
    try:
        summary = _publish_and_archive(job, job_id)
        with transaction.atomic():
            # Raises JobCancelled when the job was cancelled meanwhile: the zip then goes too.
            settle_job(job_id, result=summary, message="published")
    except (ServiceError, JobCancelled) as exc:
        discard_publish_files(job)
        fail_job(job_id, message=getattr(exc, "message", str(exc)))
        return None
    except BaseException:
        discard_publish_files(job)
        raise
    return summary


def _publish_and_archive(job: BackgroundJob, job_id: int) -> dict[str, Any]:
    folder, archive = publish_folder(job), publish_archive(job)
    version = _version(job)
    result = services.publish_release(
        version=version,
        out=folder / version.label.replace("@", "-"),
        user=job.created_by,
        job_id=job_id,
    )
    written = shutil.make_archive(
        str(_archive_being_written(job).with_suffix("")), "zip", root_dir=folder
    )
    os.replace(written, archive)  # the download never finds half a zip
    shutil.rmtree(folder, ignore_errors=True)
    return {"files": result["files"], "splits": result["splits"], "archive": archive.name}
