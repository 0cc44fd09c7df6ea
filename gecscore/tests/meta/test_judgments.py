"""Judgment files: Appraise XML in and out, the pairwise expansion, WMT CSV, bad input."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gecscore.meta.judgments import (
    JudgmentFormatError,
    pairwise,
    read_judgments_xml,
    read_pairwise_csv,
    unexpanded_comparisons,
    write_judgments_xml,
    write_pairwise_csv,
)
from tests.shared import shared_missing


def test_gjg15_xml_expands_to_the_published_expanded_csv(conll14: Path) -> None:
    """The pairwise expansion of judgments.xml (collapsed entries split into equal ranks)
    gives exactly gecmetrics' expanded.csv: same (segment, judge, pair, relation) multiset."""
    judgments = read_judgments_xml(conll14 / "human" / "judgments.xml")
    assert len(judgments.items) == 2319
    ours = Counter(
        (p.segment, p.user, p.system_a, p.system_b, p.relation) for p in pairwise(judgments.items)
    )
    published = read_pairwise_csv(conll14 / "human" / "expanded.csv.gz")
    theirs = Counter((p.segment, p.user, p.system_a, p.system_b, p.relation) for p in published)
    assert sum(ours.values()) == 109098
    assert ours == theirs


def test_gjg15_xml_gives_the_published_unexpanded_csv(conll14: Path, tmp_path: Path) -> None:
    """One pair per two outputs shown (collapsed outputs not split), as gecmetrics'
    unexpanded.csv: the same rows per ranking (rankingID, segment, judge, ranks); a collapsed
    output is named there by a member the XML does not record, so a row's systems are checked
    to be members of two different outputs of that item with those ranks."""
    judgments = read_judgments_xml(conll14 / "human" / "judgments.xml")
    ours = unexpanded_comparisons(judgments.items)
    out = tmp_path / "unexpanded.csv"
    out.write_text(write_pairwise_csv(ours, testset="conll14st-test"), encoding="utf-8")
    again = read_pairwise_csv(out)
    theirs = read_pairwise_csv(conll14 / "human" / "unexpanded.csv.gz")
    assert len(again) == len(theirs) == 20516

    # read_pairwise_csv numbers rows by file line; ranking ids are the CSV's last column.
    def by_ranking(path: Path) -> list[int]:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            return [int(line.rsplit(",", 1)[1]) for line in handle.read().splitlines()[1:]]

    rows = lambda pairs, ids: Counter(  # noqa: E731
        (i, p.segment, p.user, tuple(sorted((p.rank_a, p.rank_b))))
        for p, i in zip(pairs, ids, strict=True)
    )
    assert rows(again, by_ranking(out)) == rows(
        theirs, by_ranking(conll14 / "human" / "unexpanded.csv.gz")
    )
    ids = by_ranking(conll14 / "human" / "unexpanded.csv.gz")
    for pair, ranking in zip(theirs, ids, strict=True):
        item = judgments.items[ranking - 1]
        entry_a = next(e for e in item.entries if pair.system_a in e.systems)
        entry_b = next(e for e in item.entries if pair.system_b in e.systems)
        assert entry_a is not entry_b and (entry_a.rank, entry_b.rank) == (pair.rank_a, pair.rank_b)
    for pair, ranking in zip(again, by_ranking(out), strict=True):
        item = judgments.items[ranking - 1]
        assert {pair.system_a, pair.system_b} <= {e.systems[0] for e in item.entries}


@pytest.mark.parametrize(
    "relative", ["conll14/human/judgments.xml", "seeda/data/judgments_edit.xml"]
)
def test_export_import_round_trip_is_identical(shared_data: Path, relative: str) -> None:
    path = shared_data / relative
    if not path.exists():
        shared_missing(f"{relative} is absent")
    judgments = read_judgments_xml(path)
    text = write_judgments_xml(judgments)
    again = read_judgments_xml(io.BytesIO(text.encode("utf-8")))
    assert again == judgments
    assert write_judgments_xml(again) == text
    skipped = [item for item in judgments.items if item.skipped]
    if relative.startswith("conll14"):
        assert len(skipped) == 13  # kept through the round trip, never expanded into pairs


def test_pairwise_csv_round_trip(conll14: Path, tmp_path: Path) -> None:
    pairs = read_pairwise_csv(conll14 / "human" / "unexpanded.csv.gz")
    out = tmp_path / "pairs.csv.gz"
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        handle.write(write_pairwise_csv(pairs, testset="conll14st-test"))
    again = read_pairwise_csv(out)
    assert [(p.segment, p.user, p.system_a, p.system_b, p.relation) for p in again] == [
        (p.segment, p.user, p.system_a, p.system_b, p.relation) for p in pairs
    ]


GOOD_ITEM = (
    '<ranking-item id="1" src-id="3" user="j1">'
    '<translation rank="1" system="A B"/><translation rank="2" system="C"/></ranking-item>'
)


def _xml(body: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results>\n'
        '<error-correction-ranking-result id="x">\n' + body + "\n</error-correction-ranking-result>"
        "\n</appraise-results>\n"
    ).encode()


def test_collapsed_entries_are_split_into_equal_ranks() -> None:
    judgments = read_judgments_xml(io.BytesIO(_xml(GOOD_ITEM)))
    relations = {(p.system_a, p.system_b): p.relation for p in pairwise(judgments.items)}
    assert relations == {("A", "B"): "=", ("A", "C"): "<", ("B", "C"): "<"}


def test_malformed_xml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    path.write_bytes(_xml(GOOD_ITEM + '\n<ranking-item id="2" src-id="4" user="j1">'))
    with pytest.raises(
        JudgmentFormatError, match=r"bad\.xml, line 6, column 3: malformed XML \(mismatched tag\)$"
    ):
        read_judgments_xml(path)


def test_unknown_system_names_the_item() -> None:
    with pytest.raises(JudgmentFormatError, match=r"#1 \(id='1'\): unknown system 'C'"):
        read_judgments_xml(io.BytesIO(_xml(GOOD_ITEM)), systems=["A", "B"])


def test_duplicate_item_and_twice_ranked_system_are_errors() -> None:
    with pytest.raises(JudgmentFormatError, match=r"#2 \(id='1'\): duplicate item"):
        read_judgments_xml(io.BytesIO(_xml(GOOD_ITEM + GOOD_ITEM)))
    twice = GOOD_ITEM.replace('system="C"', 'system="A"')
    with pytest.raises(JudgmentFormatError, match="system 'A' is ranked twice"):
        read_judgments_xml(io.BytesIO(_xml(twice)))


def test_cli_reports_bad_xml_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    path.write_bytes(b"<appraise-results><error-correction-ranking-result>")
    done = subprocess.run(
        [sys.executable, "-m", "gecscore", "meta", "rank", "--judgments", str(path), "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "bad.xml, line 1" in done.stderr
