"""Export a release (or the live dataset) as M2, MuCGEC, JSONL or parallel files.

One service, `export_dataset`, serves the page (through a background job), the API and the
`export_dataset` command. It streams: rows are read from the database in chunks and
written to a temporary file that is renamed into place only when everything was written,
so a failed or cancelled export never leaves a half file behind. The formats themselves
live in `datasets/formats/`; the M2 of a release comes from `datasets/reference_m2.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import report_progress
from datasets.extraction import extraction_resources, resources_dir_setting
from datasets.formats.files import write_atomically
from datasets.formats.jsonl import jsonl_lines
from datasets.formats.markers import rows_as_written
from datasets.formats.mucgec import mucgec_lines
from datasets.formats.parallel import write_parallel
from datasets.models import Dataset, DatasetVersion, Language
from datasets.reference_m2 import (
    ENGLISH_SIGNATURE,
    cached_reference_m2,
    english_m2_chunks,
    export_workers,
    known_blocks,
    m2_chunks,
    store_reference_m2,
)
from datasets.selectors import DatasetRow, count_rows, export_rows

PROGRESS_EVERY = 2000


class ExportFormat(StrEnum):
    M2 = "m2"
    MUCGEC = "mucgec"
    JSONL = "jsonl"
    PARALLEL = "parallel"


FILE_SUFFIX = {
    ExportFormat.M2: ".m2",
    ExportFormat.MUCGEC: ".txt",
    ExportFormat.JSONL: ".jsonl",
    ExportFormat.PARALLEL: ".zip",
}


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
        return {
            "path": str(self.path),
            "format": self.format,
            "sentences": self.sentences,
            "references": self.references,
            "label": self.label,
            "files": self.files,
            "resources": self.resources,
        }


def export_label(dataset: Dataset, version: DatasetVersion | None) -> str:
    return version.label if version is not None else f"{dataset.name} (live)"


def export_filename(dataset: Dataset, version: DatasetVersion | None, fmt: str) -> str:
    stem = f"{dataset.name}-v{version.number}" if version is not None else f"{dataset.name}-live"
    return stem + FILE_SUFFIX[ExportFormat(fmt)]


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
    rows: Sequence[DatasetRow] | None = None,
) -> ExportResult:
    """Write `dataset` (release `version`, else the live golden references) to `out`.
    `rows`: that release's rows already read (publishing writes every format from one read)."""
    format_ = _check_request(dataset, fmt, out, version)
    out = Path(out)
    total = len(rows) if rows is not None else count_rows(dataset=dataset, version=version)
    report_progress(job_id, 0, total=total, message=f"exporting {export_label(dataset, version)}")
    # The markers as the dataset's language writes them (English: the source, never 没有错误).
    counted = _Counter(
        rows_as_written(
            rows if rows is not None else export_rows(dataset=dataset, version=version),
            dataset.language,
        )
    )

    def progress(done: int) -> None:
        report_progress(job_id, done, total=total)

    signature = ""
    cached = False
    if format_ == ExportFormat.PARALLEL:
        files = write_parallel(counted, out, progress)
    else:
        if format_ == ExportFormat.M2:
            signature, chunks, cached = _m2_chunks(
                dataset, version, counted, progress, resources_dir=resources_dir, workers=workers
            )
        elif format_ == ExportFormat.MUCGEC:
            chunks = _with_progress(mucgec_lines(counted), counted, progress)
        else:
            chunks = _with_progress(
                jsonl_lines(counted, include_annotations=include_annotations), counted, progress
            )
        write_atomically(out, chunks)
        files = [out.name]
        if format_ == ExportFormat.M2 and version is not None and not cached:
            store_reference_m2(version, signature, out.read_text(encoding="utf-8"))
    result = ExportResult(
        path=out,
        format=format_.value,
        sentences=counted.sentences,
        references=counted.references,
        label=export_label(dataset, version),
        files=files,
        resources=signature,
    )
    details: dict[str, Any] = {"include_annotations": include_annotations and not cached}
    if cached:
        details["cached"] = True
    log_action(
        version if version is not None else dataset,
        user,
        "dataset.export",
        {**result.as_dict(), **details},
    )
    return result


def _check_request(
    dataset: Dataset, fmt: str, out: str | Path, version: DatasetVersion | None
) -> ExportFormat:
    try:
        format_ = ExportFormat(fmt)
    except ValueError:
        choices = ", ".join(f.value for f in ExportFormat)
        raise ServiceError(
            f"unknown export format {fmt!r}; use one of {choices}", field="format"
        ) from None
    if version is not None and version.dataset_id != dataset.pk:
        raise ServiceError(f"{version.label} is not a release of {dataset.name!r}", field="release")
    if not Path(out).parent.exists():
        raise ServiceError(f"output folder {Path(out).parent} does not exist", field="out")
    return format_


def _m2_chunks(
    dataset: Dataset,
    version: DatasetVersion | None,
    counted: _Counter,
    progress: Any,
    *,
    resources_dir: str | None,
    workers: int | None,
) -> tuple[str, Iterable[str], bool]:
    """(signature, M2 text chunks, came from the store). A release's M2 extracted before (by
    an earlier export or for scoring) is reused; otherwise rows are extracted as they stream."""
    english = dataset.language == Language.ENGLISH
    directory = resources_dir_setting(resources_dir)
    signature = ENGLISH_SIGNATURE if english else extraction_resources(directory).signature
    cached = cached_reference_m2(version, signature)
    if cached is not None:
        # The counts still go into the result and the audit log: a release stores them when
        # it is frozen (reading 100k rows back only to count them took 10 s).
        frozen = version.counts if version is not None else {}
        if isinstance(frozen.get("sentences"), int) and isinstance(frozen.get("references"), int):
            counted.sentences, counted.references = frozen["sentences"], frozen["references"]
        else:
            for _row in counted:
                pass
        progress(counted.sentences)
        return signature, [cached], True
    if english:
        return signature, english_m2_chunks(counted, on_progress=progress), False
    chunks = m2_chunks(
        counted,
        resources_dir=directory,
        workers=workers if workers is not None else export_workers(),
        on_progress=progress,
        known=known_blocks(dataset, signature, exclude=version),
    )
    return signature, chunks, False


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
