"""Edit-level human results: edit precision with bootstrap intervals, kappa on verdicts, the
verdict-derived ranking, and edit verdicts through Appraise XML."""

from __future__ import annotations

import pytest

from gecscore.meta.edits import (
    edit_agreement,
    edit_precision,
    edit_report,
    verdict_rankings,
)
from gecscore.meta.judgments import (
    EditVerdict,
    JudgmentFormatError,
    JudgmentSet,
    RankedEntry,
    RankingItem,
    RankingResult,
    read_judgments_xml,
    write_judgments_xml,
)
from gecscore.meta.report import human_ranking


def _v(*flags: bool) -> tuple[EditVerdict, ...]:
    return tuple(
        EditVerdict(edit=i, correct=f, source=f"s{i}", target=f"t{i}") for i, f in enumerate(flags)
    )


def _item(
    user: str, src: str, *entries: tuple[tuple[str, ...], int, tuple[EditVerdict, ...]]
) -> RankingItem:
    return RankingItem(
        item_id=f"{user}-{src}",
        src_id=src,
        user=user,
        entries=tuple(RankedEntry(systems=s, rank=r, edits=e) for s, r, e in entries),
    )


ITEMS = [
    # sysA 2/2 + 1/1, sysB 1/2 + 0/1, sysC (collapsed with sysA in item 2) 1/2 + 1/1, INPUT none
    _item(
        "j1",
        "1",
        (("sysA",), 1, _v(True, True)),
        (("sysB",), 2, _v(True, False)),
        (("INPUT",), 3, ()),
    ),
    _item("j1", "2", (("sysA", "sysC"), 1, _v(True)), (("sysB",), 2, _v(False))),
    _item("j2", "1", (("sysC",), 1, _v(True, False)), (("INPUT",), 2, ())),
]


def test_edit_precision_counts_each_system_of_a_collapsed_output() -> None:
    rows = {p.system: p for p in edit_precision(ITEMS)}
    assert (rows["sysA"].judged, rows["sysA"].correct, rows["sysA"].precision) == (3, 3, 1.0)
    assert (rows["sysB"].judged, rows["sysB"].correct) == (3, 1)
    assert rows["sysB"].precision == pytest.approx(1 / 3)
    assert (rows["sysC"].judged, rows["sysC"].correct) == (3, 2)
    assert rows["INPUT"].judged == 0 and rows["INPUT"].precision is None
    assert [p.system for p in edit_precision(ITEMS)] == ["sysA", "sysC", "sysB", "INPUT"]


def test_bootstrap_interval_brackets_precision_and_repeats_with_the_seed() -> None:
    first = {p.system: p for p in edit_precision(ITEMS, samples=500, seed=3)}
    again = {p.system: p for p in edit_precision(ITEMS, samples=500, seed=3)}
    assert first == again
    for name in ("sysA", "sysB", "sysC"):
        interval = first[name].interval
        assert interval is not None
        assert interval[0] <= first[name].precision <= interval[1]  # type: ignore[operator]
    assert first["sysA"].interval == (1.0, 1.0)  # every resample: all of sysA's edits correct
    assert first["INPUT"].interval is None
    assert edit_precision(ITEMS)[0].interval is None  # no bootstrap, no interval


def test_kappa_on_verdicts_is_cohens_kappa_of_the_shared_decisions() -> None:
    # j1 and j2 judge the same four edits: c c i i vs c i i i.
    a = _item("j1", "9", (("s",), 1, _v(True, True, False, False)))
    b = _item("j2", "9", (("s",), 1, _v(True, False, False, False)))
    kappa = edit_agreement([a, b])
    p_agree = 3 / 4
    p_chance = (3 / 8) ** 2 + (5 / 8) ** 2  # labels pooled over both judges
    assert kappa.inter_kappa == pytest.approx((p_agree - p_chance) / (1 - p_chance))
    assert kappa.per_pair[("j1", "j2")][1] == 4


def test_verdict_rankings_order_outputs_by_net_correct_edits() -> None:
    item = _item(
        "j1",
        "5",
        (("A",), 4, _v(True, True)),  # +2
        (("B",), 1, _v(True, False)),  # 0
        (("C",), 2, ()),  # unchanged: 0
        (("D",), 3, _v(False)),  # -1
    )
    ranked = verdict_rankings([item, _item("j1", "6", (("A",), 1, ()))])
    assert len(ranked) == 1  # an item without any verdict gives no edit-based ranking
    assert [(e.systems, e.rank) for e in ranked[0].entries] == [
        (("A",), 1),
        (("B",), 2),
        (("C",), 2),
        (("D",), 3),
    ]
    report = human_ranking(ranked, method="ew")
    order = list(report["systems"])
    assert order[0] == "A" and order[-1] == "D"
    assert report["systems"]["A"]["expected_wins"] == 1.0
    assert report["systems"]["D"]["expected_wins"] == 0.0


def test_edit_report_is_none_without_verdicts_and_counts_what_was_judged() -> None:
    assert edit_report([_item("j1", "1", (("A",), 1, ()), (("B",), 2, ()))]) is None
    report = edit_report(ITEMS, samples=50, seed=1)
    assert report is not None
    assert report["verdicts"] == 2 + 2 + 1 + 1 + 2
    assert report["items"] == 3
    assert report["systems"][0]["system"] == "sysA"


def test_edit_verdicts_survive_appraise_xml() -> None:
    judgments = JudgmentSet(results=(RankingResult(attributes=(("id", "x"),), items=tuple(ITEMS)),))
    text = write_judgments_xml(judgments)
    assert '<edit correct="false" index="1" source="s1" target="t1"/>' in text
    assert read_judgments_xml(text.encode()) == judgments


def test_a_malformed_edit_names_the_item() -> None:
    text = (
        "<appraise-results><error-correction-ranking-result>"
        '<ranking-item id="7" src-id="1" user="u"><translation rank="1" system="A">'
        '<edit index="x" correct="maybe"/></translation></ranking-item>'
        "</error-correction-ranking-result></appraise-results>"
    )
    with pytest.raises(JudgmentFormatError, match=r"ranking-item> #1 \(id='7'\).*index="):
        read_judgments_xml(text.encode())
