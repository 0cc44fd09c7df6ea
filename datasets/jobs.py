"""Background jobs of the datasets app: imports, exports (one task, or a large release's M2
fanned out across Celery workers) and a new release's reference-M2 extraction.

Each `request_*` records a job and queues its task after the commit; each `run_*` is the
body of a task (`datasets/tasks.py`): idempotent, it leaves a finished job alone. With a
broker, a large release's M2 is cut into parts of `GEC_EXPORT_PART_SENTENCES` sentences, one
task each (any worker on any machine takes them), and a chord callback joins the parts in
order, writes the file, stores the extraction for the scorer and finishes the job.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from celery import chord
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.dispatch import receiver

# Process-pool worker functions (pickled by name), not API.
from gecscore.extract import init_m2_worker, m2_block_texts

from core.audit import log_action
from core.exceptions import ServiceError
from core.job_leases import keep_alive
from core.job_queue import enqueue_upload_job, run_upload_job
from core.jobs import (
    JobCancelled,
    fail_job,
    finish_job,
    job_expired,
    mark_running,
    queue_job,
    start_job,
    tasks_run_in_process,
)
from core.models import BackgroundJob, JobStatus
from core.uploads import store_upload
from datasets import tasks
from datasets.extraction import extraction_resources, resources_dir_setting
from datasets.formats import ImportFile
from datasets.formats.files import discard_partial_writes, write_atomically
from datasets.models import Dataset, DatasetVersion, Language, ReleasedSentence
from datasets.reference_m2 import reference_m2, setting_int, store_reference_m2_file
from datasets.selectors import DatasetRow, count_rows
from datasets.services.exports import ExportFormat, ExportResult, export_dataset, export_filename
from datasets.services.imports import import_dataset

JOB_KIND_IMPORT = "datasets.import"


def request_import(
    *,
    user: Any,
    name: str,
    fmt: str,
    uploads: Sequence[tuple[str, Any]],
    source_name: str = "",
    split: str = "",
    language: str = Language.CHINESE,
    reference_style: str = "",
) -> Any:
    """Store uploaded files and queue the import as a background job; returns the job.

    `uploads` are (file name, file object with .read(), or bytes). Each is stored through
    the one bounded reader (core/uploads.py: decompressed when gzipped, within the upload
    limits); a file above a limit is refused here (413) and nothing is kept.
    """
    if not uploads:
        raise ServiceError("choose at least one file", field="files")

    def store(folder: Path) -> list[dict[str, str]]:
        stored = []
        for index, (filename, upload) in enumerate(uploads):
            safe = Path(filename).name or f"file{index}"
            target = folder / f"{index:02d}-{safe}"
            store_upload(upload, target, name=filename)
            stored.append({"path": str(target), "name": safe})
        return stored

    # The job row, the stored files and the message go together: if the broker cannot be
    # reached the row rolls back and the files are removed (ServiceUnavailable, a 503).
    return enqueue_upload_job(
        kind=JOB_KIND_IMPORT,
        user=user,
        params={
            "name": name,
            "format": fmt,
            "source_name": source_name,
            "split": split,
            "language": language,
            "reference_style": reference_style,
        },
        folder="imports",
        store=store,
        task=tasks.import_dataset_task,
    )


def run_import_job(job_id: int) -> dict[str, Any] | None:
    """The body of the import task (run under the job's claim, core.jobs.run_claimed):
    the rows and the job's "done" commit in one transaction with the job row locked
    (settle_job in import_dataset), so a re-delivered or retried import never writes twice;
    a failed import wrote nothing. The uploads are deleted when the job ends."""
    return run_upload_job(job_id, _import_stored)


def _import_stored(job: BackgroundJob) -> dict[str, Any]:
    params = job.params
    mark_running(job.pk, message="checking the file")
    files = [ImportFile.from_path(f["path"], name=f["name"]) for f in params["files"]]
    result = import_dataset(
        name=params["name"],
        fmt=params["format"],
        files=files,
        source_name=params.get("source_name", ""),
        split=params.get("split", ""),
        language=params.get("language", Language.CHINESE),
        reference_style=params.get("reference_style", ""),
        user=job.created_by,
        job_id=job.pk,
    )
    # Already done (settle_job, in the import's transaction) unless run without a job.
    finish_job(job.pk, result=result.as_dict(), message=import_message(result))
    return result.as_dict()


def import_message(result: Any) -> str:
    return f"imported {result.sentences} sentences, {result.references} references"


JOB_KIND_EXPORT = "datasets.export"


def request_export(
    *,
    user: Any,
    dataset: Dataset,
    fmt: str,
    version: DatasetVersion | None = None,
    include_annotations: bool = False,
) -> Any:
    """Queue an export as a background job; the file lands under MEDIA_ROOT/exports/<job>/."""

    try:
        ExportFormat(fmt)
    except ValueError:
        raise ServiceError(f"unknown export format {fmt!r}", field="format") from None

    with transaction.atomic():
        job = start_job(
            kind=JOB_KIND_EXPORT,
            user=user,
            params={
                "dataset_id": dataset.pk,
                "version_id": version.pk if version is not None else None,
                "format": fmt,
                "include_annotations": include_annotations,
                "filename": export_filename(dataset, version, fmt),
                # Decided here (where the settings of the request are) and carried to the workers.
                "fanout_part": fanout_part_size(version, fmt),
            },
        )
        queue_job(job, tasks.export_dataset_task, job.pk)
    return job


def export_path(job: Any) -> Path:
    return Path(settings.MEDIA_ROOT) / "exports" / str(job.pk) / job.params["filename"]


@receiver(job_expired, dispatch_uid="datasets.discard_export_leftovers")
def discard_export_leftovers(sender: Any, job: BackgroundJob, **_: Any) -> None:
    """An export whose worker died (the sweeper fails it) leaves no temporary file until a
    retry: a killed 4,000-sentence export once kept 25.7 MB of it."""
    if job.kind == JOB_KIND_EXPORT and job.params.get("filename"):
        discard_partial_writes(export_path(job))


def run_export_job(job_id: int) -> dict[str, Any] | None:
    """The body of the export task. Idempotent: a re-run replaces the same file (written to
    a temporary name and renamed, so a reader never sees half a file)."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    params = job.params
    mark_running(job_id)
    # A worker killed while writing leaves its temporary file behind: the re-run clears it
    # (and so does the sweeper that fails the job, discard_export_leftovers).
    discard_partial_writes(export_path(job))
    if params.get("fanout_part"):
        return _start_fanout(job)
    try:
        dataset = Dataset.objects.filter(pk=params["dataset_id"]).first()
        if dataset is None:
            raise ServiceError("the dataset was deleted")
        version = (
            DatasetVersion.objects.filter(pk=params["version_id"]).first()
            if params.get("version_id")
            else None
        )
        out = export_path(job)
        out.parent.mkdir(parents=True, exist_ok=True)
        result = export_dataset(
            dataset=dataset,
            version=version,
            fmt=params["format"],
            out=out,
            user=job.created_by,
            job_id=job_id,
            include_annotations=params.get("include_annotations", False),
        )
    except (ServiceError, JobCancelled) as exc:
        fail_job(job_id, message=getattr(exc, "message", str(exc)))
        return None
    data = result.as_dict()
    finish_job(job_id, result=data, message=f"exported {result.label}")
    return data


def fanout_part_size(version: DatasetVersion | None, fmt: str) -> int:
    """Part size for a fanned-out M2 export, or 0 for a single task."""
    if fmt != ExportFormat.M2 or version is None or tasks_run_in_process():
        return 0
    part = setting_int("GEC_EXPORT_PART_SENTENCES", 5000)
    if part <= 0 or version.counts.get("sentences", 0) <= part:
        return 0
    return part


def _start_fanout(job: Any) -> dict[str, Any] | None:

    version = DatasetVersion.objects.filter(pk=job.params.get("version_id")).first()
    if version is None:
        fail_job(job.pk, message="the release was deleted")
        return None
    directory = resources_dir_setting()
    total = count_rows(dataset=version.dataset, version=version)
    part = int(job.params["fanout_part"])
    mark_running(job.pk, total=total, message=f"extracting in {-(-total // part)} parts")
    header = [
        tasks.export_m2_part_task.s(job.pk, version.pk, first, first + part, directory)
        for first in range(0, total, part)
    ]
    callback = tasks.export_m2_assemble_task.s(job.pk, directory).on_error(
        tasks.export_m2_failed_task.s(job.pk)
    )
    chord(header)(callback)
    return None


def export_m2_part(
    *, job_id: int, version_id: int, first: int, last: int, resources_dir: str | None
) -> tuple[int, str]:
    """(first, M2 text) of released positions [first, last): pure, so a retried part is
    harmless. Parts renew the export job's lease while they run (its first task is over)."""
    with keep_alive(job_id):
        return first, _m2_part_text(
            job_id=job_id,
            version_id=version_id,
            first=first,
            last=last,
            resources_dir=resources_dir,
        )


def _m2_part_text(
    *, job_id: int, version_id: int, first: int, last: int, resources_dir: str | None
) -> str:

    rows = [
        DatasetRow(external_id, text, tuple(references), "", "", None)
        for external_id, text, references in ReleasedSentence.objects.filter(
            version_id=version_id,
            position__gte=first,
            position__lt=last,
        )
        .order_by("position")
        .values_list("external_id", "text", "references")
    ]
    init_m2_worker(resources_dir)
    text = "".join(m2_block_texts([(r.external_id, r.text, r.references) for r in rows]))
    BackgroundJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        done=F("done") + len(rows)
    )
    return text


