"""How a meta-evaluation run turns a metric into system scores: ``default`` (the stored corpus
score, as the leaderboard shows it), or ``trueskill`` / ``expected-wins`` over the metric's
sentence-level scores (Goto, Sakai & Watanabe, ACL 2025): the library's ``meta system
--aggregation`` (``gecscore.aggregated``) on the sentence scores the platform
stores. Nothing is re-implemented here: this module only reads the stored sentence scores.

Metrics with stored sentence scores: the main P / R / F0.5 (each sentence's score from its
stored TP/FP/FN, by the library's ``compare.scores``); GREEN, and for English M2 and SentM2
(each sentence's best F0.5, as the library's ``meta system`` ranks both) and GLEU (its
per-sentence scores); CLEME (each sentence's F0.5 with the sentence-level length weights)
and CLEME2.0 (each sentence's score), by the library's ``cleme.sentence_scores`` /
``sentence_scores2``; PT-M2 (each sentence's F0.5 with its best annotators); the
reference-free metrics and the LLM judges (a sentence the judge did not score is NaN, which
the library's TrueSkill counts as a loss and its Expected Wins as a tie); and the ``length``
baseline. Each keeps a ``sentences`` list in its ``summary["extra"]`` entry; a score stored
before that list existed has a corpus score only (score the system again): a run asking to
aggregate it is refused, naming the metric.

The ``length`` baseline (what a character count correlates: the floor any metric should
beat) is each system's mean characters per output sentence; every run reports it beside the
chosen metrics, under the run's aggregation.
"""

from __future__ import annotations

import math
from typing import Any

from core.exceptions import ServiceError
from datasets.models import DatasetVersion
from gecscore import GECError, MetricScores, aggregated
from scoring.models import ScoreStatus, SentenceResult, SystemScore
from scoring.services.meta.catalogue import SUMMARY_EXTRA
from scoring.services.meta.statistics import SENTENCE_COUNT_METRICS, count_score

AGGREGATIONS = ("default", "trueskill", "expected-wins")
# Catalogue keys whose entry in summary["extra"] (SUMMARY_EXTRA) carries a "sentences" list:
# every one of them (a score stored before its list existed is caught by sentence_scored).
SENTENCE_EXTRA = tuple(SUMMARY_EXTRA)
LENGTH_KEY = "length"
LENGTH_LABEL = "length (baseline: mean characters per output sentence)"


def _extra_sentences(score: SystemScore, key: str) -> list[Any] | None:
    entry = (score.summary or {}).get("extra", {}).get(SUMMARY_EXTRA[key][0])
    sentences = entry.get("sentences") if isinstance(entry, dict) else None
    return sentences if isinstance(sentences, list) else None


def _scored(version: DatasetVersion) -> list[SystemScore]:
    return list(
        SystemScore.objects.filter(system__version=version, status=ScoreStatus.DONE)
        .select_related("system")
        .order_by("system__name")
    )


def sentence_scored(version: DatasetVersion, keys: list[str]) -> dict[str, bool]:
    """Per metric key: whether every finished score of the release carrying it has its
    sentence scores (the main P/R/F0.5 always do, from the stored counts)."""
    out = {key: key in SENTENCE_COUNT_METRICS or key == LENGTH_KEY for key in keys}
    for key in keys:
        if key in SENTENCE_EXTRA:
            entry = SUMMARY_EXTRA[key][0]
            carried = [s for s in _scored(version) if entry in (s.summary or {}).get("extra", {})]
            out[key] = bool(carried) and all(_extra_sentences(s, key) for s in carried)
    return out


def check_aggregation(
    version: DatasetVersion, metrics: list[str], aggregation: str, sentence_bootstrap: int
) -> str:
    """The aggregation, checked against the metrics asked for (a ServiceError otherwise)."""
    if aggregation not in AGGREGATIONS:
        raise ServiceError(
            f"aggregation must be one of {', '.join(AGGREGATIONS)} (got {aggregation!r})",
            field="aggregation",
        )
    if aggregation == "default":
        return aggregation
    if sentence_bootstrap:
        raise ServiceError(
            "the sentence bootstrap resamples corpus scores: use the default aggregation "
            "with it, or set sentence bootstrap to 0",
            field="sentence_bootstrap",
        )
    without = [key for key, ok in sentence_scored(version, metrics).items() if not ok]
    if without:
        with_them = ", ".join((*SENTENCE_COUNT_METRICS, *SENTENCE_EXTRA))
        raise ServiceError(
            f"{aggregation} ranks systems by sentence-level scores, and {', '.join(without)} "
            f"stores a corpus score only; choose the default aggregation for "
            f"{'it' if len(without) == 1 else 'them'}, or metrics with sentence scores "
            f"({with_them})",
            field="aggregation",
        )
    return aggregation


def sentence_scores(
    version: DatasetVersion, key: str, systems: list[str]
) -> dict[str, list[float]]:
    """``{system: [score per sentence, release order]}`` of one metric."""
    scores = {s.system.name: s for s in _scored(version) if s.system.name in systems}
    if key == LENGTH_KEY:
        return {s: [float(len(h)) for h in scores[s].system.hypotheses] for s in systems}
    if key in SENTENCE_COUNT_METRICS:
        attribute = SENTENCE_COUNT_METRICS[key]
        out: dict[str, list[float]] = {s: [] for s in systems}
        for name, tp, fp, fn in (
            SentenceResult.objects.filter(score__in=scores.values())
            .order_by("score__system__name", "position")
            .values_list("score__system__name", "tp", "fp", "fn")
        ):
            out[name].append(count_score(tp, fp, fn, attribute))
        return out
    return {
        s: [math.nan if v is None else float(v) for v in _extra_sentences(scores[s], key) or []]
        for s in systems
    }


def length_scores(version: DatasetVersion, systems: list[str]) -> dict[str, float]:
    """The baseline's corpus score: mean characters per output sentence."""
    lengths = sentence_scores(version, LENGTH_KEY, systems)
    return {s: sum(v) / len(v) if v else 0.0 for s, v in lengths.items()}


def aggregate_scores(
    version: DatasetVersion,
    key: str,
    stored: dict[str, float],
    systems: list[str],
    aggregation: str,
) -> dict[str, float]:
    """The metric's system scores under the run's aggregation (``systems`` in name order:
    the order TrueSkill plays its matches in, as the library's meta system does)."""
    if aggregation == "default":
        return {s: stored[s] for s in systems}
    result = MetricScores(scores=stored, sentence_scores=sentence_scores(version, key, systems))
    try:
        return aggregated(key, result, aggregation, systems)
    except GECError as exc:  # e.g. a system scored against another number of sentences
        raise ServiceError(f"{aggregation} of {key}: {exc}") from None
