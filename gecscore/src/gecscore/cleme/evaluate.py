"""The shared first step of CLEME and CLEME2.0: partition every sentence and count its chunks.

Hypothesis and references of a sentence are partitioned together (hypothesis row 0), the
hypothesis chunks are counted against the references under the chosen assumption, and the
mean length ``b`` of the references' changed chunks is measured for length weighting.

Corrections that delete the whole sentence ("empty") would merge all chunks into one; the two
CLEME releases set them aside differently (``empty_targets``):

* ``"head"`` (CLEME HEAD, whose CLEME2.0 ``cleme2`` reproduces): empty references are dropped;
  if every reference is empty the first stays. The hypothesis is never dropped.
* ``"v1.0"`` (CLEME v1.0, which ``cleme`` reproduces): the hypothesis and the references are one
  list, and while that list has more than two entries each empty entry is deleted as the list
  is walked, the entry after a deleted one being skipped (v1.0 deletes from the list it
  iterates over). The hypothesis is an entry like the others: when it is empty and deleted,
  the first remaining reference is scored in its place against the rest (CoNLL-14 POST,
  sentence 24, where v1.0's F differs from HEAD's rule in the fourth decimal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from gecscore.cleme.counting import (
    Assumption,
    ChunkTally,
    LengthTally,
    count,
    count_lengths,
)
from gecscore.cleme.model import (
    ClemeInputError,
    Sentence,
    SpanEdit,
    Tokens,
)
from gecscore.cleme.partition import Partition, correction_cells, merged_intervals, partition
from gecscore.cleme.weighting import (
    LengthWeigher,
    WeightedCounts,
    length_weighted_counts,
    weighted_length_counts,
)
from gecscore.collector import collector_paused

__all__ = [
    "EMPTY_TARGETS",
    "ChunkEvaluation",
    "EmptyTargets",
    "LengthEvaluation",
    "SentenceEvaluation",
    "evaluate_chunks",
    "evaluate_lengths",
    "usable_references",
]


EmptyTargets = Literal["head", "v1.0"]
EMPTY_TARGETS: tuple[EmptyTargets, ...] = ("head", "v1.0")


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class SentenceEvaluation(NamedTuple):
    """One sentence: its joint partition (row 0 hypothesis) and one tally per reference."""

    partition: Partition
    tallies: tuple[ChunkTally, ...]


class ChunkEvaluation(NamedTuple):
    sentences: tuple[SentenceEvaluation, ...]
    assumption: Assumption
    mean_corrected_length: float  # b: mean max(|src|, |tgt|) of the references' changed chunks
    max_refs: int | None

    def weighted_counts(self, weigher: LengthWeigher) -> list[list[WeightedCounts]]:
        """Per sentence, the length-weighted counts against each reference."""
        return [
            [length_weighted_counts(s.partition, tally, weigher) for tally in s.tallies]
            for s in self.sentences
        ]


class LengthEvaluation(NamedTuple):
    """What ``evaluate_lengths`` keeps: per sentence one ``LengthTally`` per reference."""

    sentences: tuple[tuple[LengthTally, ...], ...]
    assumption: Assumption
    mean_corrected_length: float  # b, as in ChunkEvaluation
    max_refs: int | None

    def weighted_counts(self, weigher: LengthWeigher) -> list[list[WeightedCounts]]:
        """Per sentence, the length-weighted counts against each reference."""
        return [[weighted_length_counts(tally, weigher) for tally in s] for s in self.sentences]


def usable_references(
    source: Tokens, references: Sequence[tuple[SpanEdit, ...]], max_refs: int | None
) -> list[tuple[SpanEdit, ...]]:
    """The first ``max_refs`` references without those that delete the whole sentence.

    An empty reference would merge all chunks into one (CLEME HEAD drops it; v1.0 drops it
    when there are at least two references). If every reference is empty the first stays.
    """
    chosen = list(references if max_refs is None else references[:max_refs])
    kept = [edits for edits in chosen if _corrected_length(len(source), edits)]
    return kept if kept else chosen[:1]


def _corrected_length(n_source: int, edits: Sequence[SpanEdit]) -> int:
    length = n_source
    for start, end, tokens, _ in edits:
        length += len(tokens) - (end - start)
    return length


def _v1_targets(
    source: Tokens, hypothesis: tuple[SpanEdit, ...], references: Sequence[tuple[SpanEdit, ...]]
) -> tuple[tuple[SpanEdit, ...], list[tuple[SpanEdit, ...]]]:
    """CLEME v1.0's hypothesis and references of one sentence (see the module's docstring)."""
    targets = [hypothesis, *references]
    index = 0
    while index < len(targets):
        if len(targets) > 2 and not _corrected_length(len(source), targets[index]):
            del targets[index]
        index += 1  # as v1.0's ``for i, x in enumerate(targets)`` with ``del targets[i]``
    return targets[0], targets[1:]


def _check_inputs(
    hypotheses: Sequence[Sentence], references: Sequence[Sentence], max_refs: int | None
) -> None:
    if len(hypotheses) != len(references):
        raise ClemeInputError(
            f"the hypothesis has {len(hypotheses)} sentences but the references have "
            f"{len(references)}; both files must list the same sentences in the same order"
        )
    if max_refs is not None and max_refs < 1:
        raise ClemeInputError(f"max_refs must be at least 1, got {max_refs}")


def _checked_targets(
    hyp: Sentence, ref: Sentence, max_refs: int | None, empty_targets: EmptyTargets
) -> tuple[tuple[SpanEdit, ...], list[tuple[SpanEdit, ...]]]:
    """The hypothesis and the usable references of one sentence pair, after checking the pair
    fits together."""
    if hyp.source != ref.source:
        raise ClemeInputError(
            f"{hyp.origin or 'hypothesis'} and {ref.origin or 'reference'}: the source "
            f"sentences differ ({' '.join(hyp.source)[:40]!r} vs {' '.join(ref.source)[:40]!r})"
        )
    if len(hyp.corrections) != 1:
        raise ClemeInputError(
            f"{hyp.origin or 'hypothesis'}: a hypothesis needs exactly one correction, "
            f"got {len(hyp.corrections)}"
        )
    if not ref.corrections:
        raise ClemeInputError(f"{ref.origin or 'reference'}: the sentence has no reference")
    if empty_targets == "v1.0":
        chosen = ref.corrections if max_refs is None else ref.corrections[:max_refs]
        return _v1_targets(ref.source, hyp.corrections[0], chosen)
    return hyp.corrections[0], usable_references(ref.source, ref.corrections, max_refs)


def evaluate_chunks(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    assumption: Assumption = "dependent",
    max_refs: int | None = None,
    merge_distance: int = 0,
    empty_targets: EmptyTargets = "head",
) -> ChunkEvaluation:
    """Partition and count every sentence. Raises ClemeInputError on mismatched inputs.
    ``empty_targets``: CLEME2.0's rule (HEAD) by default; see the module's docstring."""
    _check_inputs(hypotheses, references, max_refs)
    with collector_paused():
        evaluations: list[SentenceEvaluation] = []
        total_length = 0
        n_changed = 0
        for hyp, ref in zip(hypotheses, references, strict=True):
            hyp_edits, refs = _checked_targets(hyp, ref, max_refs, empty_targets)
            joint = partition(ref.source, [hyp_edits, *refs], merge_distance=merge_distance)
            spans = joint.spans
            for row_tokens, row_edited in zip(joint.tokens[1:], joint.edited[1:], strict=True):
                for i in row_edited:
                    span = spans[i]
                    total_length += max(span[1] - span[0], len(row_tokens[i]))
                n_changed += len(row_edited)
            evaluations.append(SentenceEvaluation(joint, tuple(count(joint, assumption))))
    # No reference changes anything: no TP/FN exists and FP weights only need a finite b.
    bias = total_length / n_changed if n_changed else 0.0
    return ChunkEvaluation(tuple(evaluations), assumption, bias, max_refs)


def evaluate_lengths(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    assumption: Assumption = "dependent",
    max_refs: int | None = None,
    merge_distance: int = 0,
    empty_targets: EmptyTargets = "v1.0",
) -> LengthEvaluation:
    """``evaluate_chunks`` reduced to what CLEME's scores read: per sentence and reference
    the lengths of the TP, FP and FN chunks (``LengthTally``), and ``b``. Builds no
    partition rows, only each correction's edited cells (half the time).
    ``empty_targets``: CLEME v1.0's rule by default (this is what ``cleme`` runs); pass
    ``"head"`` to count as ``evaluate_chunks`` does by default."""
    _check_inputs(hypotheses, references, max_refs)
    with collector_paused():
        sentences: list[tuple[LengthTally, ...]] = []
        total_length = 0
        n_changed = 0
        for hyp, ref in zip(hypotheses, references, strict=True):
            hyp_edits, refs = _checked_targets(hyp, ref, max_refs, empty_targets)
            source = ref.source
            starts, ends = merged_intervals([hyp_edits, *refs], merge_distance)
            ref_cells = [correction_cells(source, edits, starts, ends) for edits in refs]
            for cells in ref_cells:
                for i, cell in cells.items():
                    span_length = ends[i] - starts[i]
                    total_length += len(cell) if len(cell) > span_length else span_length
                n_changed += len(cells)
            hyp_cells = correction_cells(source, hyp_edits, starts, ends)
            n_chunks = _chunk_count(starts, ends, len(source))
            tallies = count_lengths(
                source, starts, ends, hyp_cells, ref_cells, n_chunks, assumption
            )
            sentences.append(tuple(tallies))
    bias = total_length / n_changed if n_changed else 0.0  # as in evaluate_chunks
    return LengthEvaluation(tuple(sentences), assumption, bias, max_refs)


def _chunk_count(starts: list[int], ends: list[int], n_source: int) -> int:
    """The number of chunks ``partition`` makes: the intervals and the gaps around them."""
    gaps = 0
    position = 0
    for start, end in zip(starts, ends, strict=True):
        if position < start:
            gaps += 1
        position = end
    return len(starts) + gaps + (position < n_source)
