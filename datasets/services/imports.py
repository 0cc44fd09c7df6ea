"""Import sentences (and optionally their references) into a dataset, all or nothing.

One service, `import_dataset`, serves the page, the API, the `import_dataset` command and
the background job. It first reads and checks the whole input (every problem is reported
with the file, the 1-based line and the field; the readers are in `datasets/formats/`), then
writes everything in one transaction; on any error nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.jobs import report_progress, settle_job
from datasets.bulk import insert_rows
from datasets.formats import ImportFile, ParsedSentence, parse_files
from datasets.formats.common import format_error
from datasets.models import (
    Dataset,
    GoldenReference,
    Judgement,
    Language,
    ReferenceKind,
    ReferenceOrigin,
    ReferenceStyle,
    Sentence,
    SentenceStatus,
    Source,
    Split,
)

NO_ERROR_MARKER = "没有错误"


NOT_ANNOTATABLE_MARKER = "无法标注"


MAX_NAME_LENGTH = 100


# Rows written per INSERT: large enough to be fast on PostgreSQL, small enough for SQLite's
# limit on query parameters and for steady progress reports.
WRITE_CHUNK = 2000


# Path segments of the datasets pages (datasets/urls.py) a dataset may not be named.
RESERVED_NAMES = frozenset({"import", "api", "jobs", "exports"})


SENTENCE_COLUMNS = (
    "dataset_id",
    "source_id",
    "split",
    "external_id",
    "position",
    "text",
    "status",
    "judgement",
)


REFERENCE_COLUMNS = (
    "sentence_id",
    "revision",
    "position",
    "kind",
    "text",
    "origin",
    "style",
    "is_current",
    "created_by_id",
)


@dataclass
class ImportResult:
    dataset: Dataset
    created_dataset: bool
    sentences: int
    references: int
    sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset.name,
            "dataset_id": self.dataset.pk,
            "created_dataset": self.created_dataset,
            "sentences": self.sentences,
            "references": self.references,
            "sources": self.sources,
        }


def reference_kind(text: str) -> str:
    if text == NO_ERROR_MARKER:
        return ReferenceKind.ERROR_FREE
    if text == NOT_ANNOTATABLE_MARKER:
        return ReferenceKind.NOT_ANNOTATABLE
    return ReferenceKind.CORRECTION


def judgement_for(source: str, references: Sequence[str]) -> str:
    """The sentence-level verdict an imported reference set implies."""
    if not references:
        return Judgement.UNSET
    kinds = [reference_kind(r) for r in references]
    if any(
        k == ReferenceKind.CORRECTION and r != source
        for k, r in zip(kinds, references, strict=True)
    ):
        return Judgement.ANNOTATABLE
    if all(k == ReferenceKind.NOT_ANNOTATABLE for k in kinds):
        return Judgement.NOT_ANNOTATABLE
    return Judgement.ERROR_FREE


def _check_choice(
    value: str,
    choices: type[Split] | type[Language] | type[ReferenceStyle],
    field_name: str,
    where: str,
) -> str:
    allowed = [c.value for c in choices]
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed if a)
        raise ServiceError(
            f"{where}field {field_name}: {value!r} is not one of {shown}", field=field_name
        )
    return value


def import_dataset(
    *,
    name: str,
    fmt: str,
    files: Sequence[ImportFile],
    source_name: str = "",
    split: str = "",
    language: str = Language.CHINESE,
    reference_style: str = ReferenceStyle.UNSPECIFIED,
    user: Any = None,
    job_id: int | None = None,
) -> ImportResult:
    """Parse `files` as `fmt` and add the sentences (and references) to dataset `name`.

    The dataset is created when it does not exist; otherwise the sentences are appended
    after the existing ones and their ids must not clash. Raises ServiceError naming the
    file, line and field; nothing is written then. ``reference_style`` (minimal / fluency /
    "" unspecified) is stored on every imported reference.
    """
    _check_request(name=name, split=split, language=language, source_name=source_name)
    _check_choice(reference_style, ReferenceStyle, "reference_style", "")
    rows = parse_files(files, fmt=fmt, language=language)
    file_name = files[0].name
    _check_rows(rows, file_name)
    report_progress(job_id, 0, total=len(rows), message="checked; writing")
    try:
        with transaction.atomic():
            dataset, created = _locked_dataset(name=name, language=language, user=user)
            start = _number_rows(dataset, rows, created=created, file_name=file_name)
            sources = _sources_for(dataset, rows, default=source_name)
            n_references = _write_rows(
                dataset,
                rows,
                start=start,
                sources=sources,
                default_source=source_name,
                split=split,
                style=reference_style,
                user=user,
                job_id=job_id,
            )
            result = ImportResult(
                dataset=dataset,
                created_dataset=created,
                sentences=len(rows),
                references=n_references,
                sources=sorted(sources),
            )
            log_action(
                dataset,
                user,
                "dataset.import",
                {
                    "format": str(fmt),
                    "files": [f.name for f in files],
                    "sentences": len(rows),
                    "references": n_references,
                    "source": source_name,
                    "split": split,
                    "reference_style": reference_style,
                },
            )
            # The job turns "done" in this transaction, its row locked and its claim checked:
            # a re-delivered or retried import can never add these rows a second time.
            settle_job(
                job_id,
                result=result.as_dict(),
                message=f"imported {len(rows)} sentences, {n_references} references",
            )
    except IntegrityError as exc:
        # Only a concurrent import of the same dataset gets here (every check above ran
        # first): the other one won; nothing of this one was written.
        raise Conflict(
            f"dataset {name!r} was changed by another import at the same time; "
            "nothing was imported, run the import again",
            field="name",
        ) from exc
    return result


def _check_request(*, name: str, split: str, language: str, source_name: str) -> None:
    if not name or len(name) > MAX_NAME_LENGTH or not _is_slug(name):
        raise ServiceError(
            f"dataset name {name!r} must be 1-100 letters, digits, '-' or '_'", field="name"
        )
    if name in RESERVED_NAMES:
        raise ServiceError(
            f"dataset name {name!r} is reserved by the datasets pages; choose another", field="name"
        )
    _check_choice(split, Split, "split", "")
    _check_choice(language, Language, "language", "")
    if len(source_name) > MAX_NAME_LENGTH:
        raise ServiceError("source name longer than 100 characters", field="source")


def _check_rows(rows: Sequence[ParsedSentence], file_name: str) -> None:
    for row in rows:
        if row.split is not None:
            _check_choice(row.split, Split, "split", f"{file_name}, line {row.line}, ")
        if row.source_name is not None and len(row.source_name) > MAX_NAME_LENGTH:
            raise format_error(file_name, row.line, "source_name", "longer than 100 characters")


def _locked_dataset(*, name: str, language: str, user: Any) -> tuple[Dataset, bool]:
    """The dataset, locked for this import (created when new)."""
    dataset = Dataset.objects.select_for_update().filter(name=name).first()
    if dataset is None:
        return Dataset.objects.create(name=name, language=language, created_by=_actor(user)), True
    if dataset.language != language:
        raise ServiceError(
            f"dataset {name!r} is {dataset.language}, the import says {language}", field="language"
        )
    return dataset, False


def _number_rows(
    dataset: Dataset, rows: Sequence[ParsedSentence], *, created: bool, file_name: str
) -> int:
    """Give rows without ids the next numbers of the dataset and refuse ids that clash with
    the dataset or with each other; returns the position of the first new sentence."""
    # `is None`, not `or`: a dataset of one sentence has max position 0 (appending to it
    # started at 0 again and failed on the unique position).
    last = Sentence.objects.filter(dataset=dataset).aggregate(m=Max("position"))["m"]
    start = (last if last is not None else -1) + 1
    for index, row in enumerate(rows):
        if row.auto_id:
            row.external_id = str(start + index + 1)
    existing: set[str] = set()
    if not created:
        existing = set(
            Sentence.objects.filter(dataset=dataset).values_list("external_id", flat=True)
        )
    seen: dict[str, int] = {}
    for row in rows:
        if row.external_id in existing:
            raise format_error(
                file_name,
                row.line,
                "id",
                f"id {row.external_id!r} already exists in dataset {dataset.name!r}",
            )
        first = seen.setdefault(row.external_id, row.line)
        if first != row.line:
            raise format_error(
                file_name,
                row.line,
                "id",
                f"duplicate id {row.external_id!r} (first used on line {first})",
            )
    return start


def _sources_for(
    dataset: Dataset, rows: Sequence[ParsedSentence], *, default: str
) -> dict[str, Source]:
    sources: dict[str, Source] = {s.name: s for s in dataset.sources.all()}
    for row in rows:
        wanted = row.source_name if row.source_name is not None else default
        if wanted and wanted not in sources:
            sources[wanted] = Source.objects.create(dataset=dataset, name=wanted)
    return sources


def _write_rows(
    dataset: Dataset,
    rows: Sequence[ParsedSentence],
    *,
    start: int,
    sources: dict[str, Source],
    default_source: str,
    split: str,
    style: str,
    user: Any,
    job_id: int | None,
) -> int:
    """Insert the sentences and their references in chunks; returns the references written."""
    n_references = 0
    actor = _actor(user)
    actor_id = actor.pk if actor is not None else None
    for offset in range(0, len(rows), WRITE_CHUNK):
        chunk = rows[offset : offset + WRITE_CHUNK]
        sentence_rows = []
        for index, row in enumerate(chunk, start=offset):
            wanted = row.source_name if row.source_name is not None else default_source
            source = sources.get(wanted) if wanted else None
            sentence_rows.append(
                (
                    dataset.pk,
                    source.pk if source is not None else None,
                    row.split if row.split is not None else split,
                    row.external_id,
                    start + index,
                    row.text,
                    SentenceStatus.REVIEWED if row.references else SentenceStatus.PENDING,
                    judgement_for(row.text, row.references),
                )
            )
        insert_rows(Sentence, SENTENCE_COLUMNS, sentence_rows)
        ids = dict(
            Sentence.objects.filter(
                dataset=dataset,
                position__gte=start + offset,
                position__lt=start + offset + len(chunk),
            ).values_list("position", "id")
        )
        reference_rows = [
            (
                ids[start + index],
                1,
                position,
                reference_kind(text),
                text,
                ReferenceOrigin.IMPORTED,
                style,
                True,
                actor_id,
            )
            for index, row in enumerate(chunk, start=offset)
            for position, text in enumerate(row.references)
        ]
        n_references += insert_rows(GoldenReference, REFERENCE_COLUMNS, reference_rows)
        report_progress(job_id, offset + len(chunk), total=len(rows))
    return n_references


def natural_key(name: str) -> list[Any]:
    """Sort key that puts ref2 before ref10 (reference files picked together in a browser)."""

    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _actor(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def _is_slug(value: str) -> bool:
    return all(c.isascii() and (c.isalnum() or c in "-_") for c in value)
