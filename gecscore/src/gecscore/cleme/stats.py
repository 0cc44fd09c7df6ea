"""Chunk statistics of a reference set (CLEME paper, Tables 1 and 7).

Counts and mean lengths of unchanged / corrected / dummy chunks when each sentence is
partitioned with all its references, and the hold-out ratios ICC / IUC / CC that show how
often one annotator's edits fall inside the chunks the other annotators produced:

Hold-out, precisely. For every sentence with at least two references and for every reference
r in turn (file order): partition the source with the OTHER references only; then classify
each edit of r (first alignment, noop/NA excluded, source span [s, e)):

* ICC (in corrected chunk): some corrected or dummy chunk [a, b] has a <= s and e <= b
  (closed interval: an insertion at the border of a corrected chunk is inside it, as CLEME's
  merging would put it there without moving any boundary);
* IUC (in unchanged chunk): otherwise, some unchanged chunk [a, b] has a <= s and e <= b;
* CC (cross chunks): neither, i.e. the edit spans a chunk boundary.

The ratios are over all held-out edits of the reference set (micro average), so
CC = 1 - ICC - IUC. Sentences with a single reference have nothing to hold out against
and are skipped; references that delete the whole sentence are dropped first, as in scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from gecscore.cleme.evaluate import usable_references
from gecscore.cleme.model import Sentence, SpanEdit
from gecscore.cleme.partition import Partition, partition

__all__ = [
    "ChunkStatistics",
    "HoldOutClass",
    "chunk_statistics",
    "classify_edit",
    "hold_out_counts",
]

HoldOutClass = Literal["icc", "iuc", "cc"]


@dataclass(frozen=True, slots=True)
class ChunkStatistics:
    sentences: int
    references: int
    chunks: int
    unchanged: int
    corrected: int
    dummy: int
    unchanged_mean_length: float  # source tokens per unchanged chunk
    corrected_mean_length: float  # source tokens per corrected chunk
    changed_mean_length: float  # b: mean max(|src|, |tgt|) of the references' changed chunks
    held_out_edits: int
    icc: float
    iuc: float
    cc: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def classify_edit(chunks: Partition, edit: SpanEdit) -> HoldOutClass:
    """Where a held-out edit falls in a partition made without it (see the module doc)."""
    inside_unchanged = False
    for span in chunks.spans:
        if span.start <= edit.start and edit.end <= span.end:
            if span.kind != "unchanged":
                return "icc"
            inside_unchanged = True
        elif span.start > edit.end:
            break
    return "iuc" if inside_unchanged else "cc"


def hold_out_counts(sentence: Sentence, max_refs: int | None = None) -> dict[HoldOutClass, int]:
    """ICC / IUC / CC counts of one sentence, holding out each reference in turn."""
    counts: dict[HoldOutClass, int] = {"icc": 0, "iuc": 0, "cc": 0}
    refs = usable_references(sentence.source, sentence.corrections, max_refs)
    if len(refs) < 2:
        return counts
    for held in range(len(refs)):
        others = [edits for k, edits in enumerate(refs) if k != held]
        chunks = partition(sentence.source, others)
        for edit in refs[held]:
            counts[classify_edit(chunks, edit)] += 1
    return counts


def chunk_statistics(
    references: Sequence[Sentence], *, max_refs: int | None = None
) -> ChunkStatistics:
    """Statistics of a reference set (each sentence partitioned with all its references)."""
    n_refs = 0
    kinds = {"unchanged": 0, "corrected": 0, "dummy": 0}
    unchanged_length = corrected_length = 0
    changed_length = n_changed = 0
    held: dict[HoldOutClass, int] = {"icc": 0, "iuc": 0, "cc": 0}
    for sentence in references:
        refs = usable_references(sentence.source, sentence.corrections, max_refs)
        n_refs += len(refs)
        chunks = partition(sentence.source, refs)
        for i, span in enumerate(chunks.spans):
            kinds[span.kind] += 1
            if span.kind == "unchanged":
                unchanged_length += span.end - span.start
            elif span.kind == "corrected":
                corrected_length += span.end - span.start
            for row in range(len(refs)):
                if chunks.changed[row][i]:
                    changed_length += chunks.chunk_length(row, i)
                    n_changed += 1
        for key, value in hold_out_counts(sentence, max_refs).items():
            held[key] += value
    n_held = held["icc"] + held["iuc"] + held["cc"]

    def ratio(part: int, whole: int) -> float:
        return part / whole if whole else 0.0

    return ChunkStatistics(
        sentences=len(references),
        references=n_refs,
        chunks=sum(kinds.values()),
        unchanged=kinds["unchanged"],
        corrected=kinds["corrected"],
        dummy=kinds["dummy"],
        unchanged_mean_length=ratio(unchanged_length, kinds["unchanged"]),
        corrected_mean_length=ratio(corrected_length, kinds["corrected"]),
        changed_mean_length=ratio(changed_length, n_changed),
        held_out_edits=n_held,
        icc=ratio(held["icc"], n_held),
        iuc=ratio(held["iuc"], n_held),
        cc=ratio(held["cc"], n_held),
    )
