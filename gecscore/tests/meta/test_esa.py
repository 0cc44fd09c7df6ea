"""ESA results, agreement and the human-score lines, each checked against numbers worked out
by hand on a small fixture (the arithmetic is written beside each expectation)."""

from __future__ import annotations

import pytest

from gecscore.meta.esa import (
    EsaRow,
    EsaSpan,
    count_units,
    esa_report,
    score_correlation,
    span_agreement,
    system_results,
    wmt_score_lines,
)
from gecscore.meta.scorefiles import read_system_scores


def rows() -> list[EsaRow]:
    """Two items; output 1 of s1 was written by B and C alike. j1 saw s1 a second time."""
    return [
        EsaRow("s1", 0, "j1", ("A",), "ab cd", 80, (EsaSpan(0, 2, "minor"),)),
        EsaRow("s1", 0, "j2", ("A",), "ab cd", 60, (EsaSpan(1, 3, "major"),)),
        EsaRow("s1", 1, "j1", ("B", "C"), "xyz", 40, (EsaSpan(0, 1, "major"),)),
        EsaRow("s1", 1, "j2", ("B", "C"), "xyz", 50),
        EsaRow("s2", 0, "j1", ("A",), "abcd", 100),
        EsaRow("s2", 1, "j1", ("B",), "wxyz", 20, (EsaSpan(0, 4, "major"),)),
        # the repeat showing counts nowhere
        EsaRow("s1", 0, "j1", ("A",), "ab cd", 0, (EsaSpan(0, 5, "major"),), repeat=True),
    ]


def test_units_are_words_in_english_and_characters_in_chinese():
    assert count_units("I has a dog .", "en") == 5
    assert count_units("我 有 狗。", "zh") == 4


def test_system_means_and_spans_per_100_units_by_hand():
    by_system = {r.system: r for r in system_results(rows())}
    a, b, c = by_system["A"], by_system["B"], by_system["C"]
    # A: scores 80, 60, 100 -> 80; units 4 + 4 + 4 (spaces not counted); 1 major, 1 minor
    assert (a.mean_score, a.units, a.major, a.minor) == (80.0, 12, 1, 1)
    assert a.major_per_100 == pytest.approx(100 / 12)
    # B: 40, 50, 20 -> 36.67; units 3 + 3 + 4; 2 major -> 20 per 100
    assert b.mean_score == pytest.approx(110 / 3)
    assert (b.units, b.major, b.minor, b.major_per_100) == (10, 2, 0, 20.0)
    # C shares s1's output with B: 40, 50 -> 45; 1 major in 6 characters
    assert c.mean_score == 45.0
    assert c.major_per_100 == pytest.approx(100 / 6)
    assert [r.system for r in system_results(rows())] == ["A", "C", "B"]
    assert [r.rank for r in system_results(rows())] == [1, 2, 3]


def test_span_f1_on_character_overlap_by_hand():
    agreement = span_agreement(rows())
    # s1/0: j1 {0,1} minor, j2 {1,2} major: overlap 1, severities differ, 4 marked;
    # s1/1: j1 {0}, j2 nothing: overlap 0, 1 marked. F1 = 2*1 / 5.
    assert (agreement.pairs, agreement.overlap, agreement.marked) == (2, 1, 5)
    assert agreement.f1 == pytest.approx(0.4)
    assert agreement.f1_severity == 0.0


def test_span_f1_is_none_without_any_span():
    plain = [EsaRow("s", 0, "a", ("A",), "xy", 90), EsaRow("s", 0, "b", ("A",), "xy", 80)]
    assert span_agreement(plain).f1 is None


def test_score_correlation_by_hand():
    r, pairs = score_correlation(rows())
    # pairs (80, 60) and (40, 50), each in both orders: mean 57.5, sum dx*dy = 375,
    # sum dx^2 = 875 -> r = 3/7
    assert pairs == 2
    assert r == pytest.approx(375 / 875)


def test_bootstrap_is_seeded_and_brackets_the_means():
    first = {r.system: r for r in system_results(rows(), samples=200, seed=7)}
    again = {r.system: r for r in system_results(rows(), samples=200, seed=7)}
    assert first["A"].score_interval == again["A"].score_interval
    low, high = first["A"].score_interval
    # resampling items {s1, s2}: A's mean lies between s1 alone (70) and s2 alone (100)
    assert 70 <= low <= 80 <= high <= 100
    assert first["A"].rank_range == (1, 1)  # A is first in every resample
    assert first["C"].rank_range is not None


def test_report_and_wmt_lines_read_back_as_human_scores(tmp_path):
    report = esa_report(rows(), samples=0)
    assert list(report["systems"]) == ["A", "C", "B"]
    assert report["agreement"]["span_f1"] == 0.4
    path = tmp_path / "esa.txt"
    scores = {name: row["mean_score"] for name, row in report["systems"].items()}
    path.write_text("\n".join(wmt_score_lines(scores)) + "\n", encoding="utf-8")
    assert read_system_scores(path).scores == pytest.approx(scores)


def test_esa_entries_round_trip_through_appraise_xml():
    from gecscore.meta.judgments import (
        JudgmentFormatError,
        JudgmentSet,
        RankedEntry,
        RankingItem,
        RankingResult,
        read_judgments_xml,
        write_judgments_xml,
    )

    entry = RankedEntry(
        systems=("A", "B"),
        rank=1,
        score=73,
        spans=(EsaSpan(0, 2, "minor", "prefilled"), EsaSpan(4, 5, "", "dismissed")),
        text='他 "是" <个>',
    )
    item = RankingItem("1", "7", "j1", (entry, RankedEntry(("C",), 2, score=10)))
    judgments = JudgmentSet((RankingResult((("id", "x"),), (item,)),))
    text = write_judgments_xml(judgments)
    # Appraise's names, its inclusive end: characters 0-1 are start_i 0, end_i 1
    assert '<esa-span start_i="0" end_i="1" severity="minor" origin="prefilled"/>' in text
    assert read_judgments_xml(text.encode()) == judgments
    bad = text.replace('score="73"', 'score="130"')
    with pytest.raises(JudgmentFormatError, match="0-100"):
        read_judgments_xml(bad.encode())


def test_self_consistency_and_judge_summary_by_hand():
    from gecscore.meta.esa import judge_summary, self_consistency

    with_repeats = [*rows(), EsaRow("s1", 1, "j1", ("B", "C"), "xyz", 30, repeat=True)]
    r, pairs = self_consistency(with_repeats)
    # j1's (first, repeat): (80, 0) and (40, 30), both orders: mean 37.5,
    # sum dx*dy = -3225, sum dx^2 = 3275
    assert pairs == 2
    assert r == pytest.approx(-3225 / 3275)
    summary = judge_summary(rows())
    # j1: 80, 40, 100, 20 over 4 + 3 + 4 + 4 characters, 2 major and 1 minor
    assert summary["j1"]["outputs"] == 4 and summary["j1"]["mean_score"] == 60
    assert summary["j1"]["major_per_100"] == pytest.approx(200 / 15)
    assert summary["j1"]["minor_per_100"] == pytest.approx(100 / 15)
    # j2: 60, 50 over 4 + 3 characters, 1 major
    assert summary["j2"]["mean_score"] == 55
    assert summary["j2"]["major_per_100"] == pytest.approx(100 / 7)
