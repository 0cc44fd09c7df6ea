"""What meta-evaluation adds to the library's system report: the window size, Pearson's
interval over resampled test sentences, Williams' tests against the best metric."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from datasets.models import DatasetVersion
from gecscore import Counts, bootstrap_sentences, williams
from scoring.models import (
    MetaEvaluation,
    ScoreStatus,
    SentenceResult,
)

# Williams' p below this marks a metric as significantly worse than the best one.
SIGNIFICANCE_LEVELS = ((0.01, "**"), (0.05, "*"))


def auto_window(n_systems: int) -> int:
    """Half the systems, at least 3 (a window of 2 always correlates at +-1)."""
    return min(n_systems, max(3, n_systems // 2))


def finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


# Metrics recomputable from the stored per-sentence counts (SentenceResult TP/FP/FN), with
# the attribute of the library's ``scores`` they are.
SENTENCE_COUNT_METRICS = {"f05": "f", "p": "p", "r": "r"}

FloatArray = npt.NDArray[np.float64]


def count_score(tp: int, fp: int, fn: int, attribute: str) -> float:
    """P, R or F0.5 (``attribute`` "p", "r", "f") of the counts as ChERRANT computes them,
    rounded to 4 decimals (the library's one P/R/F, as stored)."""
    return Counts(tp, fp, fn).prf(0.5, digits=4)["prf".index(attribute)]


def sentence_counts(version: DatasetVersion, systems: list[str]) -> list[FloatArray]:
    """Per system (in ``systems`` order), its sentences x (TP, FP, FN), in release order."""
    rows: dict[str, list[tuple[int, int, int]]] = {s: [] for s in systems}
    for name, tp, fp, fn in (
        SentenceResult.objects.filter(
            score__system__version=version,
            score__status=ScoreStatus.DONE,
            score__system__name__in=systems,
        )
        .order_by("score__system__name", "position")
        .values_list("score__system__name", "tp", "fp", "fn")
    ):
        rows[name].append((tp, fp, fn))
    return [np.asarray(rows[s], dtype=float).reshape(-1, 3) for s in systems]


def sentence_interval(
    key: str,
    human: dict[str, float],
    stored: dict[str, float],
    systems: list[str],
    stats: list[FloatArray],
    evaluation: MetaEvaluation,
) -> list[float | None] | None:
    """Pearson's CI when the test sentences are resampled (the library's
    ``bootstrap_sentences``; every system's score recomputed from the summed counts by the
    library's P/R/F, ``count_score``). None when the summed counts do not give back the stored scores
    (a metric whose corpus score is not a sum of its sentence counts): then the interval
    would not be about the number in the table."""
    attribute = SENTENCE_COUNT_METRICS[key]

    def aggregate(sums: FloatArray, _n_sentences: int) -> float:
        return count_score(int(sums[0]), int(sums[1]), int(sums[2]), attribute)

    for system, counts in zip(systems, stats, strict=True):
        if counts.shape[0] == 0 or not math.isclose(
            aggregate(counts.sum(axis=0), counts.shape[0]), stored[system], abs_tol=1e-9
        ):
            return None
    low, high = bootstrap_sentences(
        [human[s] for s in systems],
        stats,
        aggregate,
        samples=evaluation.sentence_bootstrap,
        seed=evaluation.seed,
    )
    return [None if math.isnan(low) else low, None if math.isnan(high) else high]


def williams_tests(
    human: dict[str, float],
    metric_scores: dict[str, dict[str, float]],
    systems: list[str],
    entries: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Williams' test (the library's, on |r|) for every ordered pair of metrics with a
    defined Pearson r, as ``system_report`` lays it out (p where |r(A)| > |r(B)|, else null),
    plus the best metric (largest |r|) and each metric's p against it."""
    tested = [k for k, e in entries.items() if finite(e["pearson"])]
    best = max(tested, key=lambda k: abs(entries[k]["pearson"]), default=None)
    p_table: dict[str, dict[str, float | None]] = {}
    t_table: dict[str, dict[str, float | None]] = {}
    if len(systems) > 3:
        h = [human[s] for s in systems]
        columns = {k: [metric_scores[k][s] for s in systems] for k in tested}
        for a in tested:
            p_table[a], t_table[a] = {}, {}
            for b in tested:
                if a == b:
                    continue
                try:
                    result = williams(h, columns[a], columns[b])
                except (ZeroDivisionError, ValueError):
                    # Perfectly collinear metrics: the test's variance term is zero.
                    p_table[a][b] = t_table[a][b] = None
                    continue
                better = abs(result.r_a) > abs(result.r_b)
                p_table[a][b] = result.p if better and not math.isnan(result.p) else None
                t_table[a][b] = result.t if better and not math.isnan(result.t) else None
    for key, entry in entries.items():
        p = p_table.get(best, {}).get(key) if best is not None and key != best else None
        entry["williams_vs_best"] = p
        entry["significance"] = next(
            (mark for level, mark in SIGNIFICANCE_LEVELS if p is not None and p < level), ""
        )
    return {"williams": p_table, "williams_t": t_table, "best": best}
