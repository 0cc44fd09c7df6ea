"""Length weighting of chunks (CLEME section 3.3) and weighted sufficient statistics.

A TP or FN chunk longer than the average corrected chunk counts more, a long FP counts less:
w(l) = clip(a / (1 + (a - 1) * exp(-(l - b))), min, max), the FP mirror uses exp(+(l - b)),
TN chunks weigh 1. ``l`` is the hypothesis chunk's max(#source, #target tokens) and ``b`` the
mean of that length over every changed chunk of every reference (``mean_corrected_length``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal, NamedTuple

from gecscore.cleme.counting import Assumption, ChunkTally, LengthTally
from gecscore.cleme.partition import Partition
from gecscore.counts import precision_recall_f
from gecscore.errors import OptionError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "CORPUS_WEIGHTING",
    "LEVELS",
    "LengthWeigher",
    "LengthWeight",
    "LengthWeighting",
    "Level",
    "NO_WEIGHTING",
    "SENTENCE_DEPENDENT_WEIGHTING",
    "SENTENCE_INDEPENDENT_WEIGHTING",
    "WeightedCounts",
    "default_weighting",
    "length_weighted_counts",
    "unweighted_counts",
    "weighted_length_counts",
]

Level = Literal["corpus", "sentence"]
LEVELS: tuple[Level, ...] = ("corpus", "sentence")


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class LengthWeight(NamedTuple):
    """Sigmoid weight of one outcome: scale ``alpha``, clipped to ``[min_value, max_value]``."""

    alpha: float
    min_value: float
    max_value: float

    def __call__(self, length: int, bias: float, *, reverse: bool = False) -> float:
        exponent = length - bias if reverse else bias - length
        weight = self.alpha * (1 / (1 + (self.alpha - 1) * math.exp(exponent)))
        return min(max(weight, self.min_value), self.max_value)

    def describe(self) -> str:
        return f"{self.alpha:g}[{self.min_value:g},{self.max_value:g}]"


class LengthWeighting(NamedTuple):
    """Weights of TP, FP and FN chunks (the FP weight is the mirrored sigmoid)."""

    tp: LengthWeight
    fp: LengthWeight
    fn: LengthWeight

    def describe(self) -> str:
        return f"tp={self.tp.describe()},fp={self.fp.describe()},fn={self.fn.describe()}"


def _uniform(alpha: float, low: float, high: float) -> LengthWeighting:
    weight = LengthWeight(alpha, low, high)
    return LengthWeighting(weight, weight, weight)


# The reference's defaults (v1.0 cleme/constants.py, the CLEME paper's settings).
CORPUS_WEIGHTING = _uniform(2.0, 0.75, 1.25)
SENTENCE_DEPENDENT_WEIGHTING = LengthWeighting(
    LengthWeight(10.0, 1.0, 10.0), LengthWeight(10.0, 0.25, 1.0), LengthWeight(10.0, 1.0, 1.0)
)
SENTENCE_INDEPENDENT_WEIGHTING = LengthWeighting(
    LengthWeight(10.0, 2.5, 10.0), LengthWeight(10.0, 0.25, 1.0), LengthWeight(10.0, 1.0, 1.0)
)
NO_WEIGHTING = _uniform(1.0, 1.0, 1.0)


def default_weighting(level: Level, assumption: Assumption) -> LengthWeighting:
    """The table of spec section 4 (v1.0 applies it; HEAD always uses the corpus row)."""
    if level == "corpus":
        return CORPUS_WEIGHTING
    if level == "sentence":
        if assumption == "dependent":
            return SENTENCE_DEPENDENT_WEIGHTING
        return SENTENCE_INDEPENDENT_WEIGHTING
    raise OptionError(f"level must be one of {LEVELS}, got {level!r}")


class WeightedCounts(NamedTuple):
    """Weighted sufficient statistics of one sentence against one reference (or a total)."""

    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    tn: float = 0.0
    fp_ne: float = 0.0
    fp_un: float = 0.0

    def __add__(self, other: WeightedCounts) -> WeightedCounts:  # type: ignore[override]  # sum, not concat
        return WeightedCounts(
            self.tp + other.tp,
            self.fp + other.fp,
            self.fn + other.fn,
            self.tn + other.tn,
            self.fp_ne + other.fp_ne,
            self.fp_un + other.fp_un,
        )

    def prf(self, beta: float = 0.5) -> tuple[float, float, float]:
        """CLEME's P/R/F: ChERRANT's conventions (``gecscore.counts``), rounded to 4 decimals."""
        return precision_recall_f(self.tp, self.tp + self.fp, self.tp + self.fn, beta, digits=4)


def unweighted_counts(tally: ChunkTally) -> WeightedCounts:
    """Plain chunk counts (what CLEME2.0 reports as 'unweighted')."""
    ne = sum(1 for flag in tally.fp_necessary if flag)
    return WeightedCounts(
        float(len(tally.tp)),
        float(len(tally.fp)),
        float(len(tally.fn)),
        float(tally.tn),
        float(ne),
        float(len(tally.fp) - ne),
    )


class LengthWeigher:
    """A weighting table with a fixed ``b``; weights are memoised per (integer) length."""

    def __init__(self, weighting: LengthWeighting, bias: float) -> None:
        self.weighting = weighting
        self.bias = bias
        self._tp: dict[int, float] = {}
        self._fp: dict[int, float] = {}
        self._fn: dict[int, float] = {}

    def tp(self, length: int) -> float:
        weight = self._tp.get(length)
        if weight is None:
            weight = self._tp[length] = self.weighting.tp(length, self.bias)
        return weight

    def fp(self, length: int) -> float:
        weight = self._fp.get(length)
        if weight is None:
            weight = self._fp[length] = self.weighting.fp(length, self.bias, reverse=True)
        return weight

    def fn(self, length: int) -> float:
        weight = self._fn.get(length)
        if weight is None:
            weight = self._fn[length] = self.weighting.fn(length, self.bias)
        return weight


def length_weighted_counts(
    partition: Partition, tally: ChunkTally, weigher: LengthWeigher
) -> WeightedCounts:
    """Counts with every TP/FP/FN chunk weighted by the hypothesis chunk's length.

    Sums run in chunk order, as the reference adds them, so totals match it to the last bit.
    """
    # partition.chunk_length(0, i), inlined: this runs for every counted chunk of a corpus.
    spans = partition.spans
    hyp_tokens = partition.tokens[0]

    def lengths(indices: Sequence[int]) -> list[int]:
        return [max(spans[i][1] - spans[i][0], len(hyp_tokens[i])) for i in indices]

    by_length = LengthTally(
        lengths(tally.tp), lengths(tally.fp), list(tally.fp_necessary), lengths(tally.fn), tally.tn
    )
    return weighted_length_counts(by_length, weigher)


def weighted_length_counts(tally: LengthTally, weigher: LengthWeigher) -> WeightedCounts:
    """``length_weighted_counts`` of a tally that already holds the chunk lengths (the same
    sums in the same order, so the same totals to the last bit)."""
    tp_weights, fp_weights, fn_weights = weigher._tp, weigher._fp, weigher._fn
    tp = 0.0
    for length in tally.tp:
        weight = tp_weights.get(length)
        tp += weigher.tp(length) if weight is None else weight
    fp = fp_ne = fp_un = 0.0
    for length, necessary in zip(tally.fp, tally.fp_necessary, strict=True):
        weight = fp_weights.get(length)
        if weight is None:
            weight = weigher.fp(length)
        fp += weight
        if necessary:
            fp_ne += weight
        else:
            fp_un += weight
    fn = 0.0
    for length in tally.fn:
        weight = fn_weights.get(length)
        fn += weigher.fn(length) if weight is None else weight
    return WeightedCounts(tp, fp, fn, float(tally.tn), fp_ne, fp_un)
