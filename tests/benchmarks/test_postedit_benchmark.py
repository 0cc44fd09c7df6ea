"""benchmarks/postedit.py: the distances it prints, on items worked out by hand, and its
MuCGEC reader's markers on a small folder laid out as the shared one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def postedit() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import postedit
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    yield postedit


def test_distances_to_the_closest_reference_and_the_shares(postedit: ModuleType) -> None:
    items = [
        # source 2 edits from "abcd" (its closest), the suggestion 0 from "abXd"
        postedit.Item("1", "abcdef", "abXd", ("abcd", "abXd")),
        # the suggestion adds a wrong edit: 1 from the source's 0
        postedit.Item("2", "same", "sane", ("same",)),
        # as close: both 1 away
        postedit.Item("3", "cat", "cut", ("cot",)),
    ]
    rows = postedit.closest_distances(items, postedit.Levenshtein.distance)
    assert [(r.from_source, r.from_suggestion) for r in rows] == [(2, 0), (0, 1), (1, 1)]
    assert postedit.closest_distances(items, postedit.naive_distance) == rows
    totals = postedit.summary(rows)
    assert (totals["chars_from_source"], totals["chars_from_suggestion"]) == (3, 2)
    assert totals["chars_saved_share"] == pytest.approx(1 / 3)
    shares = ("suggestion_closer_share", "as_close_share", "suggestion_farther_share")
    assert [totals[key] for key in shares] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert totals["suggestion_exact_share"] == pytest.approx(1 / 3)


def test_mucgec_markers_read_as_the_source_or_left_out(
    postedit: ModuleType, tmp_path: Path
) -> None:
    folder = tmp_path / "mucgec-dev"
    folder.mkdir()
    (folder / "MuCGEC_dev.txt").write_text(
        "1\t他去了。\t没有错误\t他走了。\n2\t这个句子。\t无法标注\n", encoding="utf-8"
    )
    (folder / "example_pred_dev.txt").write_text(
        "1\t他去了。\t他去了。\n2\t这个句子。\t这句子。\n", "utf-8"
    )
    items, skipped = postedit.mucgec_items(tmp_path)
    assert skipped == 1
    assert items == [postedit.Item("1", "他去了。", "他去了。", ("他去了。", "他走了。"))]


def test_unknown_corpus_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "postedit.py"), "--corpus", "wmt"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "unknown ['wmt']" in done.stderr
