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

from django.conf import settings
from django.db import transaction

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import JobCancelled, fail_job, finish_job, mark_running, start_job
from core.models import BackgroundJob, JobStatus
from datasets.extraction import extraction_resources, resources_dir_setting
from datasets.formats import ImportFile
from datasets.formats.common import check_size
from datasets.formats.files import write_atomically
from datasets.models import Dataset, DatasetVersion, Language, ReleasedSentence
from datasets.reference_m2 import reference_m2, setting_int, store_reference_m2_file
from datasets.selectors import DatasetRow, count_rows
from datasets.services.exports import ExportFormat, ExportResult, export_dataset, export_filename
from datasets.services.imports import import_dataset
from scoring.gec.extract import init_m2_worker, m2_block_texts

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
) -> Any:
    """Store uploaded files and queue the import as a background job; returns the job.

    `uploads` are (file name, file object with .chunks() or .read()). Oversize files are
    refused here, before anything is stored.
    """
    if not uploads:
        raise ServiceError("choose at least one file", field="files")
    for filename, upload in uploads:
        size = getattr(upload, "size", None)
        if size is not None:
            check_size(filename, int(size))
    job = start_job(
        kind=JOB_KIND_IMPORT,
        user=user,
        params={
            "name": name,
            "format": fmt,
            "source_name": source_name,
            "split": split,
            "language": language,
            "files": [],
        },
    )
    folder = Path(settings.MEDIA_ROOT) / "imports" / str(job.pk)
    folder.mkdir(parents=True, exist_ok=True)
    stored = []
    for index, (filename, upload) in enumerate(uploads):
        safe = Path(filename).name or f"file{index}"
        target = folder / f"{index:02d}-{safe}"
        with open(target, "wb") as out:
            if hasattr(upload, "chunks"):
                for piece in upload.chunks():
                    out.write(piece)
            else:
                out.write(upload.read())
        stored.append({"path": str(target), "name": safe})
    job.params = {**job.params, "files": stored}
    job.save(update_fields=["params"])
    job_id = job.pk

    def send() -> None:
        from datasets.tasks import import_dataset_task

        import_dataset_task.delay(job_id)

    transaction.on_commit(send)
    return job


def run_import_job(job_id: int) -> dict[str, Any] | None:
    """The body of the import task: idempotent (a finished job is left alone; a failed
    import wrote nothing, so running it again is safe)."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    params = job.params
    mark_running(job_id, message="checking the file")
    try:
        files = [
            ImportFile(name=f["name"], data=Path(f["path"]).read_bytes()) for f in params["files"]
        ]
        result = import_dataset(
            name=params["name"],
            fmt=params["format"],
            files=files,
            source_name=params.get("source_name", ""),
            split=params.get("split", ""),
            language=params.get("language", Language.CHINESE),
            user=job.created_by,
            job_id=job_id,
        )
    except (ServiceError, JobCancelled) as exc:
        fail_job(
            job_id,
            message=getattr(exc, "message", str(exc)),
            result={"field": getattr(exc, "field", None)},
        )
        _remove_uploads(params)
        return None
    except OSError as exc:
        fail_job(job_id, message=f"stored upload unreadable: {exc}")
        return None
    finish_job(
        job_id,
        result=result.as_dict(),
        message=f"imported {result.sentences} sentences, {result.references} references",
    )
    _remove_uploads(params)
    return result.as_dict()


def _remove_uploads(params: dict[str, Any]) -> None:
    for f in params.get("files", []):
        Path(f["path"]).unlink(missing_ok=True)


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
    from django.db import transaction

    try:
        ExportFormat(fmt)
    except ValueError:
        raise ServiceError(f"unknown export format {fmt!r}", field="format") from None
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
    job_id = job.pk

    def send() -> None:
        from datasets.tasks import export_dataset_task

        export_dataset_task.delay(job_id)

    transaction.on_commit(send)
    return job


def export_path(job: Any) -> Path:
    return Path(settings.MEDIA_ROOT) / "exports" / str(job.pk) / job.params["filename"]


def run_export_job(job_id: int) -> dict[str, Any] | None:
    """The body of the export task. Idempotent: a re-run rewrites the same file."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    params = job.params
    mark_running(job_id)
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


def tasks_run_in_process() -> bool:
    """True when Celery runs tasks eagerly (the quick start): nothing to fan out to."""
    from celery import current_app

    return bool(current_app.conf.task_always_eager)


def fanout_part_size(version: DatasetVersion | None, fmt: str) -> int:
    """Part size for a fanned-out M2 export, or 0 for a single task."""
    if fmt != ExportFormat.M2 or version is None or tasks_run_in_process():
        return 0
    part = setting_int("GEC_EXPORT_PART_SENTENCES", 5000)
    if part <= 0 or version.counts.get("sentences", 0) <= part:
        return 0
    return part


def _start_fanout(job: Any) -> dict[str, Any] | None:
    from celery import chord

    from datasets.tasks import export_m2_assemble_task, export_m2_failed_task, export_m2_part_task

    version = DatasetVersion.objects.filter(pk=job.params.get("version_id")).first()
    if version is None:
        fail_job(job.pk, message="the release was deleted")
        return None
    directory = resources_dir_setting()
    total = count_rows(dataset=version.dataset, version=version)
    part = int(job.params["fanout_part"])
    mark_running(job.pk, total=total, message=f"extracting in {-(-total // part)} parts")
    header = [
        export_m2_part_task.s(job.pk, version.pk, first, first + part, directory)
        for first in range(0, total, part)
    ]
    callback = export_m2_assemble_task.s(job.pk, directory).on_error(
        export_m2_failed_task.s(job.pk)
    )
    chord(header)(callback)
    return None


def export_m2_part(
    *, job_id: int, version_id: int, first: int, last: int, resources_dir: str | None
) -> str:
    """M2 text of released positions [first, last): pure, so a retried part is harmless."""
    from django.db.models import F

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
    *, parts: Sequence[str], job_id: int, resources_dir: str | None
) -> dict[str, Any] | None:
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["version_id"])
    out = export_path(job)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, parts)
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
    log_action(version, job.created_by, "dataset.export", {**data, "parts": len(parts)})
    finish_job(job_id, result=data, message=f"exported {result.label} in {len(parts)} parts")
    return data


def queue_reference_extraction(version_id: int) -> None:
    """The one trigger of a new release's reference-M2 extraction. With real workers it runs
    right away in the background (stored per resources signature), so the first M2 export
    and the first system score of the release do not wait for it. In the quick start tasks
    run in-process, where this would make every release as slow as an M2 export: skipped
    (the first export or score extracts instead)."""
    if tasks_run_in_process():
        return

    def send() -> None:
        from datasets.tasks import prepare_release_references_task

        prepare_release_references_task.delay(version_id)

    transaction.on_commit(send)


def prepare_release_references(version_id: int) -> int:
    """Extract and store the reference M2 of a release (idempotent); returns its sentences."""
    version = DatasetVersion.objects.select_related("dataset").filter(pk=version_id).first()
    if version is None:
        return 0
    reference_m2(version)
    return int(version.counts.get("sentences", 0))
