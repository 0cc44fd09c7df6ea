"""Appraise XML import as a background job (as dataset imports are: datasets/jobs.py).

The request stores the upload through the one bounded reader (core/uploads.py: decompressed
when gzipped, within the size, line and XML depth limits, well-formed, each element freed
once read), so a bomb is refused with a 4xx before a job exists; the task then parses the
stored file as a stream and writes all or nothing, its rows and the job's "done" in one
transaction (settle_job), so a re-delivered message never imports twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gecscore.boundedio import Source  # the bounded upload reader: platform I/O plumbing, not API

from core.exceptions import NotFound, ServiceError
from core.job_queue import enqueue_upload_job, run_upload_job
from core.jobs import mark_running
from core.models import BackgroundJob
from core.uploads import judgments_xml_limits, store_upload
from datasets.models import DatasetVersion
from judgments import selectors, services, tasks
from judgments.models import Campaign

JOB_KIND_IMPORT = "judgments.import"


def _check_campaign(user: Any, name: str) -> None:
    existing = Campaign.objects.filter(name=name).first()
    if existing is not None and not selectors.is_campaign_admin(user, existing):
        raise NotFound(f"no judgment campaign {name!r} of yours", field="campaign")


def request_judgments_import(
    *,
    user: Any,
    campaign_name: str,
    upload: Source,
    file_name: str,
    release: DatasetVersion | None = None,
) -> BackgroundJob:
    """Check and store an Appraise XML upload and queue its import; returns the job.

    Refused at once (nothing kept): no campaign name, another admin's campaign (404), a file
    above a limit (413, the setting named), malformed XML (400, line and column)."""
    name = campaign_name.strip()
    if not name:
        raise ServiceError("name the campaign", field="campaign")
    _check_campaign(user, name)

    def store(folder: Path) -> list[dict[str, str]]:
        target = folder / "upload.xml"
        label = Path(file_name).name or "upload.xml"
        store_upload(upload, target, name=label, limits=judgments_xml_limits(), xml=True)
        return [{"path": str(target), "name": label}]

    return enqueue_upload_job(
        kind=JOB_KIND_IMPORT,
        user=user,
        params={"campaign": name, "release_id": release.pk if release is not None else None},
        folder="judgment-imports",
        store=store,
        task=tasks.import_judgments_task,
        message="queued",
    )


def run_import_job(job_id: int) -> dict[str, Any] | None:
    """The body of the import task (under the job's claim, core.jobs.run_claimed). The
    stored upload is deleted when the job ends."""
    return run_upload_job(job_id, _import_stored)


def _import_stored(job: BackgroundJob) -> dict[str, Any]:
    params = job.params
    mark_running(job.pk, message="reading the file")
    release = None
    if params.get("release_id"):
        release = DatasetVersion.objects.filter(pk=params["release_id"]).first()
        if release is None:
            raise ServiceError("the release was deleted", field="release")
    _check_campaign(job.created_by, params["campaign"])  # created meanwhile by another
    stored = params["files"][0]
    campaign = services.import_judgments(
        campaign_name=params["campaign"],
        source=Path(stored["path"]),
        release=release,
        label=stored["name"],
        by=job.created_by,
        job_id=job.pk,
    )
    job.refresh_from_db()
    return dict(job.result) or {"campaign": campaign.pk}