def assemble_m2_parts(
    *, parts: Sequence[Sequence[Any]], job_id: int, resources_dir: str | None
) -> dict[str, Any] | None:
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["version_id"])
    # A part re-delivered after a worker died can report twice (and the chord then fire with
    # another part missing): order by position, drop repeats, and refuse a file with a gap.
    by_first = {int(first): str(text) for first, text in parts}
    expected = range(
        0, count_rows(dataset=version.dataset, version=version), int(job.params["fanout_part"])
    )
    if sorted(by_first) != list(expected):
        fail_job(
            job_id,
            message="parts of the M2 export went missing (a worker died); retry it",
            retryable=True,
        )
        return None
    texts = [by_first[first] for first in expected]
    out = export_path(job)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, texts)
    signature = extraction_resources(resources_dir).signature
    store_reference_m2_file(version, signature, out)
    result = ExportResult(
        path=out,
        format=ExportFormat.M2.value,
        sentences=version.counts.get("sentences", 0),
        references=version.counts.get("references", 0),
        label=version.label,
        files=[out.name],
        resources=signature,
    )
    data = result.as_dict()
    log_action(version, job.created_by, "dataset.export", {**data, "parts": len(texts)})
    finish_job(job_id, result=data, message=f"exported {result.label} in {len(texts)} parts")
    return data


