"""Summable edit counts and THE precision / recall / F of every metric in the library.

Sufficient statistics are summed first (per sentence, then over the corpus) and the scores
are computed from the sums, so corpus and sentence level come from the same counts. Counts
may be integers (ChERRANT, errant, m2scorer, I-measure) or floats (PT-M2 and CLEME weights).

Every metric reproduces a reference tool to the last printed digit, and the tools do not
write the same float expressions, so the one function has three named conventions; each
keeps its tool's arithmetic exactly (``beta**2`` and ``beta * beta`` differ in the last bit
for some betas, and so does the grouping of the F's products):

* ``"errant"`` (ChERRANT, errant, CLEME, PT-M2 on char/word edits):
  ``F = (1 + b**2) * P * R / (b**2 * P + R)``, 0 when ``P + R`` is 0.
* ``"m2scorer"`` (m2scorer 3.2, PT-M2 on the MaxMatch lattice):
  ``F = (1.0 + b*b) * P * R / (b*b * P + R)``, 0 when that denominator is 0.
* ``"imeasure"`` (mfelice/imeasure): ``F = (1 + b**2) * (P * R / (b**2 * P + R))``, 0 when
  the denominator is 0.

All three agree on the zero divisions: P is 1.0 when nothing was proposed (no TP and no FP),
R is 1.0 when there is nothing to find (no TP and no FN). With non-negative counts, "P = 1
when FP = 0" (ChERRANT's test) is the same number, since ``tp / tp`` is exactly 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, Literal, TypeVar

from gecscore.errors import OptionError
from gecscore.options import check_beta

__all__ = [
    "CONVENTIONS",
    "WEIGHTED_ZERO",
    "ZERO",
    "Counts",
    "check_beta",
    "f_key",
    "f_label",
    "precision_recall_f",
]

N = TypeVar("N", int, float)
Convention = Literal["errant", "m2scorer", "imeasure"]


CONVENTIONS = ("errant", "m2scorer", "imeasure")


def f_label(beta: float) -> str:
    """The F column's header as ChERRANT and errant_compare print it: ``"F" + str(beta)`` of
    a float (``F0.5``, ``F1.0``, ``F2.0``, ``F0.75``)."""
    return "F" + str(float(beta))


def f_key(beta: float) -> str:
    """The JSON key of the F score at ``beta`` in every command's output: ``f05`` at beta 0.5,
    ``f`` at any other beta (the object then says which in its ``beta`` field)."""
    return "f05" if beta == 0.5 else "f"


def precision_recall_f(
    matched: float,
    proposed: float,
    gold: float,
    beta: float = 0.5,
    *,
    convention: Convention = "errant",
    digits: int | None = None,
) -> tuple[float, float, float]:
    """P, R and F-beta from matched, proposed (TP + FP) and gold (TP + FN) totals.

    Takes totals rather than FP/FN because weighted metrics on the MaxMatch lattice sum the
    proposed and gold weights on their own (``tp + fp`` would round differently); ``Counts.prf``
    is the usual door. ``digits`` rounds all three (ChERRANT and CLEME round to 4 before
    comparing references, so the rounding is part of the metric).
    """
    p = matched / proposed if proposed else 1.0
    r = matched / gold if gold else 1.0
    if convention == "errant":
        sq_beta = beta**2
        f = (1 + sq_beta) * p * r / (sq_beta * p + r) if p + r else 0.0
    elif convention == "m2scorer":
        sq_beta = beta * beta
        denominator = sq_beta * p + r
        f = (1.0 + sq_beta) * p * r / denominator if denominator else 0.0
    elif convention == "imeasure":
        sq_beta = beta**2
        denominator = sq_beta * p + r
        f = (1 + sq_beta) * (p * r / denominator) if denominator else 0.0
    else:
        raise OptionError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    if digits is not None:
        return round(p, digits), round(r, digits), round(f, digits)
    return p, r, f


class Counts(Generic[N]):
    """TP / FP / FN of one sentence or a whole corpus; ``+`` and ``Counts.sum`` add them.

    ``Counts[int]`` for edit counts, ``Counts[float]`` for weighted ones. Start sums from
    ``ZERO`` or ``WEIGHTED_ZERO``: the type of the zero shows in printed counts (``0`` or
    ``0.0``). Immutable and hashable like a frozen dataclass.
    """

    __slots__ = ("tp", "fp", "fn")
    tp: N
    fp: N
    fn: N

    def __init__(self, tp: N, fp: N, fn: N) -> None:
        object.__setattr__(self, "tp", tp)
        object.__setattr__(self, "fp", fp)
        object.__setattr__(self, "fn", fn)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Counts is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return (self.tp, self.fp, self.fn) == (other.tp, other.fp, other.fn)

    def __hash__(self) -> int:
        return hash((self.tp, self.fp, self.fn))

    def __repr__(self) -> str:
        return f"Counts(tp={self.tp!r}, fp={self.fp!r}, fn={self.fn!r})"

    @staticmethod
    def from_totals(tp: int, proposed: int, gold: int) -> Counts[int]:
        """Counts from m2scorer's CORRECT / PROPOSED / GOLD (integers: exact)."""
        return Counts(tp, proposed - tp, gold - tp)

    @staticmethod
    def sum(items: Iterable[Counts[N]], start: Counts[N]) -> Counts[N]:
        """Left-to-right sum from ``start`` (the order a running total adds them in)."""
        total = start
        for item in items:
            total = total + item
        return total

    @property
    def proposed(self) -> N:
        return self.tp + self.fp

    @property
    def gold(self) -> N:
        return self.tp + self.fn

    def __add__(self, other: Counts[N]) -> Counts[N]:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def prf(
        self,
        beta: float = 0.5,
        *,
        convention: Convention = "errant",
        digits: int | None = None,
    ) -> tuple[float, float, float]:
        """P, R, F-beta of these counts (see ``precision_recall_f``)."""
        return precision_recall_f(
            self.tp,
            self.tp + self.fp,
            self.tp + self.fn,
            beta,
            convention=convention,
            digits=digits,
        )

    def f_score(
        self,
        beta: float = 0.5,
        *,
        convention: Convention = "errant",
        digits: int | None = None,
    ) -> float:
        return self.prf(beta, convention=convention, digits=digits)[2]


ZERO: Counts[int] = Counts(0, 0, 0)
WEIGHTED_ZERO: Counts[float] = Counts(0.0, 0.0, 0.0)
