"""Compare the hypothesis with the references chunk by chunk (CLEME section 3.2).

Row 0 of a partition is the hypothesis, rows 1.. the references. Chunks are equal when they
carry the same tokens (edit types are not compared). The outcome of each hypothesis chunk is
recorded by chunk index, so weights (length, similarity) can be applied afterwards.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from gecscore.cleme.model import Tokens
from gecscore.cleme.partition import Partition
from gecscore.errors import OptionError

__all__ = [
    "ASSUMPTIONS",
    "Assumption",
    "ChunkTally",
    "LengthTally",
    "count",
    "count_dependent",
    "count_independent",
    "count_lengths",
]

Assumption = Literal["dependent", "independent"]
ASSUMPTIONS: tuple[Assumption, ...] = ("dependent", "independent")


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class ChunkTally(NamedTuple):
    """Hypothesis chunk indices by outcome against one reference (or all, independent).

    ``fp_necessary[k]`` tells for ``fp[k]`` whether the reference(s) also changed that chunk
    (CLEME2.0's FP_ne, a wrong correction) or not (FP_un, an over-correction). TN chunks
    weigh 1 whatever their length, so only their number is kept.
    """

    tp: tuple[int, ...]
    fp: tuple[int, ...]
    fp_necessary: tuple[bool, ...]
    fn: tuple[int, ...]
    tn: int


def count_dependent(partition: Partition) -> list[ChunkTally]:
    """One tally per reference: each reference is a complete, self-consistent correction.

    Only chunks changed by the hypothesis or the reference are looked at: elsewhere both
    carry the source tokens, a TN.
    """
    n_chunks = len(partition.spans)
    hyp_tokens, hyp_changed, hyp_edited = (
        partition.tokens[0],
        partition.changed[0],
        partition.edited[0],
    )
    tallies: list[ChunkTally] = []
    for ref_tokens, ref_changed, ref_edited in zip(
        partition.tokens[1:], partition.changed[1:], partition.edited[1:], strict=True
    ):
        tp: list[int] = []
        fp: list[int] = []
        necessary: list[bool] = []
        for i in hyp_edited:
            if hyp_tokens[i] == ref_tokens[i]:
                tp.append(i)
            else:
                fp.append(i)
                necessary.append(ref_changed[i])
        # An unchanged hypothesis chunk is a FN when its tokens differ from the reference's.
        fn = [i for i in ref_edited if not hyp_changed[i] and hyp_tokens[i] != ref_tokens[i]]
        tn = n_chunks - len(tp) - len(fp) - len(fn)
        tallies.append(ChunkTally(tuple(tp), tuple(fp), tuple(necessary), tuple(fn), tn))
    return tallies


def count_independent(partition: Partition) -> list[ChunkTally]:
    """One tally for all references: a chunk may be matched by any reference's chunk.

    A changed hypothesis chunk is a TP if it equals any reference's chunk; an unchanged one
    is a FN only if every reference changed it (some reference agrees it is fine otherwise).
    """
    n_chunks = len(partition.spans)
    hyp_tokens, hyp_changed, hyp_edited = (
        partition.tokens[0],
        partition.changed[0],
        partition.edited[0],
    )
    ref_tokens, ref_changed = partition.tokens[1:], partition.changed[1:]
    tp: list[int] = []
    fp: list[int] = []
    necessary: list[bool] = []
    for i in hyp_edited:
        if any(hyp_tokens[i] == row[i] for row in ref_tokens):
            tp.append(i)
        else:
            fp.append(i)
            necessary.append(any(row[i] for row in ref_changed))
    # Every reference changed it: the first reference's edited chunks are the candidates.
    fn = [
        i for i in partition.edited[1] if not hyp_changed[i] and all(row[i] for row in ref_changed)
    ]
    tn = n_chunks - len(tp) - len(fp) - len(fn)
    return [ChunkTally(tuple(tp), tuple(fp), tuple(necessary), tuple(fn), tn)]


def count(partition: Partition, assumption: Assumption) -> list[ChunkTally]:
    if assumption == "dependent":
        return count_dependent(partition)
    if assumption == "independent":
        return count_independent(partition)
    raise OptionError(f"assumption must be one of {ASSUMPTIONS}, got {assumption!r}")


class LengthTally(NamedTuple):
    """A ``ChunkTally`` that keeps each counted chunk's length instead of its index (what
    length weighting reads: max(#source tokens, #hypothesis tokens)), in chunk order."""

    tp: list[int]
    fp: list[int]
    fp_necessary: list[bool]
    fn: list[int]
    tn: int


def count_lengths(
    source: Tokens,
    starts: list[int],
    ends: list[int],
    hyp_cells: dict[int, Tokens],
    ref_cells: list[dict[int, Tokens]],
    n_chunks: int,
    assumption: Assumption,
) -> list[LengthTally]:
    """``count`` on the edited cells of a partition (``partition.correction_cells``: interval
    -> tokens; an interval a correction leaves alone carries the source slice), without the
    partition: what CLEME's scores read. Intervals are chunks here; outcomes and their order
    are those of ``count_dependent`` / ``count_independent``."""
    # Per hypothesis cell: interval, tokens, chunk length, whether it equals the source.
    hyp = [
        (i, cell, max(ends[i] - starts[i], len(cell)), cell == source[starts[i] : ends[i]])
        for i, cell in hyp_cells.items()
    ]
    if assumption == "dependent":
        return [
            _dependent_lengths(source, starts, ends, hyp, hyp_cells, cells, n_chunks)
            for cells in ref_cells
        ]
    if assumption == "independent":
        return [_independent_lengths(starts, ends, hyp, hyp_cells, ref_cells, n_chunks)]
    raise OptionError(f"assumption must be one of {ASSUMPTIONS}, got {assumption!r}")


def _dependent_lengths(
    source: Tokens,
    starts: list[int],
    ends: list[int],
    hyp: list[tuple[int, Tokens, int, bool]],
    hyp_cells: dict[int, Tokens],
    ref: dict[int, Tokens],
    n_chunks: int,
) -> LengthTally:
    tp: list[int] = []
    fp: list[int] = []
    necessary: list[bool] = []
    for i, cell, length, unchanged in hyp:
        other = ref.get(i)
        if other is None:
            if unchanged:
                tp.append(length)
            else:
                fp.append(length)
                necessary.append(False)
        elif cell == other:
            tp.append(length)
        else:
            fp.append(length)
            necessary.append(True)
    fn = [
        ends[i] - starts[i]
        for i, cell in ref.items()
        if i not in hyp_cells and cell != source[starts[i] : ends[i]]
    ]
    return LengthTally(tp, fp, necessary, fn, n_chunks - len(tp) - len(fp) - len(fn))


def _independent_lengths(
    starts: list[int],
    ends: list[int],
    hyp: list[tuple[int, Tokens, int, bool]],
    hyp_cells: dict[int, Tokens],
    refs: list[dict[int, Tokens]],
    n_chunks: int,
) -> LengthTally:
    tp: list[int] = []
    fp: list[int] = []
    necessary: list[bool] = []
    for i, cell, length, unchanged in hyp:
        if any(cell == ref[i] if i in ref else unchanged for ref in refs):
            tp.append(length)
        else:
            fp.append(length)
            necessary.append(any(i in ref for ref in refs))
    # Every reference changed it: the first reference's chunks are the candidates.
    fn = [
        ends[i] - starts[i] for i in refs[0] if i not in hyp_cells and all(i in ref for ref in refs)
    ]
    return LengthTally(tp, fp, necessary, fn, n_chunks - len(tp) - len(fp) - len(fn))
