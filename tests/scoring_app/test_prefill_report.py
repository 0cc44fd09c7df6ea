"""The anchoring report's numbers (scoring/prefill.py) on rows whose figures are worked out by
hand; no database.

ann, prefilled: seconds 2, 4, 10 -> median 4; unchanged T, F, T -> 2/3;
    agreement (1,0,0) + (0,1,1) + (2,1,0) = 3/2/1: P .6, R .75, F0.5 .5625 / .9 = .625;
    suggestion of sentences 1, 2, 3: (1,0,0) + (0,0,1) + (0,2,1) = 1/2/2: P 1/3, R 1/3, F 1/3.
ann, blind: seconds 5, 7 -> median 6; unchanged F, F -> 0;
    agreement (1,0,1) + (1,0,0) = 2/0/1: P 1, R 2/3, F0.5 .83333 / .91667 = 10/11.
bea, prefilled only: seconds 1, 1 -> median 1; unchanged T, T -> 1; no references yet.
Overall prefilled: seconds 1, 1, 2, 4, 10 -> median 2; unchanged 4 of 5.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.annotator_metric import pooled_counts
from scoring.prefill import (
    BLIND,
    FLAG_SECONDS,
    PREFILLED,
    RESAMPLES,
    PrefillItem,
    _f05_rows,
    _mean_of_counts,
    _median_of_counts,
    anchoring_report,
    f05,
    flag_rule,
)


def item(
    annotator: str,
    sentence: int,
    arm: str,
    seconds: float,
    unchanged: bool,
    agreement: tuple[int, int, int] | None = None,
    suggestion: tuple[int, int, int] | None = None,
) -> PrefillItem:
    return PrefillItem(annotator, sentence, arm, seconds, unchanged, agreement, suggestion)


ROWS = [
    item("ann", 1, PREFILLED, 2, True, (1, 0, 0), (1, 0, 0)),
    item("ann", 2, PREFILLED, 4, False, (0, 1, 1), (0, 0, 1)),
    item("ann", 3, PREFILLED, 10, True, (2, 1, 0), (0, 2, 1)),
    item("ann", 4, BLIND, 5, False, (1, 0, 1)),
    item("ann", 5, BLIND, 7, False, (1, 0, 0)),
    item("bea", 1, PREFILLED, 1, True, None, (1, 0, 0)),
    item("bea", 2, PREFILLED, 1, True),
]


def report():  # type: ignore[no-untyped-def]
    return anchoring_report(ROWS, metric="ChERRANT char-level")


def test_per_annotator_figures_match_the_hand_computation() -> None:
    rows = {row.annotator: row for row in report().annotators}
    ann, bea = rows["ann"], rows["bea"]
    assert (ann.prefilled.items, ann.blind.items, bea.prefilled.items, bea.blind.items) == (
        3,
        2,
        2,
        0,
    )
    assert ann.prefilled.median_seconds.value == 4
    assert ann.blind.median_seconds.value == 6
    assert ann.prefilled.unchanged_share.value == pytest.approx(2 / 3)
    assert ann.blind.unchanged_share.value == 0
    assert ann.prefilled.f05.value == pytest.approx(0.625)
    assert ann.blind.f05.value == pytest.approx(10 / 11)
    assert ann.prefilled.suggestion_f05.value == pytest.approx(1 / 3)
    assert ann.blind.suggestion_f05 is None  # no suggestion known for those sentences
    assert bea.prefilled.median_seconds.value == 1
    assert bea.prefilled.unchanged_share.value == 1
    assert (bea.prefilled.scored_items, bea.prefilled.f05) == (0, None)
    assert bea.blind.median_seconds is None


def test_overall_figures_pool_the_annotators_and_count_a_sentence_once() -> None:
    overall = report().overall
    assert overall[PREFILLED].items == 5
    assert overall[PREFILLED].median_seconds.value == 2
    assert overall[PREFILLED].unchanged_share.value == pytest.approx(4 / 5)
    assert overall[PREFILLED].f05.value == pytest.approx(0.625)  # bea has no references yet
    # Sentences 1, 2, 3 once each although ann and bea both saw 1 and 2.
    assert overall[PREFILLED].suggestion_sentences == 3
    assert overall[PREFILLED].suggestion_f05.value == pytest.approx(1 / 3)
    assert overall[BLIND].median_seconds.value == 6


def test_f05_is_the_pooled_counts_f05_of_the_annotator_metric() -> None:
    for counts in [(3, 2, 1), (2, 0, 1), (0, 0, 0), (0, 3, 0), (0, 0, 4), (5, 0, 0)]:
        tp, fp, fn = counts
        pooled = pooled_counts([{"tp": tp, "fp": fp, "fn": 0}, {"tp": 0, "fp": 0, "fn": fn}])
        assert f05(*counts) == pytest.approx(pooled["f05"]), counts


def test_every_interval_brackets_its_point_estimate() -> None:
    result = report()
    groups = [*result.overall.values()]
    for row in result.annotators:
        groups += [row.prefilled, row.blind]
    checked = 0
    for figures in groups:
        for estimate in (
            figures.median_seconds,
            figures.unchanged_share,
            figures.f05,
            figures.suggestion_f05,
        ):
            if estimate is None:
                continue
            assert estimate.low <= estimate.value <= estimate.high, estimate
            checked += 1
    assert checked == 17  # 4 + 3 overall, 4 + 3 for ann, 3 for bea (no references)
    assert result.resamples == RESAMPLES == 1000


# 60 items with varied seconds and counts: resampled figures spread, so an unseeded or
# shared stream would show.
VARIED = [
    item(
        "ann" if n % 2 else "bea",
        n,
        PREFILLED if n % 5 else BLIND,
        (n * 7) % 31 + 1,
        n % 3 == 0,
        (n % 4, n % 3, (n * 5) % 4),
        (n % 2, (n + 1) % 3, n % 4),
    )
    for n in range(60)
]


def test_intervals_are_reproducible_with_the_seed_and_move_with_another() -> None:
    first = anchoring_report(VARIED, metric="m")
    assert anchoring_report(VARIED, metric="m") == first
    other = anchoring_report(VARIED, metric="m", seed=1)
    assert other.overall[PREFILLED].f05 != first.overall[PREFILLED].f05
    assert other.overall[PREFILLED].f05.value == first.overall[PREFILLED].f05.value
    # One annotator's intervals do not depend on the other annotators' rows.
    ann_alone = anchoring_report([r for r in VARIED if r.annotator == "ann"], metric="m")
    assert ann_alone.annotators[0] == first.annotators[0]
    assert ann_alone.annotators[0].annotator == "ann"


def test_the_resampled_f05_is_the_scalar_f05_row_by_row() -> None:
    rows = [(3, 2, 1), (2, 0, 1), (0, 0, 0), (0, 3, 0), (0, 0, 4), (5, 0, 0), (1, 1, 1)]
    vectorised = _f05_rows(np.array(rows))
    assert list(vectorised) == pytest.approx([f05(*row) for row in rows])


def test_an_interval_of_one_item_is_the_item_and_of_identical_items_too() -> None:
    single = anchoring_report([item("c", 1, PREFILLED, 8, False, (1, 1, 0))], metric="m")
    estimate = single.annotators[0].prefilled.median_seconds
    assert (estimate.value, estimate.low, estimate.high) == (8, 8, 8)
    same = anchoring_report([item("c", n, BLIND, 3, True) for n in range(5)], metric="m")
    share = same.overall[BLIND].unchanged_share
    assert (share.value, share.low, share.high) == (1, 1, 1)


def test_the_interval_of_a_median_is_the_known_percentile_interval() -> None:
    """Two items, 0 and 10 s: each resample's median is 0 (both 0), 5 or 10 (both 10), so
    the 95% interval's ends are 0 and 10 and the point is 5."""
    rows = [item("d", 1, PREFILLED, 0, False), item("d", 2, PREFILLED, 10, False)]
    estimate = anchoring_report(rows, metric="m").overall[PREFILLED].median_seconds
    assert (estimate.value, estimate.low, estimate.high) == (5, 0, 10)


