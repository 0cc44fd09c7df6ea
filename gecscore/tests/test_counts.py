"""The one P/R/F (gecscore.counts) keeps each reference tool's arithmetic to the last bit."""

from __future__ import annotations

import random

import pytest

from gecscore.counts import WEIGHTED_ZERO, ZERO, Counts, precision_recall_f

# Betas whose square differs in the last bit between ``beta**2`` (C pow) and ``beta * beta``
# (about 1 in 1000 betas): the conventions must keep their own.
SQUARE_DIFFERS = [0.41767505768282687, 0.5710182345156413, 0.9335563978199609, 1.2981231888547722]
BETAS = [0.5, 1.0, 0.3, 2.0, *SQUARE_DIFFERS]
_RNG = random.Random(12)
COUNTS = [(0, 0, 0), (0, 0, 5), (0, 3, 0), (3, 0, 0), (1, 2, 3), (7, 1, 9), (12, 4, 2)] + [
    (_RNG.randint(0, 60), _RNG.randint(0, 60), _RNG.randint(0, 60)) for _ in range(60)
]


def cherrant_compute_prf(tp: float, fp: float, fn: float, beta: float) -> tuple[float, ...]:
    # ChERRANT / errant compare_m2.computeFScore as written there, without its rounding (PT-M2
    # reports these unrounded, with weighted counts).
    p = float(tp) / (tp + fp) if fp else 1.0
    r = float(tp) / (tp + fn) if fn else 1.0
    f = float((1 + (beta**2)) * p * r) / (((beta**2) * p) + r) if p + r else 0.0
    return p, r, f


def m2scorer_prf(correct: float, proposed: float, gold: float, beta: float) -> tuple[float, ...]:
    # m2scorer 3.2 levenshtein.py: P, R, then F from them.
    p = correct / proposed if proposed else 1.0
    r = correct / gold if gold else 1.0
    f = (1.0 + beta * beta) * p * r / (beta * beta * p + r) if (beta * beta * p + r) else 0.0
    return p, r, f


def ieval_prf(tp: int, fp: int, fn: int, beta: float) -> tuple[float, ...]:
    # mfelice/imeasure ieval.py.
    p = tp / (tp + fp) if tp + fp > 0 else 1.0
    r = tp / (tp + fn) if tp + fn > 0 else 1.0
    d = beta**2 * p + r
    f = (1 + beta**2) * (p * r / d) if d else 0.0
    return p, r, f


def test_betas_tell_the_squarings_apart() -> None:
    assert all(beta**2 != beta * beta for beta in SQUARE_DIFFERS)


@pytest.mark.parametrize("beta", BETAS)
def test_errant_convention_is_cherrant_compute_prf(beta: float) -> None:
    for tp, fp, fn in COUNTS:
        expected = cherrant_compute_prf(tp, fp, fn, beta)
        assert Counts(tp, fp, fn).prf(beta) == expected
        assert Counts(tp, fp, fn).prf(beta, digits=4) == tuple(round(v, 4) for v in expected)
        weighted = (tp * 0.37, fp * 0.11, fn * 0.93)
        assert Counts(*weighted).prf(beta) == cherrant_compute_prf(*weighted, beta)


@pytest.mark.parametrize("beta", BETAS)
def test_m2scorer_convention_is_m2scorer(beta: float) -> None:
    for tp, fp, fn in COUNTS:
        got = Counts.from_totals(tp, tp + fp, tp + fn).prf(beta, convention="m2scorer")
        assert got == m2scorer_prf(tp, tp + fp, tp + fn, beta)


@pytest.mark.parametrize("beta", BETAS)
def test_imeasure_convention_is_ieval(beta: float) -> None:
    for tp, fp, fn in COUNTS:
        assert Counts(tp, fp, fn).prf(beta, convention="imeasure") == ieval_prf(tp, fp, fn, beta)


def test_weighted_totals_are_used_as_given() -> None:
    # PT-M2 on the lattice sums proposed weights on their own: tp + fp may round differently.
    correct, proposed, gold = 0.1 + 0.2, 0.7, 0.9
    p, r, _ = precision_recall_f(correct, proposed, gold, convention="m2scorer")
    assert (p, r) == (correct / proposed, correct / gold)


def test_zero_division_conventions() -> None:
    for convention in ("errant", "m2scorer", "imeasure"):
        assert ZERO.prf(convention=convention) == (1.0, 1.0, 1.0)  # type: ignore[arg-type]
        assert Counts(0, 0, 5).prf(convention=convention) == (1.0, 0.0, 0.0)  # type: ignore[arg-type]
        assert Counts(0, 3, 0).prf(convention=convention) == (0.0, 1.0, 0.0)  # type: ignore[arg-type]


def test_unknown_convention_is_refused() -> None:
    with pytest.raises(ValueError, match="convention"):
        Counts(1, 1, 1).prf(convention="sacrebleu")  # type: ignore[arg-type]


def test_counts_add_up_and_keep_their_number_type() -> None:
    sentences = [Counts(1, 2, 3), Counts(4, 0, 1), Counts(0, 5, 0)]
    total = Counts.sum(sentences, ZERO)
    assert total == Counts(5, 7, 4)
    assert (total.proposed, total.gold) == (12, 9)
    assert repr(Counts.sum([], ZERO)) == "Counts(tp=0, fp=0, fn=0)"
    assert repr(Counts.sum([], WEIGHTED_ZERO)) == "Counts(tp=0.0, fp=0.0, fn=0.0)"
    weighted = Counts.sum([Counts(0.5, 0.25, 1.0), Counts(0.1, 0.2, 0.0)], WEIGHTED_ZERO)
    assert weighted == Counts(0.5 + 0.1, 0.25 + 0.2, 1.0 + 0.0)
    assert Counts.from_totals(2, 3, 4) == Counts(2, 1, 2)


def test_counts_are_immutable_values() -> None:
    counts = Counts(1, 2, 3)
    with pytest.raises(AttributeError):
        counts.tp = 5  # type: ignore[misc]
    assert {counts: "x"}[Counts(1, 2, 3)] == "x"
    assert counts != (1, 2, 3)
