"""Frozen releases of a dataset: the golden references at one moment, never changed after.

A release copies, for every selected sentence that has golden references, the text, ids,
source, split and the current references into ReleasedSentence rows. Nothing updates those
rows afterwards, so a score or an export that names `dataset@vN` can always be reproduced;
`checksum` (sha256 of the release's canonical MuCGEC text) lets anyone verify that.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import report_progress
from datasets.bulk import insert_rows
from datasets.jobs import queue_reference_extraction
from datasets.models import Dataset, DatasetVersion, ReleasedSentence, Split
from datasets.selectors import DatasetRow, export_rows

WRITE_CHUNK = 2000
RELEASE_COLUMNS = (
    "version_id",
    "sentence_id",
    "position",
    "external_id",
    "source_name",
    "split",
    "text",
    "judgement",
    "references",
    "reference_styles",
    "reference_annotators",
    "reference_entries",
    "reference_suggestion_sources",
)


def mucgec_line(row: DatasetRow) -> str:
    """The canonical text of one sentence: `id \\t source \\t ref1 ...` (MuCGEC format)."""
    return "\t".join((row.external_id, row.text, *row.references))


def checksum_rows(rows: Iterable[DatasetRow]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(mucgec_line(row).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def release_dataset(
    *,
    dataset: Dataset,
    user: Any = None,
    note: str = "",
    split: str = "",
    source_names: list[str] | None = None,
    job_id: int | None = None,
) -> DatasetVersion:
    """Freeze the current golden references of `dataset` (optionally one split / some
    sources) as the next version. Sentences without golden references are left out and
    counted in `counts["skipped_without_references"]`."""
    source_names = _checked_selection(dataset, split=split, source_names=source_names)
    with transaction.atomic():
        # Lock the dataset row: two releases at once would otherwise take the same number.
        Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
        number = (dataset.versions.aggregate(m=Max("number"))["m"] or 0) + 1
        version = DatasetVersion.objects.create(
            dataset=dataset,
            number=number,
            note=note,
            split=split,
            source_names=source_names,
            checksum="",
            counts={},
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        version.checksum, version.counts = _freeze_rows(version, job_id=job_id)
        version.save(update_fields=["checksum", "counts"])
        queue_reference_extraction(version.pk)
        log_action(
            version,
            user,
            "dataset.release",
            {
                "dataset": dataset.name,
                "number": number,
                "checksum": version.checksum,
                "counts": version.counts,
                "split": split,
                "source_names": source_names,
            },
        )
    return version


def _checked_selection(
    dataset: Dataset, *, split: str, source_names: list[str] | None
) -> list[str]:
    """The release's sources, sorted without repeats, once the split and each source exist."""
    if split not in [s.value for s in Split]:
        raise ServiceError(f"split {split!r} is not one of dev, test, train", field="split")
    source_names = sorted(set(source_names or []))
    if source_names:
        known = set(dataset.sources.filter(name__in=source_names).values_list("name", flat=True))
        missing = [name for name in source_names if name not in known]
        if missing:
            raise ServiceError(
                f"dataset {dataset.name!r} has no source {missing[0]!r}", field="source"
            )
    return source_names


def _freeze_rows(version: DatasetVersion, *, job_id: int | None) -> tuple[str, dict[str, Any]]:
    """Copy every selected sentence with golden references into the release, in chunks;
    the checksum of what was written and the release's counts."""
    dataset, split, source_names = version.dataset, version.split, version.source_names
    digest = hashlib.sha256()
    buffer: list[tuple[object, ...]] = []
    sentences = references = skipped = 0
    by_source: dict[str, int] = {}
    for row in export_rows(dataset=dataset, split=split, source_names=source_names):
        if not row.references:
            skipped += 1
            continue
        buffer.append(
            (
                version.pk,
                row.sentence_id,
                sentences,
                row.external_id,
                row.source_name,
                row.split,
                row.text,
                row.judgement,
                list(row.references),
                list(row.reference_styles),
                list(row.reference_annotators),
                list(row.reference_entries),
                list(row.reference_suggestion_sources),
            )
        )
        digest.update(mucgec_line(row).encode("utf-8") + b"\n")
        sentences += 1
        references += len(row.references)
        by_source[row.source_name] = by_source.get(row.source_name, 0) + 1
        if len(buffer) >= WRITE_CHUNK:
            insert_rows(ReleasedSentence, RELEASE_COLUMNS, buffer)
            buffer = []
            report_progress(job_id, sentences + skipped)
    insert_rows(ReleasedSentence, RELEASE_COLUMNS, buffer)
    if sentences == 0:
        raise ServiceError(
            f"dataset {dataset.name!r} has no sentence with golden references"
            + (f" in split {split!r}" if split else "")
            + (f" from {', '.join(source_names)}" if source_names else "")
            + "; nothing to release",
            field="dataset",
        )
    counts = {
        "sentences": sentences,
        "references": references,
        "skipped_without_references": skipped,
        "by_source": by_source,
    }
    return digest.hexdigest(), counts


def verify_release(version: DatasetVersion) -> bool:
    """True when the release's rows still hash to the checksum recorded at release time."""
    return checksum_rows(export_rows(dataset=version.dataset, version=version)) == version.checksum
