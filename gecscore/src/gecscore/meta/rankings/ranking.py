"""A ranking of systems (scores best first, rank ranges and clusters), shared by both methods."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gecscore.meta.judgments import Comparison

__all__ = [
    "CONFIDENCE",
    "FloatArray",
    "Ranking",
    "SystemRank",
    "rank_ranges",
]


FloatArray = npt.NDArray[np.float64]

CONFIDENCE = 0.95


@dataclass(frozen=True)
class SystemRank:
    """A system's score, its rank range (1 = best) and its cluster (1 = best group)."""

    system: str
    score: float
    rank_range: tuple[int, int] | None = None
    cluster: int | None = None


@dataclass(frozen=True)
class Ranking:
    """Systems best first under one method (``ew`` or ``trueskill``)."""

    method: str
    systems: tuple[SystemRank, ...]
    runs: int
    seed: int | None

    def scores(self) -> dict[str, float]:
        return {s.system: s.score for s in self.systems}


def _systems_of(pairs: Sequence[Comparison]) -> list[str]:
    return sorted({p.system_a for p in pairs} | {p.system_b for p in pairs})


def _rank_runs(scores: FloatArray, systems: Sequence[str]) -> npt.NDArray[np.int64]:
    """Rank (1 = best) of each system in each run: by score, then (as ``cluster.py`` sorts
    ``(mu, sigma, name)`` in reverse) the alphabetically later name first."""
    order_by_name = np.argsort(np.argsort(np.array(systems)))  # position of each name
    runs, n = scores.shape
    # lexsort sorts by the last key first: score descending, then name descending.
    ranks = np.empty((runs, n), dtype=np.int64)
    for r in range(runs):
        order = np.lexsort((-order_by_name, -scores[r]))
        ranks[r, order] = np.arange(1, n + 1)
    return ranks


def rank_ranges(
    run_scores: FloatArray, systems: Sequence[str], *, confidence: float = CONFIDENCE
) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Rank ranges and clusters from per-run scores (runs x systems), as ``cluster.py -by-rank``."""
    ranks = _rank_runs(run_scores, systems)
    runs = ranks.shape[0]
    alpha = int(math.ceil((runs - runs * confidence) / 2.0))
    mean = run_scores.mean(axis=0)
    ordered = sorted(range(len(systems)), key=lambda i: (mean[i], systems[i]), reverse=True)
    ranges: dict[str, tuple[int, int]] = {}
    for i in ordered:
        column = np.sort(ranks[:, i])
        clipped = column[alpha : runs - alpha] if alpha and runs > 2 * alpha else column
        ranges[systems[i]] = (int(clipped[0]), int(clipped[-1]))
    clusters: dict[str, int] = {}
    cluster = 1
    for position, i in enumerate(ordered):
        clusters[systems[i]] = cluster
        worst = ranges[systems[i]][1]
        below = [ranges[systems[j]][0] for j in ordered[position + 1 :]]
        if below and all(worst < best for best in below):
            cluster += 1
    return ranges, clusters


def _ranking(
    method: str,
    systems: Sequence[str],
    scores: dict[str, float],
    run_scores: FloatArray | None,
    seed: int | None,
) -> Ranking:
    ranges: dict[str, tuple[int, int]] = {}
    clusters: dict[str, int] = {}
    if run_scores is not None and run_scores.shape[0] > 1:
        ranges, clusters = rank_ranges(run_scores, systems)
    ordered = sorted(systems, key=lambda s: (scores[s], s), reverse=True)
    return Ranking(
        method=method,
        systems=tuple(SystemRank(s, scores[s], ranges.get(s), clusters.get(s)) for s in ordered),
        runs=0 if run_scores is None else int(run_scores.shape[0]),
        seed=seed,
    )
