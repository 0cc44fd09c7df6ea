"""Dynamic assignment of human judgments: which pair of systems the next judgment should compare
so that the ranking, above all of the current top systems, settles with the fewest judgments.

The rule (an uncertainty-sampling rule on Expected Wins, the ranking the product reports):

* Every pair of systems (a, b) has a win probability, estimated by its share of the decided
  judgments so far (ties decide nothing, as in Expected Wins), with the variance of a
  Beta(1 + wins, 1 + losses) posterior. A system's Expected Wins is the mean of its win
  probabilities against the others; its variance is the sum of the pair variances over
  (S - 1)^2.
* Any two systems u, v may still be in the wrong order by more than a tolerance t (0.01 of
  Expected Wins) with probability m(u, v) = Phi(-(|EW_u - EW_v| + t) / sd(u, v)),
  sd(u, v)^2 = var_u + var_v.
* One more judgment of (a, b) shrinks the variance of a's and b's Expected Wins by d(a, b)
  (the drop of the pair's posterior variance over (S - 1)^2). Its value is
  d(a, b) * (P_a + P_b), where P_x = sum over v of weight(x, v) * m(x, v) / sd(x, v)^2: the
  first-order drop of the misordered pairs' probability mass, each pair's shrink taken
  relative to its spread. Pairs already far apart (m near 0) count for nothing; near ties
  count most. A pair weighs ``TOP_WEIGHT`` (100) when one of its systems has fewer than k
  systems strictly ahead (the top k), 1 otherwise: the top systems get nearly all judgments;
  the rest of the ranking settles more slowly than under uniform assignment.

This is the "equivalent rule" to TrueSkill's sigma of the top k: an online TrueSkill (tau = 0)
was tried first and lost to uniform assignment by 3-18x in ``benchmarks/judging_sim.py``,
because its beliefs become confident after the first, noisy judgments and a rule that
concentrates judgments then keeps confirming them. A Beta posterior per pair never forgets
what uniform assignment would have learned.

A cold start is uniform: with no judgments every pair has the same value, and ties are broken
at random (seeded). An item judged enough is never offered again (the caller drops it).
Items of several outputs are valued as the sum over the pairs of distinct outputs they show
(:func:`item_priorities`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gecscore.meta.rankings._trueskill_math import _cdf  # the normal CDF, vectorised

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = [
    "DEFAULT_TOP_K",
    "TOLERANCE",
    "TOP_WEIGHT",
    "PairCounts",
    "choose_pairs",
    "expected_wins_estimate",
    "item_priorities",
    "pair_priority",
]

DEFAULT_TOP_K = 3
# How much more a gap that decides the top k weighs than one below it. Large: the rule is for
# the top of the ranking, and the rest settles only as a side effect. benchmarks/judging_sim.py
# measured 4, 20, 100 and 1000 on GJG15 and SEEDA (60 seeds): from 20 up the top 3 settle in
# 0.6-0.8 of uniform assignment's judgments, at 4 in 0.9-1.3; docs/benchmarks.md has the figures.
TOP_WEIGHT = 100.0
# Two systems closer than this in Expected Wins count as tied: the rule stops spending
# judgments on them once they are known to be that close (GJG15's second and third systems are
# 0.005 apart, which no campaign of realistic size resolves).
TOLERANCE = 0.01


class PairCounts:
    """Decided judgments per ordered pair: ``wins[r, a, b]`` = times a beat b in run r (runs
    are simulation seeds; the platform uses one run)."""

    def __init__(self, systems: int, runs: int = 1) -> None:
        self.wins: FloatArray = np.zeros((runs, systems, systems))

    def add(self, winner: IntArray, loser: IntArray, decided: npt.NDArray[np.bool_]) -> None:
        """One judgment per run: ``winner[r]`` beat ``loser[r]`` where ``decided[r]`` (a tie
        adds nothing, as in Expected Wins)."""
        runs = np.arange(self.wins.shape[0])
        np.add.at(self.wins, (runs, winner, loser), decided.astype(float))


def _posterior(wins: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(estimate, variance, variance after one more judgment) of every pair's win
    probability. The estimate is the observed share of wins (0.5 for a pair never decided),
    not the posterior mean: a prior pulls the pairs judged least toward 0.5, and those are
    exactly the pairs a focused rule judges least, which would bias their systems' Expected
    Wins. The variances are the Beta(1 + wins, 1 + losses) posterior's, so a pair judged once
    is not taken as settled."""
    losses = np.swapaxes(wins, 1, 2)
    decided = wins + losses
    estimate = np.divide(wins, decided, out=np.full_like(wins, 0.5), where=decided > 0)
    alpha = wins + 1.0
    beta = losses + 1.0
    total = alpha + beta
    variance = alpha * beta / (total * total * (total + 1.0))
    after = alpha * beta / (total * total * (total + 2.0))
    return estimate, variance, after


