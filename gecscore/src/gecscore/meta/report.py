"""JSON-ready reports of the meta-evaluation (what ``python -m gecscore meta ...`` prints and
what the platform's pages and ``human_ranking`` command reuse): plain dicts of plain values."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gecscore.errors import InputError, OptionError
from gecscore.meta.correlation import (
    bootstrap_systems,
    pearson,
    spearman,
    williams,
    window_analysis,
)
from gecscore.meta.judgments import Comparison, RankingItem, pairwise
from gecscore.meta.rankings import (
    Ranking,
    agreement,
    rank_expected_wins,
    rank_trueskill,
)
from gecscore.meta.sentence import seeda_accuracy_kendall, wmt_kendall

__all__ = [
    "HUMAN_RANKING_METHODS",
    "METHODS",
    "human_ranking",
    "sentence_report",
    "system_report",
]

METHODS = ("ew", "trueskill", "both")
# The name the package exports: the methods of human_ranking.
HUMAN_RANKING_METHODS = METHODS


def _number(value: float) -> float | None:
    """JSON has no NaN: an undefined value is null."""
    return None if math.isnan(value) else value


def human_ranking(
    items: Sequence[RankingItem],
    *,
    method: str = "both",
    bootstrap: int = 0,
    seed: int = 0,
    runs: int = 1000,
    systems: Sequence[str] | None = None,
    workers: int = 1,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """``{"systems": {SYSTEM: {"expected_wins", "trueskill", "rank_range", "cluster"}},
    "judgments": n, "items": m, "agreement": {"inter_kappa", "intra_kappa"}}``: ``judgments``
    counts pairwise comparisons (ties included), ``items`` the ranking items behind them.

    ``rank_range``/``cluster`` come from the EW bootstrap (``bootstrap`` resamples) when EW is
    computed with a bootstrap, otherwise from the TrueSkill runs; null when neither ran.
    Systems are listed best first by the first method computed.

    ``on_progress(step, done, total)`` is called as the work goes: ``("expected wins", 1, 1)``
    once EW (and its bootstrap) is done, ``("trueskill", done, total)`` as TrueSkill's seeded
    chunks finish; an exception it raises (a cancelled job) stops the work there."""
    if method not in METHODS:
        raise OptionError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
    pairs = pairwise(items, systems=systems)
    if not pairs:
        raise InputError("the judgments hold no pairwise comparison")
    rankings: list[Ranking] = []
    ew = ts = None
    if method in ("ew", "both"):
        ew = rank_expected_wins(pairs, bootstrap=bootstrap, seed=seed)
        rankings.append(ew)
        if on_progress is not None:
            on_progress("expected wins", 1, 1)
    if method in ("trueskill", "both"):
        chunks = None
        if on_progress is not None:
            report = on_progress

            def chunks(done: int, total: int) -> None:
                report("trueskill", done, total)

        ts = rank_trueskill(pairs, runs=runs, seed=seed, workers=workers, on_chunks=chunks)
        rankings.append(ts)
    ranged = ew if ew is not None and ew.runs > 1 else ts
    ranges = {s.system: s for s in ranged.systems} if ranged is not None else {}
    ew_scores = ew.scores() if ew is not None else {}
    ts_scores = ts.scores() if ts is not None else {}
    out: dict[str, dict[str, Any]] = {}
    for entry in rankings[0].systems:
        name = entry.system
        ranked = ranges.get(name)
        out[name] = {
            "expected_wins": ew_scores.get(name),
            "trueskill": ts_scores.get(name),
            "rank_range": list(ranked.rank_range) if ranked and ranked.rank_range else None,
            "cluster": ranked.cluster if ranked else None,
        }
    kappa = agreement(items)
    return {
        "systems": out,
        "judgments": len(pairs),
        "items": sum(1 for item in items if item.entries and item.user != "admin"),
        "agreement": {
            "inter_kappa": _number(kappa.inter_kappa),
            "intra_kappa": _number(kappa.intra_kappa),
        },
        "method": method,
        "seed": seed,
        "bootstrap": bootstrap,
        "trueskill_runs": runs if ts is not None else 0,
    }


def system_report(
    human: Mapping[str, float],
    metrics: Mapping[str, Mapping[str, float]],
    systems: Sequence[str],
    *,
    run_williams: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
    window: int | None = None,
) -> dict[str, Any]:
    """``{"n_systems", "systems", "metrics": {NAME: {"pearson", "spearman", "pearson_ci",
    "spearman_ci", "window"?}}, "williams": {A: {B: p | null}}, "williams_t": ...}``.

    Every metric must score every system in ``systems``. Williams' p is given for the pairs
    where |r(A)| > |r(B)| (the one-tailed test of "A correlates better than B"); null elsewhere.
    """
    for name, scores in metrics.items():
        missing = [s for s in systems if s not in scores]
        if missing:
            raise InputError(f"metric {name!r} has no score for {', '.join(missing)}")
    missing = [s for s in systems if s not in human]
    if missing:
        raise InputError(f"the human scores have no score for {', '.join(missing)}")
    if len(systems) < 3:
        raise InputError(f"need at least 3 systems to correlate (got {len(systems)})")
    h = [human[s] for s in systems]
    columns = {name: [scores[s] for s in systems] for name, scores in metrics.items()}
    report: dict[str, Any] = {"n_systems": len(systems), "systems": list(systems), "metrics": {}}
    for name, column in columns.items():
        entry: dict[str, Any] = {
            "pearson": _number(pearson(h, column)),
            "spearman": _number(spearman(h, column)),
            "pearson_ci": None,
            "spearman_ci": None,
        }
        if bootstrap > 0:
            entry["pearson_ci"] = [
                _number(v) for v in bootstrap_systems(h, column, samples=bootstrap, seed=seed)
            ]
            entry["spearman_ci"] = [
                _number(v)
                for v in bootstrap_systems(
                    h, column, statistic=spearman, samples=bootstrap, seed=seed
                )
            ]
        if window is not None:
            entry["window"] = [
                {
                    "from": w.start,
                    "to": w.end,
                    "systems": list(w.systems),
                    "pearson": _number(w.pearson),
                    "spearman": _number(w.spearman),
                }
                for w in window_analysis(systems, h, column, window)
            ]
        report["metrics"][name] = entry
    report["williams"] = {}
    report["williams_t"] = {}
    if run_williams:
        names = list(columns)
        for a in names:
            report["williams"][a] = {}
            report["williams_t"][a] = {}
            for b in names:
                if a == b:
                    continue
                result = williams(h, columns[a], columns[b])
                tested = abs(result.r_a) > abs(result.r_b)
                report["williams"][a][b] = _number(result.p) if tested else None
                report["williams_t"][a][b] = _number(result.t) if tested else None
    return report


def sentence_report(
    comparisons: Sequence[Comparison],
    metrics: Mapping[str, Mapping[str, Mapping[str, float]]],
    *,
    variant: str = "wmt",
    segment_maps: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """``{"metrics": {NAME: {...}}, "variant", "pairs"}``: for ``wmt`` the keys
    ``kendall_hties``, ``kendall_noties``, ``accuracy``; for ``seeda`` ``accuracy`` and
    ``kendall`` (SEEDA's script, a metric tie = a loss for the alphabetically earlier system)
    and ``accuracy_ties``/``kendall_ties`` (tie-aware)."""
    out: dict[str, Any] = {}
    pairs = 0
    for name, scores in metrics.items():
        segment_map = segment_maps.get(name) if segment_maps else None
        if variant == "wmt":
            result = wmt_kendall(comparisons, scores, segment_map=segment_map)
            out[name] = {k: _number(v) for k, v in result.values.items()}
        elif variant == "seeda":
            result = seeda_accuracy_kendall(comparisons, scores, segment_map=segment_map)
            ties = seeda_accuracy_kendall(
                comparisons, scores, segment_map=segment_map, tie_aware=True
            )
            out[name] = {
                "accuracy": result.values["accuracy"],
                "kendall": result.values["kendall"],
                "accuracy_ties": ties.values["accuracy"],
                "kendall_ties": ties.values["kendall"],
            }
        else:
            raise OptionError(f"variant must be wmt or seeda (got {variant!r})")
        pairs = result.pairs
    return {"metrics": out, "variant": variant, "pairs": pairs}