def queue_reference_extraction(version_id: int) -> None:
    """The one trigger of a new release's reference-M2 extraction. With real workers it runs
    right away in the background (stored per resources signature), so the first M2 export
    and the first system score of the release do not wait for it. In the quick start tasks
    run in-process, where this would make every release as slow as an M2 export: skipped
    (the first export or score extracts instead)."""
    if tasks_run_in_process():
        return

    # A job like any other: claimed once (re-deliveries do nothing), swept if its worker dies;
    # queued in the release's transaction, so no release exists without its extraction queued.
    job = start_job(
        kind=JOB_KIND_REFERENCES,
        params={"version_id": version_id},
        message="extracting the release's reference M2",
    )
    queue_job(job, tasks.prepare_release_references_task, job.pk)


JOB_KIND_REFERENCES = "datasets.references"


def prepare_release_references(job_id: int) -> int:
    """Extract and store the reference M2 of a release (idempotent); returns its sentences."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    version_id = job.params.get("version_id") if job is not None else None
    version = (
        DatasetVersion.objects.select_related("dataset").filter(pk=int(version_id)).first()
        if version_id
        else None
    )
    if version is None:
        fail_job(job_id, message="the release was deleted")
        return 0
    reference_m2(version)
    sentences = int(version.counts.get("sentences", 0))
    finish_job(
        job_id, result={"sentences": sentences}, message=f"{version.label}: {sentences} sentences"
    )
    return sentences
