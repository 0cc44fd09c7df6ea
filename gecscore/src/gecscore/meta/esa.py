"""ESA (error span annotation, Kocmi et al., WMT 2024) results over plain rows.

A judge marks error spans on a system's output, each *minor* or *major*, and gives the output
a 0-100 score. One :class:`EsaRow` is one judge's answer for one shown output (an output
that several systems produced identically counts for each of them). From the rows:

* :func:`system_results`: per system the mean score, major and minor spans per 100 units
  (words for English: whitespace tokens; characters for Chinese: non-space characters),
  95% percentile intervals from resampling the judged items (seeded), and a ranking by
  mean score with rank ranges from the same resamples;
* :func:`span_agreement`: span F1 between judges on character overlap (pooled over every
  output two judges both annotated; defined at the function);
* :func:`score_correlation`: Pearson's r of two judges' scores of the same output;
  :func:`self_consistency`: the same of a judge's first and repeat score;
* :func:`judge_summary`: each judge's mean score and spans per 100 units.

Repeat showings (a judge seeing an item a second time, for consistency) are left out of all
but :func:`self_consistency`: each judge's first answer counts.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from gecscore.meta.judgment_records import EsaSpan

__all__ = [
    "ESA_SEVERITIES",
    "SEVERITIES",
    "EsaRow",
    "EsaSpan",
    "SpanAgreement",
    "SystemEsa",
    "count_units",
    "esa_report",
    "esa_system_results",
    "esa_wmt_score_lines",
    "judge_summary",
    "score_correlation",
    "self_consistency",
    "span_agreement",
    "system_results",
    "wmt_score_lines",
]

SEVERITIES = ("minor", "major")
INTERVAL = 0.95


@dataclass(frozen=True)
class EsaRow:
    """One judge's answer for one shown output of one item."""

    item: str  # the judged item (sentence) the bootstrap resamples
    output: int  # the output's position within the item
    judge: str
    systems: tuple[str, ...]
    text: str
    score: int
    spans: tuple[EsaSpan, ...] = ()
    repeat: bool = False
    language: str = "zh"


@dataclass
class SystemEsa:
    system: str
    outputs: int  # judged outputs (rows) of the system
    units: int
    mean_score: float
    major: int
    minor: int
    major_per_100: float
    minor_per_100: float
    score_interval: tuple[float, float] | None = None
    major_interval: tuple[float, float] | None = None
    minor_interval: tuple[float, float] | None = None
    rank: int = 0
    rank_range: tuple[int, int] | None = None
    extra: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SpanAgreement:
    """Pooled character-overlap agreement of judge pairs (see :func:`span_agreement`)."""

    pairs: int  # (output, judge pair) comparisons
    overlap: int  # characters both judges marked
    marked: int  # characters marked, summed over both judges of every pair
    f1: float | None
    f1_severity: float | None  # overlap counted only where the severities agree


def count_units(text: str, language: str) -> int:
    """Words (whitespace tokens) for English, non-space characters otherwise (Chinese)."""
    if language == "en":
        return len(text.split())
    return sum(1 for ch in text if not ch.isspace())


def _first_showings(rows: Iterable[EsaRow]) -> list[EsaRow]:
    return [row for row in rows if not row.repeat]


def system_results(rows: Sequence[EsaRow], *, samples: int = 0, seed: int = 0) -> list[SystemEsa]:
    """Per system: mean score, spans per 100 units, and (with ``samples`` > 1) 95% percentile
    intervals and rank ranges from ``samples`` resamples of the judged items, drawn with
    ``numpy.random.default_rng(seed)``. Best (highest mean score) first; ties by name."""
    rows = _first_showings(rows)
    items = sorted({row.item for row in rows})
    systems = sorted({name for row in rows for name in row.systems})
    if not systems:
        return []
    item_index = {item: i for i, item in enumerate(items)}
    system_index = {name: j for j, name in enumerate(systems)}
    # Per item and system: score sum, outputs, units, major and minor spans.
    table = np.zeros((5, len(items), len(systems)))
    for row in rows:
        errors = _errors(row)
        major = sum(1 for span in errors if span.severity == "major")
        minor = len(errors) - major
        units = count_units(row.text, row.language)
        for name in row.systems:
            cell = (item_index[row.item], system_index[name])
            table[(0, *cell)] += row.score
            table[(1, *cell)] += 1
            table[(2, *cell)] += units
            table[(3, *cell)] += major
            table[(4, *cell)] += minor
    totals = table.sum(axis=1)
    scores, majors, minors = _rates(totals)
    results = [
        SystemEsa(
            system=name,
            outputs=int(totals[1, j]),
            units=int(totals[2, j]),
            mean_score=float(scores[j]),
            major=int(totals[3, j]),
            minor=int(totals[4, j]),
            major_per_100=float(majors[j]),
            minor_per_100=float(minors[j]),
        )
        for j, name in enumerate(systems)
    ]
    if samples > 1 and items:
        _add_intervals(results, table, samples=samples, seed=seed)
    results.sort(key=lambda r: (-r.mean_score, r.system))
    for rank, result in enumerate(results, start=1):
        result.rank = rank
    return results


