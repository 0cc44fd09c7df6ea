"""Read-only queries for dataset pages, exports and statistics.

`export_rows` is the one way to walk a dataset's content for output: either a frozen
release (ReleasedSentence rows) or the live dataset (sentences with their current golden
references). It yields plain `DatasetRow`s in position order, reading in chunks so a
100,000-sentence dataset never sits in memory as model instances.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.db.models import Count

from core.exceptions import NotFound
from core.web import parse_id
from datasets.models import (
    Dataset,
    DatasetVersion,
    GoldenReference,
    ReferenceEntry,
    ReleasedSentence,
    Sentence,
)

READ_CHUNK = 5000


@dataclass(frozen=True)
class DatasetRow:
    external_id: str
    text: str
    references: tuple[str, ...]
    source_name: str
    split: str
    sentence_id: int | None
    judgement: str = ""
    # Per reference: its stored style ("" unspecified) and the id of the annotator whose
    # correction it is (None: imported or the reviewer's). Empty for old releases.
    reference_styles: tuple[str, ...] = ()
    reference_annotators: tuple[int | None, ...] = ()
    # Per reference: how its text came to be (GoldenReference.entry) and the suggestion's
    # label ("" none). Empty for releases made before post-edit annotation.
    reference_entries: tuple[str, ...] = ()
    reference_suggestion_sources: tuple[str, ...] = ()

    def provenance(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(entry, suggestion source) per reference; a release made before post-edit
        annotation recorded neither, and every reference of it was typed."""
        count = len(self.references)
        entries = self.reference_entries or (ReferenceEntry.TYPED.value,) * count
        sources = self.reference_suggestion_sources or ("",) * count
        return tuple(entries), tuple(sources)


def get_dataset(name: str, *, field: str = "name") -> Dataset:
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        raise NotFound(f"no dataset named {name!r}", field=field)
    return dataset


def dataset_by_id(dataset_id: int) -> Dataset:
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        raise NotFound(f"no dataset {dataset_id}", field="dataset")
    return dataset


def release_by_id(version_id: int) -> DatasetVersion:
    version = DatasetVersion.objects.select_related("dataset").filter(pk=version_id).first()
    if version is None:
        raise NotFound(f"no release {version_id}", field="release")
    return version


def get_version(dataset: Dataset, number: int | str | None) -> DatasetVersion | None:
    """Version `number` of `dataset` (accepts 3, "3", "v3", "name@v3"); None for None."""
    if number is None or number == "":
        return None
    raw = str(number)
    if "@" in raw:
        raw = raw.split("@", 1)[1]
    raw = raw.lstrip("vV")
    if parse_id(raw) is None:
        raise NotFound(f"release {number!r} is not a version number like 3 or v3", field="release")
    version = DatasetVersion.objects.filter(dataset=dataset, number=int(raw)).first()
    if version is None:
        raise NotFound(f"dataset {dataset.name!r} has no release v{raw}", field="release")
    return version


def count_rows(*, dataset: Dataset, version: DatasetVersion | None) -> int:
    if version is not None:
        return ReleasedSentence.objects.filter(version=version).count()
    return Sentence.objects.filter(dataset=dataset).count()


def _released_rows(version: DatasetVersion) -> Iterator[DatasetRow]:
    last = -1
    while True:
        chunk = list(
            ReleasedSentence.objects.filter(version=version, position__gt=last)
            .order_by("position")
            .values_list(
                "position",
                "external_id",
                "text",
                "references",
                "source_name",
                "split",
                "sentence_id",
                "judgement",
                "reference_styles",
                "reference_annotators",
                "reference_entries",
                "reference_suggestion_sources",
            )[:READ_CHUNK]
        )
        if not chunk:
            return
        for (
            _position,
            external_id,
            text,
            references,
            source_name,
            split,
            sid,
            judgement,
            styles,
            annotators,
            entries,
            suggestion_sources,
        ) in chunk:
            yield DatasetRow(
                external_id,
                text,
                tuple(references),
                source_name,
                split,
                sid,
                judgement,
                tuple(styles),
                tuple(annotators),
                tuple(entries),
                tuple(suggestion_sources),
            )
        last = chunk[-1][0]


def _live_rows(
    dataset: Dataset, *, split: str = "", source_names: list[str] | None = None
) -> Iterator[DatasetRow]:
    last = -1
    sentences = Sentence.objects.filter(dataset=dataset)
    if split:
        sentences = sentences.filter(split=split)
    if source_names:
        sentences = sentences.filter(source__name__in=source_names)
    while True:
        chunk = list(
            sentences.filter(position__gt=last)
            .order_by("position")
            .values_list(
                "id", "position", "external_id", "text", "source__name", "split", "judgement"
            )[:READ_CHUNK]
        )
        if not chunk:
            return
        references: dict[int, list[tuple[str, str, int | None, str, str]]] = {}
        for sentence_id, *reference in (
            GoldenReference.objects.filter(sentence_id__in=[c[0] for c in chunk], is_current=True)
            .order_by("sentence_id", "position")
            .values_list(
                "sentence_id", "text", "style", "annotator_id", "entry", "suggestion_source"
            )
        ):
            references.setdefault(sentence_id, []).append(tuple(reference))  # type: ignore[arg-type]
        for sid, _position, external_id, text, source_name, split_, judgement in chunk:
            refs = references.get(sid, [])
            yield DatasetRow(
                external_id,
                text,
                tuple(ref[0] for ref in refs),
                source_name or "",
                split_,
                sid,
                judgement,
                tuple(ref[1] for ref in refs),
                tuple(ref[2] for ref in refs),
                tuple(ref[3] for ref in refs),
                tuple(ref[4] for ref in refs),
            )
        last = chunk[-1][1]


def export_rows(
    *,
    dataset: Dataset,
    version: DatasetVersion | None = None,
    split: str = "",
    source_names: list[str] | None = None,
) -> Iterator[DatasetRow]:
    if version is not None:
        yield from _released_rows(version)
    else:
        yield from _live_rows(dataset, split=split, source_names=source_names)


def dataset_summaries() -> list[dict[str, Any]]:
    """One line per dataset for the datasets page."""

    rows = []
    for dataset in Dataset.objects.annotate(n_sentences=Count("sentences", distinct=True)).order_by(
        "name"
    ):
        rows.append(
            {
                "dataset": dataset,
                "sentences": dataset.n_sentences,
                "versions": list(dataset.versions.order_by("-number")[:5]),
            }
        )
    return rows


def chunked(rows: Iterable[DatasetRow], size: int) -> Iterator[list[DatasetRow]]:
    """Rows in lists of `size` (the last may be shorter)."""
    iterator = iter(rows)
    while chunk := list(islice(iterator, size)):
        yield chunk
