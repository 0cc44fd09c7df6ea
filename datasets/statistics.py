"""Dataset statistics as in MuCGEC (Table 3 and Figure 1), per source and overall.

Definitions (they are what `dataset_stats --json` prints; docs/datasets.md repeats them):

* ``references``: distinct reference texts per sentence, summed (identical references of
  one sentence count once); ``refs_per_sentence_histogram``: number of distinct
  references -> number of sentences.
* edits come from the platform's one extractor, read from the reference M2 of the data
  (alternative 0 of each target = the first cheapest alignment = `extract_edits`), so the
  numbers are those of the M2 export and the scorer, and a release's stored M2 is reused. ``没有错误`` and a reference equal to the source have 0 edits;
  ``无法标注`` references are left out of ``edits_per_reference``.
* ``erroneous_sentences``: sentences with at least one reference that has an edit;
  ``erroneous_share`` = erroneous_sentences / sentences.
* ``chars_per_sentence``: mean number of source characters, whitespace not counted;
  ``tokens_per_sentence``: mean number of whitespace-separated source tokens (English).
* ``edit_types``: M (missing), R (redundant), S (substitution), W (word order) counts;
  ``extractor_types``: the same edits by the extractor's own type (ERRANT's ``R:VERB:TENSE``,
  ``U:DET`` ... for English), most frequent first.
* ``erroneous_by_refs`` (Figure 1): for each number of references n, how many erroneous
  sentences have n references and their share of all erroneous sentences.

Extraction is the slow part; it runs in worker processes like the M2 export (it IS the M2
export's extraction), and is skipped for a release whose reference M2 is stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

# CLEME's own package API (its __all__).
from gecscore.cleme import chunk_statistics, sentences_from_m2

from core.exceptions import ServiceError
from core.jobs import report_progress
from datasets.extraction import resources_dir_setting
from datasets.models import Dataset, DatasetVersion, Language
from datasets.reference_m2 import (
    ENGLISH_SIGNATURE,
    english_m2_chunks,
    export_workers,
    known_blocks,
    m2_chunks,
    reference_m2,
)
from datasets.selectors import DatasetRow, export_rows
from datasets.signals import collect_statistics
from gecscore import load_resources, parse_m2

EDIT_TYPES = ("M", "R", "S", "W")
NOT_ANNOTATABLE = "无法标注"
BATCH = 200


@dataclass
class _Tally:
    sentences: int = 0
    references: int = 0
    chars: int = 0
    erroneous: int = 0
    error_free: int = 0
    not_annotatable: int = 0
    edits: int = 0
    edited_references: int = 0  # references that can carry edits (not 无法标注)
    histogram: Counter[int] = field(default_factory=Counter)
    erroneous_histogram: Counter[int] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    tokens: int = 0
    extractor_types: Counter[str] = field(default_factory=Counter)

    def add(
        self, row: DatasetRow, references: tuple[str, ...], raw: list[list[str] | None]
    ) -> None:
        # MuCGEC's M/R/S/W of each edit the extractor typed (ERRANT's UNK has no such type).
        types = [
            None if kinds is None else [edit_type(k) for k in kinds if edit_type(k) in EDIT_TYPES]
            for kinds in raw
        ]
        for kinds in raw:
            self.extractor_types.update(k for k in kinds or () if edit_type(k) in EDIT_TYPES)
        self.sentences += 1
        self.references += len(references)
        self.chars += len("".join(row.text.split()))
        self.tokens += len(row.text.split())
        self.histogram[len(references)] += 1
        erroneous = any(t for t in types if t)
        if erroneous:
            self.erroneous += 1
            self.erroneous_histogram[len(references)] += 1
        elif types and all(t is None for t in types):
            self.not_annotatable += 1
        elif types:
            self.error_free += 1
        for t in types:
            if t is None:
                continue
            self.edited_references += 1
            self.edits += len(t)
            self.types.update(t)

    def as_dict(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 4) if b else 0.0

        return {
            "sentences": self.sentences,
            "references": self.references,
            "refs_per_sentence": ratio(self.references, self.sentences),
            "refs_per_sentence_histogram": {
                str(k): self.histogram[k] for k in sorted(self.histogram)
            },
            "erroneous_sentences": self.erroneous,
            "erroneous_share": ratio(self.erroneous, self.sentences),
            "error_free_sentences": self.error_free,
            "not_annotatable_sentences": self.not_annotatable,
            "chars_per_sentence": ratio(self.chars, self.sentences),
            "tokens_per_sentence": ratio(self.tokens, self.sentences),
            "edits": self.edits,
            "edits_per_reference": ratio(self.edits, self.edited_references),
            "edit_types": {t: self.types[t] for t in EDIT_TYPES},
            # The extractor's own types, most frequent first (ERRANT's R:VERB:TENSE ...; for
            # Chinese they are M/R/S/W again).
            "extractor_types": dict(
                sorted(self.extractor_types.items(), key=lambda item: (-item[1], item[0]))
            ),
            "erroneous_by_refs": {
                str(k): {
                    "sentences": self.erroneous_histogram[k],
                    "share": ratio(self.erroneous_histogram[k], self.erroneous),
                }
                for k in sorted(self.histogram)
            },
        }


def _distinct(references: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(references))


def reference_m2_text(
    *,
    dataset: Dataset,
    version: DatasetVersion | None,
    directory: str | None,
    signature: str,
    workers: int | None = None,
    on_progress: Any = None,
) -> str:
    """The reference M2 of a release (from the one builder, stored) or of the live data
    (extracted now, reusing the unchanged blocks of the newest stored release, so the live
    statistics of a mostly released dataset are cheap)."""
    if version is not None:
        return reference_m2(
            version, resources_dir=directory, workers=workers, on_progress=on_progress
        )[1]
    if dataset.language == Language.ENGLISH:
        return "".join(
            english_m2_chunks(export_rows(dataset=dataset, version=None), on_progress=on_progress)
        )
    return "".join(
        m2_chunks(
            export_rows(dataset=dataset, version=version),
            resources_dir=directory,
            workers=workers if workers is not None else export_workers(),
            on_progress=on_progress,
            known=known_blocks(dataset, signature, exclude=version),
        )
    )


def edit_type(m2_type: str) -> str:
    """MuCGEC's M/R/S/W of an edit: ChERRANT writes them as they are; ERRANT's operation
    prefix maps as Missing -> M, Unnecessary -> R, Replacement -> S, and R:WO -> W."""
    if m2_type == "R:WO":
        return "W"
    return (
        {"M": "M", "U": "R", "R": "S"}.get(m2_type.split(":")[0], m2_type)
        if ":" in m2_type
        else m2_type
    )


def _typed_rows_from_m2(
    rows: Iterable[DatasetRow], m2_text: str, *, name: str
) -> Iterator[tuple[DatasetRow, tuple[str, ...], list[list[str] | None]]]:
    """Edit types per distinct reference, read from the reference M2 (written by the one
    extractor): alternative 0 of each target is the first cheapest alignment, i.e. what
    `extract_edits` returns. Blocks are parsed one at a time to keep memory flat."""

    texts = [b for b in m2_text.split("\n\n") if b.strip()]
    count = 0
    for row in rows:
        if count >= len(texts):
            raise ServiceError(
                f"{name}: the reference M2 has fewer blocks than there are "
                "sentences; export M2 again",
                field="release",
            )
        block = parse_m2(texts[count], name=f"{name} reference M2")[0]
        count += 1
        first: dict[int, list[str] | None] = {}
        for target in block.targets:
            if target.annotator in first:
                continue
            if target.edits and target.edits[0].type == "NA":
                first[target.annotator] = None
            else:
                first[target.annotator] = [e.type for e in target.edits]
        distinct = _distinct(row.references)
        # Annotator id = reference index: keep the first occurrence of each distinct text.
        indexes = [row.references.index(text) for text in distinct]
        yield row, distinct, [first.get(i, []) for i in indexes]
    if count != len(texts):
        raise ServiceError(
            f"{name}: the reference M2 has {len(texts)} blocks for {count} sentences",
            field="release",
        )


def cleme_chunk_statistics(
    *,
    dataset: Dataset,
    version: DatasetVersion | None = None,
    resources_dir: str | None = None,
    workers: int | None = None,
    m2_text: str | None = None,
) -> dict[str, Any]:
    """CLEME's chunk statistics of the reference set (engineer B's `chunk_statistics`):
    chunk counts and lengths, ICC / IUC / CC, from the reference M2."""

    if m2_text is None:
        directory = resources_dir_setting(resources_dir)
        m2_text = reference_m2_text(
            dataset=dataset,
            version=version,
            directory=directory,
            signature=load_resources(directory).signature,
            workers=workers,
        )
    blocks = parse_m2(m2_text, name=f"{dataset.name} reference M2")
    result = chunk_statistics(sentences_from_m2(blocks)).as_dict()
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in result.items()}


def dataset_statistics(
    *,
    dataset: Dataset,
    version: DatasetVersion | None = None,
    resources_dir: str | None = None,
    workers: int | None = None,
    job_id: int | None = None,
    chunks: bool = False,
    rows: Iterable[DatasetRow] | None = None,
) -> dict[str, Any]:
    """Statistics of a release (or of the live dataset's current golden references); `rows`:
    the release's rows already read (publishing reads them once for every file)."""

    directory = resources_dir_setting(resources_dir)
    try:
        signature = load_resources(directory).signature
    except ValueError as exc:
        raise ServiceError(f"statistics: {exc}", field="resources") from None
    if dataset.language == Language.ENGLISH:
        signature = ENGLISH_SIGNATURE

    def progress(done: int) -> None:
        report_progress(job_id, done)

    m2_text = reference_m2_text(
        dataset=dataset,
        version=version,
        directory=directory,
        signature=signature,
        workers=workers,
        on_progress=progress,
    )
    overall = _Tally()
    by_source: dict[str, _Tally] = {}
    name = version.label if version is not None else f"{dataset.name} (live)"
    if rows is None:
        rows = export_rows(dataset=dataset, version=version)
    for row, references, types in _typed_rows_from_m2(rows, m2_text, name=name):
        overall.add(row, references, types)
        by_source.setdefault(row.source_name or "(none)", _Tally()).add(row, references, types)
    extra: dict[str, Any] = {}
    if chunks:
        extra["cleme_chunks"] = cleme_chunk_statistics(dataset=dataset, m2_text=m2_text)
    return {
        "dataset": dataset.name,
        "release": version.label if version is not None else None,
        "checksum": version.checksum if version is not None else None,
        "resources": signature,
        **overall.as_dict(),
        "by_source": {name: tally.as_dict() for name, tally in sorted(by_source.items())},
        **extra,
    }


def higher_app_statistics(
    *, dataset: Dataset, version: DatasetVersion | None = None
) -> dict[str, Any]:
    """The sections the apps above add to `manage.py dataset_stats` (the datasets app never
    imports them): each receiver of `collect_statistics` answers ``{key: value}``, e.g.
    scoring's ``prefill`` (the post-edit anchoring report)."""
    sections: dict[str, Any] = {}
    answer: Any
    for _receiver, answer in collect_statistics.send(sender=None, dataset=dataset, version=version):
        sections.update(answer or {})
    return sections
