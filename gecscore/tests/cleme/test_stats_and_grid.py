"""ICC / IUC / CC hold-out (docs/metrics/cleme.md) and the review grid, on hand-made sentences."""

from __future__ import annotations

from pathlib import Path

from gecscore.cleme.grid import chunk_grid, chunk_grid_from_texts
from gecscore.cleme.model import SpanEdit, make_sentence
from gecscore.cleme.stats import chunk_statistics, hold_out_counts
from gecscore.resources import load_resources

SOURCE = tuple("abcde")


def sub(start: int, end: int, text: str) -> SpanEdit:
    return SpanEdit(start, end, tuple(text.split()), "S")


def test_hold_out_classifies_inside_corrected_inside_unchanged_and_crossing() -> None:
    inside = make_sentence(SOURCE, [[sub(1, 2, "B")], [sub(1, 2, "X"), sub(3, 4, "D")]])
    # Ref 0 held out: its [1,2) lies in ref 1's corrected chunk. Ref 1 held out: [1,2) lies in
    # ref 0's corrected chunk, [3,4) in the unchanged chunk [2,5).
    assert hold_out_counts(inside) == {"icc": 2, "iuc": 1, "cc": 0}
    crossing = make_sentence(SOURCE, [[sub(1, 3, "Q")], [sub(2, 4, "R")]])
    assert hold_out_counts(crossing) == {"icc": 0, "iuc": 0, "cc": 2}


def test_insertion_at_a_corrected_chunk_border_is_inside_it() -> None:
    sentence = make_sentence(SOURCE, [[sub(1, 2, "B")], [sub(2, 2, "X")]])
    # Held out, the insertion at 2 touches the corrected chunk [1, 2]: ICC. The other way
    # round, [1, 2) lies in the unchanged chunk [0, 2) next to the dummy chunk [2, 2]: IUC.
    assert hold_out_counts(sentence) == {"icc": 1, "iuc": 1, "cc": 0}


def test_single_reference_sentences_have_nothing_to_hold_out() -> None:
    assert hold_out_counts(make_sentence(SOURCE, [[sub(1, 2, "B")]])) == {
        "icc": 0,
        "iuc": 0,
        "cc": 0,
    }


def test_chunk_statistics_counts_columns_and_ratios() -> None:
    sentences = [
        make_sentence(SOURCE, [[sub(1, 2, "B")], [sub(1, 2, "X"), sub(3, 4, "D")]]),
        make_sentence(SOURCE, [[sub(0, 0, "Z")]]),
    ]
    stats = chunk_statistics(sentences)
    # Sentence 1: a | b | c | d | e -> 3 unchanged, 2 corrected; sentence 2: dummy + "a..e".
    assert (stats.unchanged, stats.corrected, stats.dummy, stats.chunks) == (4, 2, 1, 7)
    assert stats.unchanged_mean_length == (1 + 1 + 1 + 5) / 4
    assert stats.corrected_mean_length == 1.0
    assert stats.changed_mean_length == 1.0  # four changed cells of length 1
    assert (stats.held_out_edits, stats.icc, stats.iuc, stats.cc) == (3, 2 / 3, 1 / 3, 0.0)


def test_grid_aligns_three_corrections_column_by_column() -> None:
    source = tuple("我们去北京。")
    corrections = [
        [sub(2, 3, "来")],  # 我们来北京。
        [SpanEdit(2, 2, ("要",), "M")],  # 我们要去北京。
        [],  # unchanged
    ]
    grid = chunk_grid(source, corrections)
    assert [c.source for c in grid.columns] == ["我们", "去", "北京。"]
    assert [c.kind for c in grid.columns] == ["unchanged", "corrected", "unchanged"]
    assert [c.disagree for c in grid.columns] == [False, True, False]
    assert [[cell.text for cell in row] for row in grid.rows] == [
        ["我们", "来", "北京。"],
        ["我们", "要去", "北京。"],
        ["我们", "去", "北京。"],
    ]
    assert [[cell.changed for cell in row] for row in grid.rows] == [
        [False, True, False],
        [False, True, False],
        [False, False, False],
    ]


def test_grid_from_texts_uses_the_extractor(shared_data: Path) -> None:
    resources = load_resources(shared_data / "cherrant-resources")
    grid = chunk_grid_from_texts(
        "我们去北京。", ["我们来北京。", "没有错误", "我们去了北京。"], resources=resources
    )
    assert ["".join(cell.text for cell in row) for row in grid.rows] == [
        "我们来北京。",
        "我们去北京。",
        "我们去了北京。",
    ]
    changed_columns = [i for i, c in enumerate(grid.columns) if c.disagree]
    assert all(grid.columns[i].kind != "unchanged" for i in changed_columns)
    assert not any(cell.changed for cell in grid.rows[1])


def test_sentences_from_texts_feed_the_metric(shared_data: Path) -> None:
    from gecscore.cleme.inputs import sentences_from_texts
    from gecscore.cleme.scorers import cleme

    resources = load_resources(shared_data / "cherrant-resources")
    refs = sentences_from_texts(
        [("我们去北京。", ["我们来北京。", "没有错误"])], resources=resources
    )
    hyps = sentences_from_texts([("我们去北京。", ["我们来北京。"])], resources=resources)
    assert [len(s.corrections) for s in refs] == [2]
    assert refs[0].corrections[1] == ()
    score = cleme(hyps, refs, length_weighting=False)
    assert (score.tp, score.fp, score.fn) == (1.0, 0.0, 0.0)
