"""Sentence-level meta-evaluation: how often a metric orders two outputs of the same sentence
as the judges did.

Two families, each equal to its reference script:

* ``wmt`` (WMT metrics task, gecmetrics ``sentence_correlation.py``): every human pairwise
  judgment (from a WMT ``expanded``/``unexpanded`` CSV, or expanded from Appraise XML) is
  compared with the metric's order of the two sentence scores. Kendall's tau-like
  = (concordant - discordant) / counted pairs, where the variant decides what counts:
  ``noties``: human ties are left out, a metric tie counts 0 in the numerator;
  ``hties``: human ties count too (+1 if the metric ties as well, 0 otherwise).
  ``accuracy`` (ours, beside them): of the pairs the judges did not tie, the share the metric
  orders the same way (a metric tie is a miss).
* ``seeda`` (SEEDA ``corr_sentence.py``): only pairs the judges ranked differently; the
  metric's comparison is ``1`` if the alphabetically earlier system scores strictly higher
  and ``-1`` otherwise, so **a metric tie counts as a loss for the alphabetically earlier
  system** (the script's behaviour). accuracy = agreements / pairs, Kendall = (agreements -
  disagreements) / pairs. ``seeda-ties`` is the tie-aware variant: a metric tie is neither
  an agreement nor a disagreement (it still counts in the denominator, as the script's
  unused ``m == 0`` cells would).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gecscore.errors import GECError, InputError
from gecscore.meta.judgments import Comparison

__all__ = [
    "MissingScoreError",
    "SentenceAgreement",
    "seeda_accuracy_kendall",
    "seeda_segment_map",
    "wmt_kendall",
]

# (human relation, metric relation) -> coefficient; None = the pair is not counted.
_KENDALL_VARIANTS: dict[str, dict[tuple[str, str], int | None]] = {
    "noties": {
        ("<", "<"): 1,
        ("<", "="): 0,
        ("<", ">"): -1,
        ("=", "<"): None,
        ("=", "="): None,
        ("=", ">"): None,
        (">", "<"): -1,
        (">", "="): 0,
        (">", ">"): 1,
    },
    "hties": {
        ("<", "<"): 1,
        ("<", "="): 0,
        ("<", ">"): -1,
        ("=", "<"): 0,
        ("=", "="): 1,
        ("=", ">"): 0,
        (">", "<"): -1,
        (">", "="): 0,
        (">", ">"): 1,
    },
}


@dataclass(frozen=True)
class SentenceAgreement:
    """Sentence-level agreement of one metric with the judges."""

    variant: str
    values: dict[str, float]
    pairs: int


class MissingScoreError(GECError, ValueError):
    """A judged sentence of a system has no metric score."""


def _metric_relation(first: float, second: float) -> str:
    """'<' when the first output is better (scores higher), as the WMT scripts write it."""
    return "<" if first > second else ">" if first < second else "="


def _score(
    scores: Mapping[str, Mapping[str, float]], system: str, segment: str, where: str
) -> float:
    per_segment = scores.get(system)
    if per_segment is None:
        raise MissingScoreError(f"no sentence scores for system {system!r} ({where})")
    value = per_segment.get(segment)
    if value is None:
        raise MissingScoreError(f"system {system!r} has no score for segment {segment} ({where})")
    return value


def wmt_kendall(
    comparisons: Sequence[Comparison],
    scores: Mapping[str, Mapping[str, float]],
    *,
    segment_map: Mapping[str, str] | None = None,
) -> SentenceAgreement:
    """WMT Kendall's tau (``hties`` and ``noties``) and pairwise accuracy."""
    numerators = {"hties": 0, "noties": 0}
    denominators = {"hties": 0, "noties": 0}
    correct = decided = 0
    for pair in comparisons:
        segment = segment_map.get(pair.segment, pair.segment) if segment_map else pair.segment
        where = f"judgment {pair.item}" if pair.item >= 0 else "judgments"
        metric = _metric_relation(
            _score(scores, pair.system_a, segment, where),
            _score(scores, pair.system_b, segment, where),
        )
        for variant, table in _KENDALL_VARIANTS.items():
            coefficient = table[(pair.relation, metric)]
            if coefficient is not None:
                numerators[variant] += coefficient
                denominators[variant] += 1
        if pair.relation != "=":
            decided += 1
            correct += pair.relation == metric
    values = {
        f"kendall_{variant}": (numerators[variant] / denominators[variant])
        if denominators[variant]
        else 1.0  # the WMT script's value for no counted pair
        for variant in ("hties", "noties")
    }
    values["accuracy"] = correct / decided if decided else float("nan")
    return SentenceAgreement("wmt", values, len(comparisons))


def seeda_accuracy_kendall(
    comparisons: Sequence[Comparison],
    scores: Mapping[str, Mapping[str, float]],
    *,
    segment_map: Mapping[str, str] | None = None,
    tie_aware: bool = False,
) -> SentenceAgreement:
    """SEEDA's sentence-level accuracy and Kendall (``corr_sentence.py --order higher``);
    with ``tie_aware`` a metric tie is counted as neither agreement nor disagreement."""
    agree = disagree = total = 0
    for pair in comparisons:
        if pair.relation == "=":
            continue
        segment = segment_map.get(pair.segment, pair.segment) if segment_map else pair.segment
        where = f"judgment {pair.item}" if pair.item >= 0 else "judgments"
        first = _score(scores, pair.system_a, segment, where)
        second = _score(scores, pair.system_b, segment, where)
        human = 1 if pair.relation == "<" else -1
        if first > second:
            metric = 1
        elif first == second and tie_aware:
            metric = 0
        else:
            metric = -1
        total += 1
        if metric == human:
            agree += 1
        elif metric != 0:
            disagree += 1
    if not total:
        raise InputError("no pair of systems was ranked differently by the judges")
    variant = "seeda-ties" if tie_aware else "seeda"
    return SentenceAgreement(
        variant, {"accuracy": agree / total, "kendall": (agree - disagree) / total}, total
    )


def seeda_segment_map(comparisons: Sequence[Comparison], lines: int) -> dict[str, str]:
    """SEEDA layout: line k of a sentence score file scores the k-th smallest judged src-id
    (SEEDA's subset lines are in increasing order). ``lines`` must equal the number of
    judged sentences."""
    judged = sorted({p.segment for p in comparisons}, key=int)
    if len(judged) != lines:
        raise InputError(
            f"the sentence score files have {lines} lines but the judgments cover"
            f" {len(judged)} sentences; the one-score-per-line layout needs one line per"
            " judged sentence, in src-id order"
        )
    return {segment: str(k) for k, segment in enumerate(judged)}
