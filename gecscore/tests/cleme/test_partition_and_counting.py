"""Chunk partition and counting on small sentences worked out by hand from specs/cleme.md 2-3."""

from __future__ import annotations

import pytest

from gecscore.cleme.counting import count_dependent, count_independent
from gecscore.cleme.model import ClemeInputError, SpanEdit, make_sentence
from gecscore.cleme.partition import partition

SOURCE = tuple("abcde")


def sub(start: int, end: int, text: str, kind: str = "S") -> SpanEdit:
    return SpanEdit(start, end, tuple(text.split()), kind)


def test_insertion_touching_an_edit_merges_into_its_chunk() -> None:
    hyp = [sub(1, 2, "B")]
    ref_insert = [sub(2, 2, "X", "M")]  # touches the end of the hypothesis edit
    ref_other = [sub(3, 4, "D")]
    chunks = partition(SOURCE, [hyp, ref_insert, ref_other])

    assert [(s.start, s.end, s.kind) for s in chunks.spans] == [
        (0, 1, "unchanged"),
        (1, 2, "corrected"),
        (2, 3, "unchanged"),
        (3, 4, "corrected"),
        (4, 5, "unchanged"),
    ]
    assert chunks.tokens[0] == (("a",), ("B",), ("c",), ("d",), ("e",))
    # The insertion widened to the shared interval [1, 2) carries "b X".
    assert chunks.tokens[1] == (("a",), ("b", "X"), ("c",), ("d",), ("e",))
    assert chunks.tokens[2] == (("a",), ("b",), ("c",), ("D",), ("e",))
    assert chunks.changed == (
        (False, True, False, False, False),
        (False, True, False, False, False),
        (False, False, False, True, False),
    )


def test_isolated_insertions_are_dummy_chunks_at_both_ends() -> None:
    source = ("a", "b")
    chunks = partition(source, [[], [sub(0, 0, "X", "M"), sub(2, 2, "Y", "M")]])
    assert [(s.start, s.end, s.kind) for s in chunks.spans] == [
        (0, 0, "dummy"),
        (0, 2, "unchanged"),
        (2, 2, "dummy"),
    ]
    assert chunks.tokens[0] == ((), ("a", "b"), ())
    assert chunks.tokens[1] == (("X",), ("a", "b"), ("Y",))


def test_overlapping_edits_of_different_corrections_share_one_chunk() -> None:
    source = ("a", "b", "c")
    chunks = partition(source, [[sub(0, 2, "Z")], [sub(1, 3, "W")]])
    assert [(s.start, s.end) for s in chunks.spans] == [(0, 3)]
    assert chunks.tokens[0] == (("Z", "c"),)
    assert chunks.tokens[1] == (("a", "W"),)


def test_every_correction_gets_the_same_number_of_chunks() -> None:
    corrections = [[sub(0, 1, "A")], [sub(2, 2, "X", "M"), sub(4, 5, "")], []]
    chunks = partition(SOURCE, corrections)
    assert {len(row) for row in chunks.tokens} == {len(chunks.spans)}
    # Joining each row's chunks gives back that correction's full text.
    assert [sum(row, ()) for row in chunks.tokens] == [
        ("A", "b", "c", "d", "e"),
        ("a", "b", "X", "c", "d"),
        SOURCE,
    ]


def test_dependent_counting_per_reference_and_fp_kinds() -> None:
    chunks = partition(SOURCE, [[sub(1, 2, "B")], [sub(2, 2, "X", "M")], [sub(3, 4, "D")]])
    against_insert, against_other = count_dependent(chunks)
    # Reference 1 changed chunk 1 differently: a wrong correction (FP_ne).
    assert (against_insert.tp, against_insert.fp, against_insert.fp_necessary) == (
        (),
        (1,),
        (True,),
    )
    assert (against_insert.fn, against_insert.tn) == ((), 4)
    # Reference 2 left chunk 1 alone (FP_un) and changed chunk 3 (FN).
    assert (against_other.fp, against_other.fp_necessary) == ((1,), (False,))
    assert (against_other.fn, against_other.tn) == ((3,), 3)


def test_independent_counting_needs_all_references_for_a_fn() -> None:
    chunks = partition(SOURCE, [[sub(1, 2, "B")], [sub(2, 2, "X", "M")], [sub(3, 4, "D")]])
    (tally,) = count_independent(chunks)
    assert (tally.tp, tally.fp, tally.fp_necessary) == ((), (1,), (True,))
    assert tally.fn == ()  # only one of two references changed chunk 3
    assert tally.tn == 4


def test_chunk_equality_ignores_edit_types() -> None:
    chunks = partition(SOURCE, [[sub(1, 2, "B", "S")], [sub(1, 2, "B", "R:SPELL")]])
    (tally,) = count_dependent(chunks)
    assert tally.tp == (1,)


def test_independent_tp_when_any_reference_matches() -> None:
    chunks = partition(SOURCE, [[sub(1, 2, "B")], [sub(1, 2, "Q")], [sub(1, 2, "B")]])
    (tally,) = count_independent(chunks)
    assert tally.tp == (1,)
    first, second = count_dependent(chunks)
    assert (first.tp, second.tp) == ((), (1,))


def test_overlapping_edits_in_one_correction_are_rejected_with_origin() -> None:
    with pytest.raises(ClemeInputError, match=r"ref\.m2, line 7: correction 1: edit 2 3 overlaps"):
        make_sentence(SOURCE, [[], [sub(1, 3, "X"), sub(2, 3, "Y")]], "ref.m2, line 7")


def test_edit_outside_the_source_is_rejected() -> None:
    with pytest.raises(ClemeInputError, match="outside the source of 5 tokens"):
        make_sentence(SOURCE, [[sub(4, 6, "X")]], "hyp.m2, line 1")
