"""Export a release (or the live dataset) as M2, MuCGEC, JSONL or parallel files.

One service, `export_dataset`, serves the page (through a Celery task), the API and the
`export_dataset` command. It streams: rows are read from the database in chunks and
written to a temporary file that is renamed into place only when everything was written,
so a failed or cancelled export never leaves a half file behind.

* ``m2``: ChERRANT char-level M2 written by the platform's one extractor
  (`scoring.gec.annotate_sentence`, annotator id = reference index), byte-compatible with
  ChERRANT's ``parallel_to_m2.py -g char`` when ChERRANT's resources are configured
  (setting GEC_CHERRANT_RESOURCES). Extraction is the slow part, so it runs in a pool of
  worker processes (setting GEC_EXPORT_WORKERS, default: all cores).
* ``mucgec``: ``id \\t source \\t ref1 \\t ref2 ...``.
* ``jsonl``: ``{"id", "source", "references", "source_name", "split"}`` a line; with
  ``include_annotations`` also every annotator's raw submissions (all revisions) and the
  reviewers' verdicts when the review app records them.
* ``parallel``: a directory (or a ``.zip`` when the output name ends in ``.zip``) with
  ``source.txt``, ``ref1.txt`` ... ``refN.txt`` (N = most references of any sentence; a
  sentence with fewer references has an empty line in the later files) and ``ids.txt``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
import zipfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import islice
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings

from annotate.dataset_selectors import DatasetRow, count_rows, export_rows
from annotate.models import Dataset, DatasetVersion, ReleasedSentence
from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import report_progress
from scoring.gec.extract import init_m2_worker, m2_block_texts

# Sentences per unit of work handed to an extraction process.
M2_BATCH = 200
PROGRESS_EVERY = 2000


class ExportFormat(StrEnum):
    M2 = "m2"
    MUCGEC = "mucgec"
    JSONL = "jsonl"
    PARALLEL = "parallel"


FILE_SUFFIX = {ExportFormat.M2: ".m2", ExportFormat.MUCGEC: ".txt", ExportFormat.JSONL: ".jsonl",
               ExportFormat.PARALLEL: ".zip"}


@dataclass
class ExportResult:
    path: Path
    format: str
    sentences: int
    references: int
    label: str  # "name@v3" for a release, "name (live)" for the live dataset
    files: list[str] = field(default_factory=list)
    resources: str = ""  # M2 only: which extraction resources were used

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "format": self.format, "sentences": self.sentences,
                "references": self.references, "label": self.label, "files": self.files,
                "resources": self.resources}


def export_label(dataset: Dataset, version: DatasetVersion | None) -> str:
    return version.label if version is not None else f"{dataset.name} (live)"


def export_filename(dataset: Dataset, version: DatasetVersion | None, fmt: str) -> str:
    stem = f"{dataset.name}-v{version.number}" if version is not None else f"{dataset.name}-live"
    return stem + FILE_SUFFIX[ExportFormat(fmt)]


# --- formats: rows -> lines ---------------------------------------------------------------


def mucgec_lines(rows: Iterable[DatasetRow]) -> Iterator[str]:
    for row in rows:
        yield "\t".join((row.external_id, row.text, *row.references)) + "\n"


def jsonl_lines(rows: Iterable[DatasetRow], *, include_annotations: bool = False) -> Iterator[str]:
    for chunk in _chunks(rows, 1000):
        extra = _annotation_data([r.sentence_id for r in chunk if r.sentence_id]) if include_annotations else {}
        for row in chunk:
            obj: dict[str, Any] = {"id": row.external_id, "source": row.text,
                                   "references": list(row.references),
                                   "source_name": row.source_name, "split": row.split}
            if include_annotations:
                obj.update(extra.get(row.sentence_id or -1, {"submissions": [], "verdicts": []}))
            yield json.dumps(obj, ensure_ascii=False) + "\n"


def _annotation_data(sentence_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Raw submissions (every revision, every correction box) and review verdicts."""
    from annotate.models import Correction, Submission

    data: dict[int, dict[str, Any]] = {sid: {"submissions": [], "verdicts": []} for sid in sentence_ids}
    texts: dict[int, list[str]] = {}
    for submission_id, text in Correction.objects.filter(
        submission__assignment__sentence_id__in=sentence_ids
    ).order_by("submission_id", "position").values_list("submission_id", "text"):
        texts.setdefault(submission_id, []).append(text)
    for sub in Submission.objects.filter(assignment__sentence_id__in=sentence_ids).order_by(
        "assignment__sentence_id", "assignment_id", "revision"
    ).values("id", "assignment__sentence_id", "assignment__annotator__username", "revision",
             "tag", "created_at", "time_spent_seconds"):
        data[sub["assignment__sentence_id"]]["submissions"].append({
            "annotator": sub["assignment__annotator__username"], "revision": sub["revision"],
            "tag": sub["tag"], "corrections": texts.get(sub["id"], []),
            "created_at": sub["created_at"].isoformat() if sub["created_at"] else None,
            "time_spent_seconds": sub["time_spent_seconds"],
        })
    for sentence_id, verdict in _verdicts(sentence_ids):
        data[sentence_id]["verdicts"].append(verdict)
    return data


