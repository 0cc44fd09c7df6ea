"""The one way to apply span edits (gecscore.edits) and its M2 door (gecscore.m2)."""

from __future__ import annotations

import pytest

from gecscore.edits import OverlappingEditsError, apply_edits
from gecscore.m2 import apply_m2_edits, correction_tokens

SOURCE = ["a", "b", "c", "d"]


def test_edits_apply_left_to_right_with_their_spans_in_the_result() -> None:
    edits = [(3, 4, ()), (1, 2, ("x", "y")), (0, 0, ("<",))]
    assert apply_edits(SOURCE, edits) == (["<", "a", "x", "y", "c"], [(0, 1), (2, 4), (5, 5)])


def test_insertions_at_one_point_keep_their_order_and_may_follow_an_edit() -> None:
    edits = [(1, 2, ("B",)), (2, 2, ("p",)), (2, 2, ("q",))]
    assert apply_edits(SOURCE, edits)[0] == ["a", "B", "p", "q", "c", "d"]


def test_no_edit_gives_the_source() -> None:
    assert apply_edits(SOURCE, []) == (SOURCE, [])


def test_an_edit_starting_inside_another_is_refused() -> None:
    with pytest.raises(OverlappingEditsError, match="overlapping edits at token 1") as info:
        apply_edits(SOURCE, [(0, 2, ("x",)), (1, 3, ("y",))])
    assert info.value.start == 1
    assert isinstance(info.value, ValueError)


def test_m2_corrections_and_markers() -> None:
    assert correction_tokens("-NONE-") == [] and correction_tokens("") == []
    assert correction_tokens("went  home") == ["went", "home"]
    edits = [(-1, -1, "-NONE-"), (0, 1, "-NONE-"), (2, 2, "x y"), (3, 4, "D")]
    assert apply_m2_edits(SOURCE, edits) == ["b", "x", "y", "c", "D"]
