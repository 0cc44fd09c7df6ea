"""The release report and a publish from the page, as background jobs (a report over a
100k-sentence release and its comparison corpora takes a minute; a publish writes every
format). Each `request_*` records the job and queues its task after the commit; each
`run_*` is the task's body under the job's claim (core.jobs.run_claimed)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings

from core.exceptions import ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, fail_job, finish_job, mark_running, report_progress
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
    the page downloads); a re-delivered message starts both again from nothing."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    mark_running(job_id, message="publishing")
    folder, archive = publish_folder(job), publish_archive(job)
    shutil.rmtree(folder, ignore_errors=True)
    archive.unlink(missing_ok=True)
    try:
        version = _version(job)
        # The job's steps, so its page counts them ("done 3/3: published", not "0/0"): the
        # release's checks when it has no report yet, the folder, the zip.
        steps = ["writing the formats, Parquet, card and checksums", "zipping the folder"]
        if services.latest_report(version) is None:
            steps.insert(0, "checking the release")
        report_progress(job_id, 0, total=len(steps), message=steps[0])
        if len(steps) == 3:
            # Without the job: the checks' own progress counts 3 steps of their own.
            services.compute_report(version=version, user=job.created_by)
            report_progress(job_id, 1, total=len(steps), message=steps[1])
        result = services.publish_release(
            version=version,
            out=folder / version.label.replace("@", "-"),
            user=job.created_by,
            job_id=job_id,
        )
        report_progress(job_id, len(steps) - 1, total=len(steps), message=steps[-1])
        shutil.make_archive(str(folder), "zip", root_dir=folder)
    except (ServiceError, JobCancelled) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        archive.unlink(missing_ok=True)
        fail_job(job_id, message=getattr(exc, "message", str(exc)))
        return None
    shutil.rmtree(folder, ignore_errors=True)
    summary = {"files": result["files"], "splits": result["splits"], "archive": archive.name}
    finish_job(job_id, result=summary, message="published")
    return summary