def expected_wins_estimate(counts: PairCounts) -> tuple[FloatArray, FloatArray]:
    """(Expected Wins, its variance), runs x systems, from the pairs' posterior means."""
    mean, variance, _ = _posterior(counts.wins)
    s = counts.wins.shape[1]
    off = ~np.eye(s, dtype=bool)
    ew = (mean * off).sum(axis=2) / (s - 1)
    var = (variance * off).sum(axis=2) / ((s - 1) ** 2)
    return ew, var


def pair_priority(counts: PairCounts, a: IntArray, b: IntArray, *, top_k: int) -> FloatArray:
    """The rule's value of candidate pairs (a[p], b[p]) in every run: pairs x runs."""
    s = counts.wins.shape[1]
    _, variance, after = _posterior(counts.wins)
    ew, var = expected_wins_estimate(counts)  # runs x systems
    # every two systems u, v may still be in the wrong order with probability m(u, v)
    sd2 = var[:, :, None] + var[:, None, :]
    misorder = _cdf(-(np.abs(ew[:, :, None] - ew[:, None, :]) + TOLERANCE) / np.sqrt(sd2))
    # a pair weighs TOP_WEIGHT when one side has fewer than k systems strictly ahead of it
    # (tied systems share a place, so at a cold start every pair counts alike)
    ahead = (ew[:, None, :] > ew[:, :, None]).sum(axis=2)
    in_top = ahead < top_k
    weight = np.where(in_top[:, :, None] | in_top[:, None, :], TOP_WEIGHT, 1.0)
    pressure = misorder * weight / sd2
    idx = np.arange(s)
    pressure[:, idx, idx] = 0.0
    per_system = pressure.sum(axis=2)  # runs x systems: what shrinking the system's sd is worth
    # judging (a, b) once more shrinks the variance of a's and b's Expected Wins by this much
    drop = (variance[:, a, b] - after[:, a, b]) / ((s - 1) ** 2)  # runs x pairs
    value: FloatArray = (drop * (per_system[:, a] + per_system[:, b])).T
    return value


def choose_pairs(
    counts: PairCounts,
    a: IntArray,
    b: IntArray,
    rng: np.random.Generator,
    *,
    top_k: int = DEFAULT_TOP_K,
) -> IntArray:
    """Per run, the index of the candidate pair to judge next (ties broken at random)."""
    value = pair_priority(counts, a, b, top_k=top_k)
    # values within a relative 1e-9 of the best are ties (sums in another order differ in the
    # last bits); one of them is drawn at random
    best = value.max(axis=0, keepdims=True)
    tied = value >= best - 1e-9 * np.abs(best)
    chosen: IntArray = np.argmax(np.where(tied, 1.0 + rng.random(value.shape), 0.0), axis=0)
    return chosen


def item_priorities(
    judged: Sequence[tuple[str, str, str]],
    items: Sequence[Sequence[Sequence[str]]],
    *,
    systems: Sequence[str] = (),
    top_k: int = DEFAULT_TOP_K,
) -> list[float]:
    """The value of each candidate item. ``judged`` lists the campaign's pairwise judgments so
    far as (system a, system b, relation) with relation ``<`` (a better), ``>`` or ``=``;
    ``items[i]`` lists the outputs item i shows, each as the systems that produced it (equal
    outputs merged); ``systems`` adds systems not judged yet. An item's value is the sum of
    :func:`pair_priority` over the system pairs across its distinct outputs."""
    names = sorted(
        {s for item in items for output in item for s in output}
        | {s for a, b, _ in judged for s in (a, b)}
        | set(systems)
    )
    index = {name: i for i, name in enumerate(names)}
    counts = PairCounts(len(names))
    for a, b, relation in judged:
        if relation == "<":
            counts.wins[0, index[a], index[b]] += 1
        elif relation == ">":
            counts.wins[0, index[b], index[a]] += 1
    pairs: dict[tuple[int, int], int] = {}
    for item in items:
        for x, one in enumerate(item):
            for other in item[x + 1 :]:
                for s in one:
                    for t in other:
                        pairs.setdefault((index[s], index[t]), len(pairs))
    if len(names) < 2 or not pairs:
        return [0.0 for _ in items]
    keys = list(pairs)
    value = pair_priority(
        counts, np.array([k[0] for k in keys]), np.array([k[1] for k in keys]), top_k=top_k
    )[:, 0]
    out: list[float] = []
    for item in items:
        total = 0.0
        for x, one in enumerate(item):
            for other in item[x + 1 :]:
                total += sum(float(value[pairs[(index[s], index[t])]]) for s in one for t in other)
        out.append(total)
    return out
