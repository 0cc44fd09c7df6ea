"""I-measure's token counts (TP, TN, FP, FN, FPN per aspect) and the scores made from them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gecscore.counts import precision_recall_f

__all__ = [
    "AspectCounts",
    "AspectScores",
    "SentenceCounts",
    "ZERO",
    "improvement",
]


@dataclass(frozen=True)
class AspectCounts:
    """Token counts of one aspect (detection or correction)."""

    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0
    fpn: int = 0  # tokens that are both an FP and an FN (correction only)

    def __add__(self, other: AspectCounts) -> AspectCounts:
        return AspectCounts(
            self.tp + other.tp,
            self.tn + other.tn,
            self.fp + other.fp,
            self.fn + other.fn,
            self.fpn + other.fpn,
        )

    def prf(self, beta: float) -> tuple[float, float, float]:
        # ieval.py's arithmetic: the "imeasure" convention of the library's one P/R/F.
        return precision_recall_f(
            self.tp, self.tp + self.fp, self.tp + self.fn, beta, convention="imeasure"
        )

    def f_score(self, beta: float) -> float:
        return self.prf(beta)[2]

    def accuracy(self) -> float:
        denominator = self.tp + self.tn + self.fp + self.fn - self.fpn
        # No token at all (an empty source, hypothesis and reference): the reference divides by
        # zero; here there was nothing to do and nothing was done.
        return (self.tp + self.tn) / denominator if denominator else 1.0

    def weighted_accuracy(self, weight: float) -> float:
        # Operation order of the reference (the values are exact in binary anyway).
        numerator = weight * self.tp + self.tn
        denominator = (
            weight * (self.tp + self.fp) + self.tn + self.fn - (weight + 1) * (self.fpn / 2)
        )
        return numerator / denominator if denominator else 1.0  # no token at all


def improvement(wacc_sys: float, wacc_base: float) -> float:
    """I: relative WAcc improvement over the baseline, in [-1, 1]."""
    if wacc_sys == wacc_base:
        return float(math.floor(wacc_sys))
    if wacc_sys > wacc_base:
        return (wacc_sys - wacc_base) / (1.0 - wacc_base)
    return wacc_sys / wacc_base - 1.0


@dataclass(frozen=True)
class SentenceCounts:
    """Detection and correction counts of one hypothesis against one reference."""

    detection: AspectCounts
    correction: AspectCounts

    def __add__(self, other: SentenceCounts) -> SentenceCounts:
        return SentenceCounts(self.detection + other.detection, self.correction + other.correction)


ZERO = SentenceCounts(AspectCounts(), AspectCounts())


@dataclass(frozen=True)
class AspectScores:
    counts: AspectCounts
    base: AspectCounts
    p: float
    r: float
    f: float
    acc: float
    acc_base: float
    wacc: float
    wacc_base: float
    i: float

    @classmethod
    def of(
        cls, counts: AspectCounts, base: AspectCounts, *, weight: float, beta: float
    ) -> AspectScores:
        wacc = counts.weighted_accuracy(weight)
        wacc_base = base.weighted_accuracy(weight)
        return cls(
            counts,
            base,
            *counts.prf(beta),
            counts.accuracy(),
            base.accuracy(),
            wacc,
            wacc_base,
            improvement(wacc, wacc_base),
        )

    def key(self) -> tuple[float, float, float]:
        """What the reference maximises for this aspect (WAcc, then I, then accuracy)."""
        return (self.wacc, self.i, self.acc)