def fast(count: int, *, seconds: float = 1.0) -> list[PrefillItem]:
    return [item("e", n, PREFILLED, seconds, True) for n in range(count)]


def test_flag_rule_at_its_boundaries() -> None:
    slow_edit = [item("e", 99, PREFILLED, 30, False)]
    # 19 of 20 = exactly 95%: not more than 95%, not flagged.
    assert flag_rule(fast(19) + slow_edit) == (19, 0.95, False)
    # 20 of 21 = 95.2%: flagged.
    assert flag_rule(fast(20) + slow_edit)[2] is True
    # All unchanged, but at exactly 3 s: not under 3 s, not flagged; just under: flagged.
    assert flag_rule(fast(10, seconds=FLAG_SECONDS)) == (0, 0.0, False)
    assert flag_rule(fast(10, seconds=2.999))[2] is True
    # Fast but edited items do not count.
    assert flag_rule([item("e", n, PREFILLED, 1, False) for n in range(10)])[2] is False
    assert flag_rule([]) == (0, None, False)


def test_the_report_flags_only_the_prefilled_rubber_stamper() -> None:
    rows = fast(21) + [item("f", 1, PREFILLED, 2, True), item("f", 2, PREFILLED, 40, False)]
    # Blind items do not dilute the share: e's 21 prefilled items are all fast and unchanged.
    rows += [item("e", 100 + n, BLIND, 60, False) for n in range(5)]
    result = anchoring_report(rows, metric="m")
    assert result.flagged == ["e"]
    flagged = {row.annotator: (row.fast_unchanged, row.flagged) for row in result.annotators}
    assert flagged == {"e": (21, True), "f": (1, False)}
    assert result.as_dict()["flagged"] == ["e"]


def test_an_unknown_arm_and_no_resamples_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown arm"):
        anchoring_report([item("g", 1, "maybe", 1, False)], metric="m")
    with pytest.raises(ValueError, match="resamples"):
        anchoring_report(ROWS, metric="m", resamples=0)


@pytest.mark.parametrize("items", [1, 2, 7, 10])
def test_a_resample_drawn_as_counts_has_the_median_and_mean_of_its_items(items: int) -> None:
    """The bootstrap draws how often each distinct value comes up; the statistics read from
    those counts equal numpy's median and mean of the items they stand for."""
    rng = np.random.default_rng(items)
    values = np.array([[1.0], [2.0], [4.0], [9.0], [30.0]])
    counts = rng.multinomial(items, [0.1, 0.3, 0.2, 0.3, 0.1], size=200)
    expanded = [np.repeat(values[:, 0], row) for row in counts]
    assert list(_median_of_counts(values, counts)) == [float(np.median(e)) for e in expanded]
    assert list(_mean_of_counts(values, counts)) == pytest.approx([e.mean() for e in expanded])
