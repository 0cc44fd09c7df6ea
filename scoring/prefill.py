"""The anchoring report of a post-edit project: prefilled items against blind ones.

A post-edit project opens most boxes with a suggestion (a system's output or an LLM's) and a
blind share with the source only (docs/workflow.md, "Post-edit annotation"). Anchoring is
the drift of annotators toward what the box opened with; the blind arm is the control that
measures it. Per annotator and overall, for each arm:

* the median seconds per item;
* agreement with the golden references: F0.5 of the annotator's boxes with the dataset
  language's box metric (scoring/annotator_metric.py: ChERRANT char-level, ERRANT), from the
  per-item counts summed;
* the share of items submitted unchanged (as the box opened);
* the suggestion's own F0.5 against the same references (one count per sentence: in the
  overall figures a sentence several annotators saw counts once per arm).

Every figure carries a 95% percentile bootstrap interval: the figure's items resampled with
replacement ``RESAMPLES`` times (1,000; drawn as multinomial counts of the distinct items,
see `bootstrap`), seeded, each group and figure from its own stream
(the seed and a checksum of "annotator|arm|figure"), so a group's interval does not move when
other annotators' rows are added. An annotator is flagged who submits more than 95% of their
prefilled items unchanged in under 3 seconds each.

Plain rows in, plain dataclasses out (no Django): `scoring/prefill_rows.py` reads the rows.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gecscore import precision_recall_f

PREFILLED, BLIND = "prefilled", "blind"
ARMS = (PREFILLED, BLIND)
OVERALL = ""
RESAMPLES = 1000
SEED = 0
CONFIDENCE = 0.95
FLAG_UNCHANGED_SHARE = 0.95  # flagged above this share (strictly) ...
FLAG_SECONDS = 3.0  # ... of prefilled items unchanged in strictly fewer seconds than this

TpFpFn = tuple[int, int, int]


@dataclass(frozen=True)
class PrefillItem:
    """One submitted item (revision 1 of an assignment) of a post-edit project."""

    annotator: str
    sentence: int
    arm: str  # PREFILLED or BLIND
    seconds: float
    unchanged: bool
    # The annotator's boxes against the golden references, summed over the boxes; None
    # while the sentence has no golden reference (not reviewed yet).
    agreement: TpFpFn | None = None
    # The suggestion's own counts against the same references; None when unknown.
    suggestion: TpFpFn | None = None


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float


@dataclass(frozen=True)
class ArmFigures:
    items: int
    median_seconds: Estimate | None
    unchanged_share: Estimate | None
    scored_items: int  # items whose sentence has golden references
    f05: Estimate | None
    suggestion_sentences: int
    suggestion_f05: Estimate | None


@dataclass(frozen=True)
class AnnotatorAnchoring:
    annotator: str
    prefilled: ArmFigures
    blind: ArmFigures
    fast_unchanged: int  # prefilled items unchanged in under FLAG_SECONDS
    fast_unchanged_share: float | None  # of the prefilled items
    flagged: bool


@dataclass(frozen=True)
class AnchoringReport:
    metric: str
    resamples: int
    seed: int
    confidence: float
    flag_unchanged_share: float
    flag_seconds: float
    overall: dict[str, ArmFigures]
    annotators: list[AnnotatorAnchoring]

    @property
    def flagged(self) -> list[str]:
        return [row.annotator for row in self.annotators if row.flagged]

    @property
    def has_items(self) -> bool:
        return any(figures.items for figures in self.overall.values())

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "flagged": self.flagged}


def f05(tp: int, fp: int, fn: int) -> float:
    """F0.5 of summed counts, ERRANT's convention (P = 1 without proposals, R = 1 without
    gold edits), as scoring/annotator_metric.py's `pooled_counts` computes it."""
    return precision_recall_f(tp, tp + fp, tp + fn, 0.5, convention="errant")[2]


def _f05_rows(sums: np.ndarray) -> np.ndarray:
    """`f05` of each row of (tp, fp, fn) sums, vectorised: a thousand resamples at a time
    would cost a Python call each through `f05` (a test holds the two equal)."""
    tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(fp > 0, tp / (tp + fp), 1.0)
        r = np.where(fn > 0, tp / (tp + fn), 1.0)
        f = np.where(p + r > 0, 1.25 * p * r / (0.25 * p + r), 0.0)
    return np.asarray(f, dtype=float)


def _stream(seed: int, group: str, figure: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(f"{group}|{figure}".encode())])


