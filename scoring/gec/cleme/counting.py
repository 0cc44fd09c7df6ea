"""Compare the hypothesis with the references chunk by chunk (CLEME section 3.2).

Row 0 of a partition is the hypothesis, rows 1.. the references. Chunks are equal when they
carry the same tokens (edit types are not compared). The outcome of each hypothesis chunk is
recorded by chunk index, so weights (length, similarity) can be applied afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scoring.gec.cleme.partition import Partition

Assumption = Literal["dependent", "independent"]
ASSUMPTIONS: tuple[Assumption, ...] = ("dependent", "independent")


@dataclass(frozen=True, slots=True)
class ChunkTally:
    """Hypothesis chunk indices by outcome against one reference (or all, independent).

    ``fp_necessary[k]`` tells for ``fp[k]`` whether the reference(s) also changed that chunk
    (CLEME2.0's FP_ne, a wrong correction) or not (FP_un, an over-correction).
    """

    tp: tuple[int, ...]
    fp: tuple[int, ...]
    fp_necessary: tuple[bool, ...]
    fn: tuple[int, ...]
    tn: tuple[int, ...]


def count_dependent(partition: Partition) -> list[ChunkTally]:
    """One tally per reference: each reference is a complete, self-consistent correction."""
    hyp_tokens, hyp_changed = partition.tokens[0], partition.changed[0]
    tallies: list[ChunkTally] = []
    for ref_tokens, ref_changed in zip(partition.tokens[1:], partition.changed[1:], strict=True):
        tp: list[int] = []
        fp: list[int] = []
        necessary: list[bool] = []
        fn: list[int] = []
        tn: list[int] = []
        for i, changed in enumerate(hyp_changed):
            if changed:
                if hyp_tokens[i] == ref_tokens[i]:
                    tp.append(i)
                else:
                    fp.append(i)
                    necessary.append(ref_changed[i])
            elif hyp_tokens[i] != ref_tokens[i]:
                fn.append(i)
            else:
                tn.append(i)
        tallies.append(ChunkTally(tuple(tp), tuple(fp), tuple(necessary), tuple(fn), tuple(tn)))
    return tallies


def count_independent(partition: Partition) -> list[ChunkTally]:
    """One tally for all references: a chunk may be matched by any reference's chunk.

    A changed hypothesis chunk is a TP if it equals any reference's chunk; an unchanged one
    is a FN only if every reference changed it (some reference agrees it is fine otherwise).
    """
    hyp_tokens, hyp_changed = partition.tokens[0], partition.changed[0]
    ref_tokens, ref_changed = partition.tokens[1:], partition.changed[1:]
    tp: list[int] = []
    fp: list[int] = []
    necessary: list[bool] = []
    fn: list[int] = []
    tn: list[int] = []
    for i, changed in enumerate(hyp_changed):
        if changed:
            if any(hyp_tokens[i] == row[i] for row in ref_tokens):
                tp.append(i)
            else:
                fp.append(i)
                necessary.append(any(row[i] for row in ref_changed))
        elif all(row[i] for row in ref_changed):
            fn.append(i)
        else:
            tn.append(i)
    return [ChunkTally(tuple(tp), tuple(fp), tuple(necessary), tuple(fn), tuple(tn))]


def count(partition: Partition, assumption: Assumption) -> list[ChunkTally]:
    if assumption == "dependent":
        return count_dependent(partition)
    if assumption == "independent":
        return count_independent(partition)
    raise ValueError(f"assumption must be one of {ASSUMPTIONS}, got {assumption!r}")