def _rates(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean score, major and minor spans per 100 units from summed columns (NaN where a
    system has no output or no unit)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = totals[0] / totals[1]
        majors = 100.0 * totals[3] / totals[2]
        minors = 100.0 * totals[4] / totals[2]
    return scores, majors, minors


def _add_intervals(results: list[SystemEsa], table: np.ndarray, *, samples: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = table.shape[1]
    drawn_scores = np.empty((samples, table.shape[2]))
    drawn_majors = np.empty_like(drawn_scores)
    drawn_minors = np.empty_like(drawn_scores)
    for sample in range(samples):
        picked = table[:, rng.integers(0, count, size=count), :].sum(axis=1)
        drawn_scores[sample], drawn_majors[sample], drawn_minors[sample] = _rates(picked)
    # A system missing from a resample ranks last in it (its score is unknown there).
    ranks = (-np.nan_to_num(drawn_scores, nan=-np.inf)).argsort(axis=1, kind="stable")
    positions = np.empty_like(ranks)
    rows = np.arange(samples)[:, None]
    positions[rows, ranks] = np.arange(1, ranks.shape[1] + 1)
    low, high = (1 - INTERVAL) / 2 * 100, (1 + INTERVAL) / 2 * 100
    for j, result in enumerate(results):
        result.score_interval = _interval(drawn_scores[:, j], low, high)
        result.major_interval = _interval(drawn_majors[:, j], low, high)
        result.minor_interval = _interval(drawn_minors[:, j], low, high)
        result.rank_range = (
            int(np.percentile(positions[:, j], low, method="lower")),
            int(np.percentile(positions[:, j], high, method="higher")),
        )


def _interval(values: np.ndarray, low: float, high: float) -> tuple[float, float] | None:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None
    return (float(np.percentile(finite, low)), float(np.percentile(finite, high)))


def _by_output(rows: Iterable[EsaRow]) -> dict[tuple[str, int], dict[str, EsaRow]]:
    """First-showing rows grouped by (item, output), one per judge."""
    grouped: dict[tuple[str, int], dict[str, EsaRow]] = defaultdict(dict)
    for row in _first_showings(rows):
        grouped[(row.item, row.output)].setdefault(row.judge, row)
    return grouped


def _errors(row: EsaRow) -> list[EsaSpan]:
    """The row's error spans (a dismissed prefilled span is a decision, not an error)."""
    return [span for span in row.spans if span.origin != "dismissed"]


def _marked(row: EsaRow) -> dict[int, str]:
    """Character index -> severity of the span covering it."""
    return {i: span.severity for span in _errors(row) for i in range(span.start, span.end)}


def span_agreement(rows: Sequence[EsaRow]) -> SpanAgreement:
    """Span F1 between judges on character overlap.

    For every output two judges (a, b) both annotated, A and B are the sets of character
    positions their spans cover. Pooled over all such (output, pair):
    ``F1 = 2 * sum |A & B| / (sum |A| + sum |B|)`` (symmetric in a and b: precision of one
    is recall of the other). ``f1_severity`` counts a shared character only when both gave it
    the same severity. None when no judge of any pair marked anything (no evidence either
    way)."""
    pairs = overlap = same = marked = 0
    for judges in _by_output(rows).values():
        for a, b in combinations(sorted(judges), 2):
            marks_a, marks_b = _marked(judges[a]), _marked(judges[b])
            shared = marks_a.keys() & marks_b.keys()
            pairs += 1
            overlap += len(shared)
            same += sum(1 for i in shared if marks_a[i] == marks_b[i])
            marked += len(marks_a) + len(marks_b)
    return SpanAgreement(
        pairs=pairs,
        overlap=overlap,
        marked=marked,
        f1=2 * overlap / marked if marked else None,
        f1_severity=2 * same / marked if marked else None,
    )


def score_correlation(rows: Sequence[EsaRow]) -> tuple[float | None, int]:
    """Pearson's r between judges' scores of the same output, and the number of judge pairs
    it is computed from. Each (output, pair of judges) adds its two scores once in each order,
    so r does not depend on which judge comes first. None with fewer than two pairs or no
    variance."""
    pairs: list[tuple[float, float]] = []
    for judges in _by_output(rows).values():
        for a, b in combinations(sorted(judges), 2):
            pairs.append((judges[a].score, judges[b].score))
    return _symmetric_pearson(pairs), len(pairs)


def self_consistency(rows: Sequence[EsaRow]) -> tuple[float | None, int]:
    """Pearson's r between a judge's first and repeat score of the same output (the repeat
    showings of a campaign's consistency share), symmetric like :func:`score_correlation`;
    and the number of (judge, output) pairs."""
    first = {(r.judge, r.item, r.output): r.score for r in rows if not r.repeat}
    pairs = [
        (first[(r.judge, r.item, r.output)], r.score)
        for r in rows
        if r.repeat and (r.judge, r.item, r.output) in first
    ]
    return _symmetric_pearson(pairs), len(pairs)


def _symmetric_pearson(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Pearson's r over the pairs taken in both orders; None under two pairs or no variance."""
    if len(pairs) < 2:
        return None
    x = np.asarray([a for a, b in pairs] + [b for a, b in pairs], dtype=float)
    y = np.asarray([b for a, b in pairs] + [a for a, b in pairs], dtype=float)
    dx, dy = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    if denominator == 0:
        return None
    return float((dx * dy).sum()) / denominator


def judge_summary(rows: Sequence[EsaRow]) -> dict[str, dict[str, float | int]]:
    """Per judge (first showings): outputs judged, mean score, and major / minor spans per
    100 units of the outputs they judged: who scores or marks more harshly than the others."""
    by_judge: dict[str, list[EsaRow]] = defaultdict(list)
    for row in _first_showings(rows):
        by_judge[row.judge].append(row)
    summary: dict[str, dict[str, float | int]] = {}
    for judge in sorted(by_judge):
        mine = by_judge[judge]
        units = sum(count_units(r.text, r.language) for r in mine)
        major = sum(1 for r in mine for s in _errors(r) if s.severity == "major")
        minor = sum(len(_errors(r)) for r in mine) - major
        summary[judge] = {
            "outputs": len(mine),
            "mean_score": sum(r.score for r in mine) / len(mine),
            "major_per_100": 100 * major / units if units else 0.0,
            "minor_per_100": 100 * minor / units if units else 0.0,
        }
    return summary


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _pair(interval: tuple[float, float] | None) -> list[float | None] | None:
    return None if interval is None else [_rounded(interval[0]), _rounded(interval[1])]


def esa_report(rows: Sequence[EsaRow], *, samples: int = 0, seed: int = 0) -> dict[str, object]:
    """The JSON-ready report: systems best first, agreement, the counts and parameters."""
    systems = system_results(rows, samples=samples, seed=seed)
    agreement = span_agreement(rows)
    correlation, pairs = score_correlation(rows)
    consistency, repeats = self_consistency(rows)
    first = _first_showings(rows)
    languages = {row.language for row in first}
    return {
        "systems": {
            s.system: {
                "rank": s.rank,
                "rank_range": list(s.rank_range) if s.rank_range else None,
                "mean_score": _rounded(s.mean_score),
                "score_interval": _pair(s.score_interval),
                "outputs": s.outputs,
                "units": s.units,
                "major": s.major,
                "minor": s.minor,
                "major_per_100": _rounded(s.major_per_100),
                "minor_per_100": _rounded(s.minor_per_100),
                "major_interval": _pair(s.major_interval),
                "minor_interval": _pair(s.minor_interval),
            }
            for s in systems
        },
        "unit": "words" if languages == {"en"} else "characters",
        "judged_outputs": len(first),
        "items": len({row.item for row in first}),
        "bootstrap": samples,
        "seed": seed,
        "agreement": {
            "span_f1": _rounded(agreement.f1),
            "span_f1_severity": _rounded(agreement.f1_severity),
            "span_pairs": agreement.pairs,
            "score_pearson": _rounded(correlation),
            "score_pairs": pairs,
            "self_pearson": _rounded(consistency),
            "self_pairs": repeats,
        },
        "judges": {
            judge: {
                name: _rounded(value) if isinstance(value, float) else value
                for name, value in numbers.items()
            }
            for judge, numbers in judge_summary(rows).items()
        },
    }


def wmt_score_lines(
    scores: dict[str, float], *, name: str = "ESA", testset: str = "campaign"
) -> list[str]:
    """System scores in the WMT metrics-task layout ``NAME LANGPAIR TESTSET SYSTEM SCORE``
    (tab-separated), the human file ``gecscore meta system --human`` reads."""
    return [f"{name}\tsrc-trg\t{testset}\t{system}\t{score!r}" for system, score in scores.items()]


# The names the package exports (``gecscore.ESA_SEVERITIES`` ...): at the top level the bare
# names would not say they are ESA's.
ESA_SEVERITIES = SEVERITIES
esa_system_results = system_results
esa_wmt_score_lines = wmt_score_lines