def bootstrap(
    data: np.ndarray,
    statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over ``resamples`` draws of ``len(data)`` items
    with replacement.

    A resample is drawn as how many times each distinct item comes up (multinomial counts
    over the distinct rows of ``data``, the same distribution as drawing items one by one),
    so the cost grows with the distinct values, not the items: seconds are whole numbers and
    counts small, so a project of 100,000 items has a few hundred. ``statistic(values,
    counts)`` gets the distinct rows (sorted) and one row of counts per resample, and gives
    one value per resample."""
    values, frequency = np.unique(data.reshape(len(data), -1), axis=0, return_counts=True)
    counts = rng.multinomial(len(data), frequency / len(data), size=resamples)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(statistic(values, counts), [alpha, 1 - alpha])
    return float(low), float(high)


def _estimate(
    data: np.ndarray,
    point: float,
    statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
    rng: np.random.Generator,
    resamples: int,
) -> Estimate:
    low, high = bootstrap(data, statistic, rng=rng, resamples=resamples)
    return Estimate(float(point), low, high)


def _median_of_counts(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The median of each resample (as numpy's: the mean of the two middle items when their
    number is even) from the sorted distinct values and their counts."""
    items = int(counts[0].sum())
    ends = np.cumsum(counts, axis=1)
    # The item at 0-based position k is the first distinct value whose cumulative count
    # passes k.
    lower = values[(ends > (items - 1) // 2).argmax(axis=1), 0]
    upper = values[(ends > items // 2).argmax(axis=1), 0]
    return np.asarray((lower + upper) / 2, dtype=float)


def _mean_of_counts(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.asarray(counts @ values[:, 0] / counts[0].sum(), dtype=float)


def _f05_of_counts(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return _f05_rows(counts @ values)


def arm_figures(
    items: Sequence[PrefillItem], *, group: str, seed: int = SEED, resamples: int = RESAMPLES
) -> ArmFigures:
    """The figures of one arm's items (one annotator's, or everyone's)."""
    if not items:
        return ArmFigures(0, None, None, 0, None, 0, None)
    seconds = np.array([item.seconds for item in items], dtype=float)
    unchanged = np.array([item.unchanged for item in items], dtype=float)
    median = _estimate(
        seconds, float(np.median(seconds)), _median_of_counts, _stream(seed, group, "s"), resamples
    )
    share = _estimate(
        unchanged, float(unchanged.mean()), _mean_of_counts, _stream(seed, group, "u"), resamples
    )
    scored = np.array([item.agreement for item in items if item.agreement is not None])
    agreement = None
    if len(scored):
        agreement = _estimate(
            scored,
            f05(*(int(n) for n in scored.sum(axis=0))),
            _f05_of_counts,
            _stream(seed, group, "f"),
            resamples,
        )
    by_sentence = {item.sentence: item.suggestion for item in items if item.suggestion is not None}
    suggestion = None
    if by_sentence:
        counts = np.array([by_sentence[key] for key in sorted(by_sentence)])
        suggestion = _estimate(
            counts,
            f05(*(int(n) for n in counts.sum(axis=0))),
            _f05_of_counts,
            _stream(seed, group, "g"),
            resamples,
        )
    return ArmFigures(
        len(items), median, share, len(scored), agreement, len(by_sentence), suggestion
    )


def is_fast_unchanged(item: PrefillItem) -> bool:
    return item.unchanged and item.seconds < FLAG_SECONDS


def flag_rule(prefilled: Sequence[PrefillItem]) -> tuple[int, float | None, bool]:
    """(items unchanged in under 3 s, their share of the prefilled items, flagged): flagged
    when that share is above 95% (exactly 95% is not)."""
    fast = sum(1 for item in prefilled if is_fast_unchanged(item))
    if not prefilled:
        return 0, None, False
    share = fast / len(prefilled)
    return fast, share, share > FLAG_UNCHANGED_SHARE


def _by_arm(items: Iterable[PrefillItem]) -> dict[str, list[PrefillItem]]:
    arms: dict[str, list[PrefillItem]] = {arm: [] for arm in ARMS}
    for item in items:
        if item.arm not in arms:
            raise ValueError(f"unknown arm {item.arm!r} (expected one of {ARMS})")
        arms[item.arm].append(item)
    return arms


def anchoring_report(
    items: Sequence[PrefillItem],
    *,
    metric: str,
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> AnchoringReport:
    """The report over every item; annotators in name order."""
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    overall_arms = _by_arm(items)
    by_annotator: dict[str, list[PrefillItem]] = defaultdict(list)
    for item in items:
        by_annotator[item.annotator].append(item)
    rows = []
    for annotator in sorted(by_annotator):
        arms = _by_arm(by_annotator[annotator])
        fast, share, flagged = flag_rule(arms[PREFILLED])
        figures = {
            arm: arm_figures(arms[arm], group=f"{annotator}|{arm}", seed=seed, resamples=resamples)
            for arm in ARMS
        }
        rows.append(
            AnnotatorAnchoring(annotator, figures[PREFILLED], figures[BLIND], fast, share, flagged)
        )
    overall = {
        arm: arm_figures(
            overall_arms[arm], group=f"{OVERALL}|{arm}", seed=seed, resamples=resamples
        )
        for arm in ARMS
    }
    return AnchoringReport(
        metric=metric,
        resamples=resamples,
        seed=seed,
        confidence=CONFIDENCE,
        flag_unchanged_share=FLAG_UNCHANGED_SHARE,
        flag_seconds=FLAG_SECONDS,
        overall=overall,
        annotators=rows,
    )
