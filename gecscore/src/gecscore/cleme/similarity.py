"""Similarity-weighted chunk counts for CLEME2.0-sim (reference: CLEME HEAD e90abea,
``core/evaluation/weighers/weigher_similarity.py``, ``get_weights_batch``).

The weight of a TP or FP chunk is how much correcting only that chunk as the hypothesis does
moves the source towards the reference: |F(source with the chunk replaced, reference) -
F(source, reference)| with BERTScore F; a FN chunk uses the reference's tokens for the chunk
instead; TN chunks weigh 1. Any ``EditWeightProvider`` (``gecscore.weights``) computes the
numbers: the BERTScore one, or ``SelfWeights`` (every weight 1, i.e. the unweighted counts).
Under the independent assumption the same outcomes are weighted against each reference in
turn, as HEAD does, and the corpus/sentence scorers then pick the best reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gecscore.cleme.evaluate import ChunkEvaluation
from gecscore.cleme.partition import Partition
from gecscore.cleme.weighting import WeightedCounts

if TYPE_CHECKING:
    # The weights package imports torch on import (seconds); only the weighted path needs it.
    from gecscore.weights.base import EditWeightProvider, ProgressCallback, WeightRequest

__all__ = [
    "JOINER",
    "similarity_counts",
]

# HEAD joins tokens with a space for every language (M2 text); BERT tokenizers split Chinese
# into characters either way.
JOINER = " "


def _with_chunk(partition: Partition, row: int, chunk: int) -> str:
    """The source with only ``chunk`` taken from correction ``row``."""
    tokens: list[str] = []
    source = partition.source
    for i, span in enumerate(partition.spans):
        tokens.extend(partition.tokens[row][i] if i == chunk else source[span.start : span.end])
    return JOINER.join(token for token in tokens if token)


@dataclass(slots=True)
class _Pending:
    """Where each request's weight goes: (sentence, reference, outcome, fp necessary?)."""

    sentence: int
    reference: int
    outcome: str
    necessary: bool


def similarity_counts(
    evaluation: ChunkEvaluation,
    provider: EditWeightProvider,
    *,
    progress: ProgressCallback | None = None,
) -> list[list[WeightedCounts]]:
    """Per sentence, per reference: counts with similarity weights (one provider call)."""
    from gecscore.weights.base import WeightRequest

    requests: list[WeightRequest] = []
    pending: list[_Pending] = []
    shape: list[list[int]] = []  # TN count per (sentence, reference)
    for s, sentence in enumerate(evaluation.sentences):
        chunks = sentence.partition
        source = JOINER.join(chunks.source)
        n_refs = len(chunks.tokens) - 1
        tallies = (
            sentence.tallies
            if evaluation.assumption == "dependent"
            else sentence.tallies * n_refs  # the same outcomes against each reference
        )
        tn_row: list[int] = []
        for k, tally in enumerate(tallies):
            row = k + 1
            reference = JOINER.join(token for cell in chunks.tokens[row] for token in cell)
            outcomes: list[tuple[int, int, str, bool]] = [(i, 0, "tp", False) for i in tally.tp]
            outcomes += [
                (i, 0, "fp", necessary)
                for i, necessary in zip(tally.fp, tally.fp_necessary, strict=True)
            ]
            outcomes += [(i, row, "fn", False) for i in tally.fn]
            for chunk, from_row, outcome, necessary in outcomes:
                # An empty pseudo-hypothesis becomes the source (weight 0), as in HEAD.
                edited = _with_chunk(chunks, from_row, chunk) or source
                requests.append(WeightRequest(source, edited, reference))
                pending.append(_Pending(s, k, outcome, necessary))
            tn_row.append(tally.tn)
        shape.append(tn_row)
    weights = provider.weights(requests, progress=progress) if requests else []
    if len(weights) != len(requests):
        raise ValueError(
            f"the weight provider returned {len(weights)} weights for {len(requests)} chunks"
        )
    sums = [[[0.0, 0.0, 0.0, 0.0, 0.0] for _ in row] for row in shape]  # tp fp fn ne un
    for where, weight in zip(pending, weights, strict=True):
        cell = sums[where.sentence][where.reference]
        if where.outcome == "tp":
            cell[0] += weight
        elif where.outcome == "fp":
            cell[1] += weight
            cell[3 if where.necessary else 4] += weight
        else:
            cell[2] += weight
    return [
        [
            WeightedCounts(tp, fp, fn, float(tn), ne, un)
            for (tp, fp, fn, ne, un), tn in zip(row_sums, tn_row, strict=True)
        ]
        for row_sums, tn_row in zip(sums, shape, strict=True)
    ]