def _verdicts(sentence_ids: Sequence[int]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The reviewer's verdict on each merged candidate, with the annotators who proposed it."""
    from review.models import Verdict

    verdicts = (
        Verdict.objects.filter(task__sentence_id__in=sentence_ids)
        .select_related("task__reviewer")
        .prefetch_related("submissions__assignment__annotator")
        .order_by("task__sentence_id", "position")
    )
    for verdict in verdicts:
        yield verdict.task.sentence_id, {
            "position": verdict.position,
            "kind": verdict.kind,
            "text": verdict.text,
            "is_correct": verdict.is_correct,
            "edited_text": verdict.edited_text,
            "reviewer": verdict.task.reviewer.username,
            "review_submitted_at": verdict.task.submitted_at.isoformat() if verdict.task.submitted_at else None,
            "proposed_by": sorted({s.assignment.annotator.username for s in verdict.submissions.all()}),
        }


def _chunks(rows: Iterable[DatasetRow], size: int) -> Iterator[list[DatasetRow]]:
    iterator = iter(rows)
    while chunk := list(islice(iterator, size)):
        yield chunk


# --- M2 with worker processes ----------------------------------------------------------------

BlockKey = tuple[str, tuple[str, ...]]


def _merge(chunk: list[DatasetRow], known: dict[BlockKey, str], computed: list[str]) -> str:
    fresh = iter(computed)
    return "".join(known.get((r.text, r.references)) or next(fresh) for r in chunk)


def _setting_int(name: str, default: int) -> int:
    """A Django setting if the settings module defines it, else the environment variable."""
    from config.env import env_int

    value = getattr(settings, name, None)
    return int(value) if value is not None else env_int(name, default)


def export_workers() -> int:
    configured = _setting_int("GEC_EXPORT_WORKERS", 0)
    workers = configured or os.cpu_count() or 1
    # Celery's prefork children are daemonic and may not start processes of their own.
    if multiprocessing.current_process().daemon:
        return 1
    return max(1, workers)


def resources_dir_setting(override: str | None = None) -> str | None:
    value = override if override is not None else getattr(settings, "GEC_CHERRANT_RESOURCES", "")
    return value or None


def m2_chunks(rows: Iterable[DatasetRow], *, resources_dir: str | None, workers: int,
              on_progress: Any = None, known: dict[BlockKey, str] | None = None) -> Iterator[str]:
    """M2 text in row order, `M2_BATCH` sentences at a time.

    `known` maps (source, references) to an already extracted block (from an earlier
    release of the same resources): those sentences are not extracted again.
    """
    known = known or {}

    def todo(chunk: list[DatasetRow]) -> list[tuple[str, str, tuple[str, ...]]]:
        return [(r.external_id, r.text, r.references) for r in chunk
                if (r.text, r.references) not in known]

    done = 0
    if workers <= 1:
        init_m2_worker(resources_dir)
        for chunk in _chunks(rows, M2_BATCH):
            yield _merge(chunk, known, m2_block_texts(todo(chunk)))
            done += len(chunk)
            if on_progress:
                on_progress(done)
        return
    from scoring.gec.processes import worker_context

    context = worker_context()  # a fork server: forking this process could hang (kombu)
    # Rows are read from the database HERE, in the calling thread (Django connections are
    # per thread), and at most a few batches per worker are in flight, so memory stays flat.
    window: deque[tuple[list[DatasetRow], Any]] = deque()
    with context.Pool(workers, initializer=init_m2_worker, initargs=(resources_dir,)) as pool:

        def drain() -> str:
            nonlocal done
            chunk, pending = window.popleft()
            text = _merge(chunk, known, pending.get())
            done += len(chunk)
            if on_progress:
                on_progress(done)
            return text

        for chunk in _chunks(rows, M2_BATCH):
            window.append((chunk, pool.apply_async(m2_block_texts, (todo(chunk),))))
            if len(window) >= 2 * workers:
                yield drain()
        while window:
            yield drain()


def known_blocks(dataset: Dataset, signature: str, *, exclude: DatasetVersion | None = None) -> dict[BlockKey, str]:
    """Blocks of the newest earlier release whose reference M2 is stored for `signature`,
    keyed by (source, references): a new release mostly repeats the previous one."""
    model = _reference_cache_model()
    if model is None:
        return {}
    caches = model.objects.filter(version__dataset=dataset, resources_key=signature)
    if exclude is not None:
        caches = caches.exclude(version=exclude)
    cache = caches.order_by("-version__number").select_related("version").first()
    if cache is None:
        return {}
    blocks = [b + "\n\n" for b in cache.m2_text.split("\n\n") if b]
    rows = list(export_rows(dataset=dataset, version=cache.version))
    if len(rows) != len(blocks):
        return {}  # not a cache we can line up with its rows: extract everything
    return {(r.text, r.references): block for r, block in zip(rows, blocks, strict=True)}


# --- the service --------------------------------------------------------------------------------


def export_dataset(
    *,
    dataset: Dataset,
    fmt: str,
    out: str | Path,
    version: DatasetVersion | None = None,
    user: Any = None,
    job_id: int | None = None,
    include_annotations: bool = False,
    resources_dir: str | None = None,
    workers: int | None = None,
) -> ExportResult:
    """Write `dataset` (release `version`, else the live golden references) to `out`."""
    try:
        format_ = ExportFormat(fmt)
    except ValueError:
        choices = ", ".join(f.value for f in ExportFormat)
        raise ServiceError(f"unknown export format {fmt!r}; use one of {choices}", field="format") from None
    if version is not None and version.dataset_id != dataset.pk:
        raise ServiceError(f"{version.label} is not a release of {dataset.name!r}", field="release")
    out = Path(out)
    if not out.parent.exists():
        raise ServiceError(f"output folder {out.parent} does not exist", field="out")
    total = count_rows(dataset=dataset, version=version)
    report_progress(job_id, 0, total=total, message=f"exporting {export_label(dataset, version)}")
    counted = _Counter(export_rows(dataset=dataset, version=version))

    def progress(done: int) -> None:
        report_progress(job_id, done, total=total)

    resources_signature = ""
    if format_ == ExportFormat.PARALLEL:
        files = _write_parallel(counted, out, progress)
    else:
        if format_ == ExportFormat.M2:
            from scoring.gec import load_resources

            directory = resources_dir_setting(resources_dir)
            try:
                resources_signature = load_resources(directory).signature
            except ValueError as exc:
                raise ServiceError(f"M2 export: {exc}", field="resources") from None
            cached = _cached_reference_m2(version, resources_signature)
            if cached is not None:
                # Extracted before (by an earlier export or by the scoring app): reuse it.
                counted = _Counter(export_rows(dataset=dataset, version=version))
                for _row in counted:
                    pass
                _write_atomically(out, [cached])
                progress(total)
                result = ExportResult(path=out, format=format_.value, sentences=counted.sentences,
                                      references=counted.references,
                                      label=export_label(dataset, version), files=[out.name],
                                      resources=resources_signature)
                log_action(version, user, "dataset.export",
                           {**result.as_dict(), "include_annotations": False, "cached": True})
                return result
            chunks: Iterable[str] = m2_chunks(
                counted, resources_dir=directory,
                workers=workers if workers is not None else export_workers(),
                on_progress=progress,
                known=known_blocks(dataset, resources_signature, exclude=version),
            )
        elif format_ == ExportFormat.MUCGEC:
            chunks = _with_progress(mucgec_lines(counted), counted, progress)
        else:
            chunks = _with_progress(jsonl_lines(counted, include_annotations=include_annotations),
                                    counted, progress)
        _write_atomically(out, chunks)
        files = [out.name]
        if format_ == ExportFormat.M2 and version is not None:
            _store_reference_m2(version, resources_signature, out)
    result = ExportResult(path=out, format=format_.value, sentences=counted.sentences,
                          references=counted.references, label=export_label(dataset, version),
                          files=files, resources=resources_signature)
    log_action(version if version is not None else dataset, user, "dataset.export",
               {**result.as_dict(), "include_annotations": include_annotations})
    return result


def _reference_cache_model() -> Any:
    """The scoring app's store of a release's reference M2 (per resources signature): the
    export and the scorer run the same extraction, so each reuses what the other did."""
    try:
        return apps.get_model("scoring", "ReferenceM2Cache")
    except LookupError:
        return None


def _cached_reference_m2(version: DatasetVersion | None, signature: str) -> str | None:
    model = _reference_cache_model()
    if version is None or model is None:
        return None
    return model.objects.filter(version=version, resources_key=signature).values_list(
        "m2_text", flat=True).first()


def _store_reference_m2(version: DatasetVersion, signature: str, path: Path) -> None:
    model = _reference_cache_model()
    if model is None:
        return
    model.objects.get_or_create(version=version, resources_key=signature,
                                defaults={"m2_text": path.read_text(encoding="utf-8")})


def ensure_reference_m2(version: DatasetVersion, *, resources_dir: str | None = None,
                        workers: int | None = None) -> str:
    """The stored reference M2 of a release (extracted and stored now if missing); returns
    the resources signature it is stored under."""
    from scoring.gec import load_resources

    directory = resources_dir_setting(resources_dir)
    signature = load_resources(directory).signature
    model = _reference_cache_model()
    if model is None or _cached_reference_m2(version, signature) is not None:
        return signature
    text = "".join(m2_chunks(
        export_rows(dataset=version.dataset, version=version), resources_dir=directory,
        workers=workers if workers is not None else export_workers(),
        known=known_blocks(version.dataset, signature, exclude=version),
    ))
    model.objects.get_or_create(version=version, resources_key=signature, defaults={"m2_text": text})
    return signature


class _Counter:
    """Passes rows through and counts them (the totals go into the result and audit log)."""

    def __init__(self, rows: Iterable[DatasetRow]) -> None:
        self._rows = rows
        self.sentences = 0
        self.references = 0

    def __iter__(self) -> Iterator[DatasetRow]:
        for row in self._rows:
            self.sentences += 1
            self.references += len(row.references)
            yield row


def _with_progress(lines: Iterable[str], counter: _Counter, progress: Any) -> Iterator[str]:
    last = 0
    for line in lines:
        yield line
        if counter.sentences - last >= PROGRESS_EVERY:
            last = counter.sentences
            progress(last)
    progress(counter.sentences)


def _write_atomically(out: Path, chunks: Iterable[str]) -> None:
    handle, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as tmp:
            for chunk in chunks:
                tmp.write(chunk)
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _write_parallel(rows: Iterable[DatasetRow], out: Path, progress: Any) -> list[str]:
    """Sources and references in separate files. The number of reference files is only known
    at the end, so each reference column is spooled to its own temporary file."""
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        handles: list[Any] = []
        source = open(work / "source.txt", "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        ids = open(work / "ids.txt", "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        count = 0
        try:
            for row in rows:
                while len(handles) < len(row.references):
                    handle = open(work / f"ref{len(handles) + 1}.txt", "w", encoding="utf-8", newline="\n")  # noqa: SIM115
                    handle.write("\n" * count)  # earlier sentences had no reference here
                    handles.append(handle)
                source.write(row.text + "\n")
                ids.write(row.external_id + "\n")
                for index, handle in enumerate(handles):
                    handle.write((row.references[index] if index < len(row.references) else "") + "\n")
                count += 1
                if count % PROGRESS_EVERY == 0:
                    progress(count)
        finally:
            for handle in (source, ids, *handles):
                handle.close()
        progress(count)
        names = ["source.txt", *[f"ref{i}.txt" for i in range(1, len(handles) + 1)], "ids.txt"]
        if out.suffix == ".zip":
            tmp_zip = work / "export.zip"
            with zipfile.ZipFile(tmp_zip, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in names:
                    archive.write(work / name, arcname=name)
            os.replace(tmp_zip, out)
        else:
            if out.exists() and not out.is_dir():
                raise ServiceError(f"{out} exists and is not a folder", field="out")
            out.mkdir(exist_ok=True)
            for name in names:
                os.replace(work / name, out / name)
        return names
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- background exports (page and API) ---------------------------------------------------------

JOB_KIND_EXPORT = "datasets.export"


def request_export(
    *, user: Any, dataset: Dataset, fmt: str, version: DatasetVersion | None = None,
    include_annotations: bool = False,
) -> Any:
    """Queue an export as a background job; the file lands under MEDIA_ROOT/exports/<job>/."""
    from django.db import transaction

    from core.jobs import start_job

    try:
        ExportFormat(fmt)
    except ValueError:
        raise ServiceError(f"unknown export format {fmt!r}", field="format") from None
    job = start_job(kind=JOB_KIND_EXPORT, user=user, params={
        "dataset_id": dataset.pk, "version_id": version.pk if version is not None else None,
        "format": fmt, "include_annotations": include_annotations,
        "filename": export_filename(dataset, version, fmt),
        # Decided here (where the settings of the request are) and carried to the workers.
        "fanout_part": fanout_part_size(version, fmt),
    })
    job_id = job.pk

    def send() -> None:
        from annotate.tasks import export_dataset_task

        export_dataset_task.delay(job_id)

    transaction.on_commit(send)
    return job


def export_path(job: Any) -> Path:
    return Path(settings.MEDIA_ROOT) / "exports" / str(job.pk) / job.params["filename"]


def run_export_job(job_id: int) -> dict[str, Any] | None:
    """The body of the export task. Idempotent: a re-run rewrites the same file."""
    from core.jobs import JobCancelled, fail_job, finish_job, mark_running
    from core.models import BackgroundJob

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
        version = (DatasetVersion.objects.filter(pk=params["version_id"]).first()
                   if params.get("version_id") else None)
        out = export_path(job)
        out.parent.mkdir(parents=True, exist_ok=True)
        result = export_dataset(dataset=dataset, version=version, fmt=params["format"], out=out,
                                user=job.created_by, job_id=job_id,
                                include_annotations=params.get("include_annotations", False))
    except (ServiceError, JobCancelled) as exc:
        fail_job(job_id, message=getattr(exc, "message", str(exc)))
        return None
    data = result.as_dict()
    finish_job(job_id, result=data, message=f"exported {result.label}")
    return data


# --- M2 of a large release across Celery workers ----------------------------------------------
#
# A worker process extracts with its own process pool, but one machine's cores are the limit.
# With a broker, a large release is cut into parts of `GEC_EXPORT_PART_SENTENCES` sentences,
# one task each (any worker on any machine takes them), and a chord callback joins the parts
# in order, writes the file, stores the extraction for the scorer and finishes the job.


def tasks_run_in_process() -> bool:
    """True when Celery runs tasks eagerly (the quick start): nothing to fan out to."""
    from celery import current_app

    return bool(current_app.conf.task_always_eager)


def fanout_part_size(version: DatasetVersion | None, fmt: str) -> int:
    """Part size for a fanned-out M2 export, or 0 for a single task."""
    if fmt != ExportFormat.M2 or version is None or tasks_run_in_process():
        return 0
    part = _setting_int("GEC_EXPORT_PART_SENTENCES", 5000)
    if part <= 0 or version.counts.get("sentences", 0) <= part:
        return 0
    return part


def _start_fanout(job: Any) -> dict[str, Any] | None:
    from celery import chord

    from annotate.tasks import export_m2_assemble_task, export_m2_failed_task, export_m2_part_task
    from core.jobs import fail_job, mark_running

    version = DatasetVersion.objects.filter(pk=job.params.get("version_id")).first()
    if version is None:
        fail_job(job.pk, message="the release was deleted")
        return None
    directory = resources_dir_setting()
    total = count_rows(dataset=version.dataset, version=version)
    part = int(job.params["fanout_part"])
    mark_running(job.pk, total=total, message=f"extracting in {-(-total // part)} parts")
    header = [export_m2_part_task.s(job.pk, version.pk, first, first + part, directory)
              for first in range(0, total, part)]
    callback = export_m2_assemble_task.s(job.pk, directory).on_error(export_m2_failed_task.s(job.pk))
    chord(header)(callback)
    return None


def export_m2_part(*, job_id: int, version_id: int, first: int, last: int,
                   resources_dir: str | None) -> str:
    """M2 text of released positions [first, last): pure, so a retried part is harmless."""
    from django.db.models import F

    from core.models import BackgroundJob, JobStatus

    rows = [DatasetRow(external_id, text, tuple(references), "", "", None)
            for external_id, text, references in ReleasedSentence.objects.filter(
                version_id=version_id, position__gte=first, position__lt=last,
            ).order_by("position").values_list("external_id", "text", "references")]
    init_m2_worker(resources_dir)
    text = "".join(m2_block_texts([(r.external_id, r.text, r.references) for r in rows]))
    BackgroundJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(done=F("done") + len(rows))
    return text


def assemble_m2_parts(*, parts: Sequence[str], job_id: int, resources_dir: str | None) -> dict[str, Any] | None:
    from core.jobs import finish_job
    from core.models import BackgroundJob
    from scoring.gec import load_resources

    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["version_id"])
    out = export_path(job)
    out.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(out, parts)
    signature = load_resources(resources_dir).signature
    _store_reference_m2(version, signature, out)
    result = ExportResult(path=out, format=ExportFormat.M2.value,
                          sentences=version.counts.get("sentences", 0),
                          references=version.counts.get("references", 0),
                          label=version.label, files=[out.name], resources=signature)
    data = result.as_dict()
    log_action(version, job.created_by, "dataset.export", {**data, "parts": len(parts)})
    finish_job(job_id, result=data, message=f"exported {result.label} in {len(parts)} parts")
    return data
