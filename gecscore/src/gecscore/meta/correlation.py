"""System-level meta-evaluation: Pearson and Spearman correlation of metric scores with human
scores, Williams' test for the difference of two dependent correlations, bootstrap confidence
intervals (over systems, or over sentences), and SEEDA's window analysis.

No scipy: Pearson and Spearman (average ranks for ties) are a few lines, and Williams' p-value
needs only Student's t distribution, computed here from the regularized incomplete beta
function (continued fraction, Numerical Recipes 6.4); tests check both against scipy's values
as SEEDA's scripts print them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gecscore.errors import InputError, OptionError

__all__ = [
    "FloatArray",
    "WilliamsResult",
    "Window",
    "average_ranks",
    "bootstrap_sentences",
    "bootstrap_systems",
    "pearson",
    "regularized_beta",
    "spearman",
    "t_survival",
    "williams",
    "williams_test",
    "window_analysis",
]

FloatArray = npt.NDArray[np.float64]


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (NaN when either side is constant)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape or a.size < 2:
        raise InputError(f"need two equally long lists of at least 2 scores ({a.size}, {b.size})")
    a = a - a.mean()
    b = b - b.mean()
    denominator = math.sqrt(float(np.dot(a, a)) * float(np.dot(b, b)))
    if denominator == 0:
        return math.nan
    return max(-1.0, min(1.0, float(np.dot(a, b)) / denominator))


def average_ranks(values: Sequence[float]) -> FloatArray:
    """Ranks 1..n, ties sharing their average rank (scipy's ``rankdata``)."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    ranks = np.empty(array.size)
    sorted_values = array[order]
    start = 0
    while start < array.size:
        end = start
        while end + 1 < array.size and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    return pearson(list(average_ranks(x)), list(average_ranks(y)))


# --- Student's t ----------------------------------------------------------------------------


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(log_front + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1 - x) / b


def t_survival(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * regularized_beta(df / 2, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


# --- Williams' test ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WilliamsResult:
    """Williams' test that metric A correlates better with humans than metric B."""

    t: float
    p: float
    r_a: float
    r_b: float
    r_ab: float
    n: int


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' t and one-tailed p that r12 > r13, given r23 and n (df = n - 3), as R's
    ``psych::r.test(n, r12, r13, r23, twotailed=FALSE)`` used by the WMT / gecmetrics scripts."""
    if n <= 3:
        raise InputError(f"Williams' test needs more than 3 systems (got {n})")
    determinant = 1 - r12 * r12 - r13 * r13 - r23 * r23 + 2 * r12 * r13 * r23
    mean = (r12 + r13) / 2
    cube = (1 - r23) ** 3
    t = (r12 - r13) * math.sqrt(
        (n - 1) * (1 + r23) / ((2 * (n - 1) / (n - 3)) * determinant + mean * mean * cube)
    )
    return t, t_survival(abs(t), n - 3)


def williams(
    human: Sequence[float], metric_a: Sequence[float], metric_b: Sequence[float]
) -> WilliamsResult:
    """Williams' test on |r|: a metric that correlates negatively is turned around first, so
    the test asks whether |r(A, human)| > |r(B, human)|."""
    r_a = pearson(human, metric_a)
    r_b = pearson(human, metric_b)
    r_ab = pearson(metric_a, metric_b)
    sign = (-1.0 if r_a < 0 else 1.0) * (-1.0 if r_b < 0 else 1.0)
    t, p = williams_test(abs(r_a), abs(r_b), sign * r_ab, len(human))
    return WilliamsResult(t=t, p=p, r_a=r_a, r_b=r_b, r_ab=r_ab, n=len(human))


# --- bootstrap --------------------------------------------------------------------------------


def _percentile_interval(values: FloatArray, confidence: float) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_systems(
    human: Sequence[float],
    metric: Sequence[float],
    *,
    statistic: Callable[[Sequence[float], Sequence[float]], float] = pearson,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile CI of the correlation when the systems are resampled with replacement
    (resamples where a side is constant are dropped)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    rng = np.random.default_rng(seed)
    values = np.empty(samples)
    for k in range(samples):
        pick = rng.integers(0, h.size, h.size)
        values[k] = statistic(list(h[pick]), list(m[pick]))
    return _percentile_interval(values, confidence)


def bootstrap_sentences(
    human: Sequence[float],
    sentence_stats: Sequence[FloatArray],
    aggregate: Callable[[FloatArray, int], float],
    *,
    statistic: Callable[[Sequence[float], Sequence[float]], float] = pearson,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile CI of the correlation when the test sentences are resampled: each system's
    score is recomputed by ``aggregate(column sums, number of sentences)`` from its
    per-sentence statistics (``sentence_stats[i]``: sentences x k, e.g. TP/proposed/gold, or one
    column of sentence scores with the mean as aggregate). The same sentence sample is used for
    every system."""
    rows = {stats.shape[0] for stats in sentence_stats}
    if len(rows) != 1:
        raise InputError(f"every system needs the same number of sentences (got {sorted(rows)})")
    n_sentences = rows.pop()
    rng = np.random.default_rng(seed)
    values = np.empty(samples)
    for k in range(samples):
        pick = rng.integers(0, n_sentences, n_sentences)
        metric = [aggregate(stats[pick].sum(axis=0), n_sentences) for stats in sentence_stats]
        values[k] = statistic(human, metric)
    return _percentile_interval(values, confidence)


# --- window analysis ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """Correlation over the systems ranked ``start``..``end`` (1-based) by the humans."""

    start: int
    end: int
    systems: tuple[str, ...]
    pearson: float
    spearman: float


def window_analysis(
    systems: Sequence[str], human: Sequence[float], metric: Sequence[float], window: int
) -> list[Window]:
    """SEEDA's ``window_analysis_system.py``: systems sorted by human score, best first
    (``np.argsort(human)[::-1]``, so equal human scores come in reverse input order), and the
    correlations over each run of ``window`` adjacent systems."""
    if not 2 <= window <= len(systems):
        raise OptionError(f"window must be between 2 and {len(systems)} systems (got {window})")
    order = np.argsort(np.asarray(human, dtype=float))[::-1]
    h = [float(human[i]) for i in order]
    m = [float(metric[i]) for i in order]
    names = [systems[i] for i in order]
    return [
        Window(
            start=i + 1,
            end=i + window,
            systems=tuple(names[i : i + window]),
            pearson=pearson(h[i : i + window], m[i : i + window]),
            spearman=spearman(h[i : i + window], m[i : i + window]),
        )
        for i in range(len(order) - window + 1)
    ]
