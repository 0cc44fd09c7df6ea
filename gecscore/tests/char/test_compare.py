"""Every public number of spec char-metric.md section 8 (and the demo), from the M2 files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gecscore.compare import CompareError, compare_m2, reference_count_curve, scores
from gecscore.m2 import M2Block, parse_m2, read_m2

# Spec section 8: system -> TP, FP, FN, P, R, F0.5, F0.5 with first 1 / 2 / 3 references.
PUBLIC = {
    "example": (1084, 1635, 3003, 0.3987, 0.2652, 0.3622, (0.2759, 0.3424, 0.3614)),
    "source": (24, 6, 3618, 0.8, 0.0066, 0.0319, (0.0222, 0.0304, 0.0318)),
    "noop": (0, 0, 3625, 1.0, 0.0, 0.0, (0.0, 0.0, 0.0)),
    "oracle1": (4392, 0, 0, 1.0, 1.0, 1.0, (1.0, 1.0, 1.0)),
}

M2Reader = Callable[[str], list[M2Block]]


@pytest.mark.parametrize("system", sorted(PUBLIC))
def test_public_numbers_from_cherrant_m2(dev_m2: M2Reader, system: str) -> None:
    tp, fp, fn, p, r, f, first_k = PUBLIC[system]
    hyp, ref = dev_m2(f"{system}_pred_dev.m2"), dev_m2("MuCGEC_dev.m2")
    result = compare_m2(hyp, ref)
    assert (result.tp, result.fp, result.fn, result.p, result.r, result.f) == (tp, fp, fn, p, r, f)
    curve = reference_count_curve(hyp, ref, [1, 2, 3])
    assert tuple(c.f for c in curve) == first_k


def test_category_table_cat1(dev_m2: M2Reader) -> None:
    result = compare_m2(dev_m2("example_pred_dev.m2"), dev_m2("MuCGEC_dev.m2"), cat=1)
    table = {name: (s.tp, s.fp, s.fn, s.f) for name, s in result.categories.items()}
    assert table == {
        "M": (306, 322, 1129, 0.3876),
        "R": (278, 350, 557, 0.4153),
        "S": (486, 951, 1105, 0.3311),
        "W": (14, 12, 212, 0.2121),
    }


def test_no_simplified_files(dev_m2: M2Reader) -> None:
    result = compare_m2(dev_m2("example_pred_dev.nosimp.m2"), dev_m2("MuCGEC_dev.nosimp.m2"))
    assert (result.tp, result.fp, result.fn, result.f) == (1084, 1637, 3021, 0.3616)


def test_alternative_alignments_are_unioned(dev_m2: M2Reader) -> None:
    # Spec section 5: oracle1 scores 1.0 against default references, 0.9895 against `first`.
    assert compare_m2(dev_m2("oracle1_pred_dev.m2"), dev_m2("MuCGEC_dev.m2")).f == 1.0
    assert compare_m2(dev_m2("oracle1_pred_dev.m2"), dev_m2("MuCGEC_dev.first.m2")).f == 0.9895


def test_cherrant_demo_char_and_word(shared_data: Path) -> None:
    demo = shared_data / "cherrant-demo"
    char = compare_m2(read_m2(demo / "demo.hyp.m2.char"), read_m2(demo / "demo.ref.m2.char"))
    assert (char.tp, char.fp, char.fn, char.p, char.r, char.f) == (8, 19, 35, 0.2963, 0.186, 0.2649)
    word = compare_m2(read_m2(demo / "demo.hyp.m2.word"), read_m2(demo / "demo.ref.m2.word"))
    assert (word.tp, word.fp, word.fn, word.p, word.r, word.f) == (
        8,
        19,
        34,
        0.2963,
        0.1905,
        0.2667,
    )
    # ChERRANT's own demo files differ in one source character: reported, not fatal.
    assert char.source_mismatches == [1]


def _block(text: str) -> list[M2Block]:
    return parse_m2(text)


EDIT = "|||REQUIRED|||-NONE-|||"


def test_not_annotatable_sentence_is_skipped_and_na_beside_others_is_an_edit() -> None:
    hyp = _block(f"S a b\nT0-A0 a c\nA 1 2|||S|||c{EDIT}0\n")
    only_na = _block(f"S a b\nT0 无法标注\nA -1 -1|||NA|||-NONE-{EDIT}0\n")
    result = compare_m2(hyp, only_na)
    assert (result.tp, result.fp, result.fn) == (0, 0, 0)
    assert result.sentences[0].skipped == "not-annotatable"
    na_and_edit = _block(
        f"S a b\nT0 无法标注\nA -1 -1|||NA|||-NONE-{EDIT}0\nT1-A0 a d\nA 1 2|||S|||d{EDIT}1\n"
    )
    result = compare_m2(hyp, na_and_edit)
    # Against annotator 0 (NA edit): FP 1, FN 1 -> F 0; against annotator 1 also 0/1/1.
    assert (result.tp, result.fp, result.fn) == (0, 1, 1)


def test_greedy_choice_uses_running_totals_and_tie_breaks() -> None:
    hyp = _block(f"S a b\nT0-A0 a c\nA 1 2|||S|||c{EDIT}0\n")
    ref = _block(f"S a b\nT0-A0 a d\nA 1 2|||S|||d{EDIT}0\nT1-A0 a c\nA 1 2|||S|||c{EDIT}1\n")
    result = compare_m2(hyp, ref)
    assert (result.tp, result.fp, result.fn) == (1, 0, 0)
    assert (result.sentences[0].hyp_annotator, result.sentences[0].ref_annotator) == (0, 1)
    # With only the first reference the hypothesis is wrong.
    first = compare_m2(hyp, ref, max_refs=1)
    assert (first.tp, first.fp, first.fn) == (0, 1, 1)


def test_max_refs_beyond_three_and_reference_num() -> None:
    lines = ["S a b c d e\n"]
    for k in range(5):
        lines.append(f"T{k}-A0 x\nA {k} {k + 1}|||R|||-NONE-{EDIT}{k}\n")
    ref = _block("".join(lines))
    hyp = _block(f"S a b c d e\nT0-A0 x\nA 4 5|||R|||-NONE-{EDIT}0\n")
    assert compare_m2(hyp, ref, max_refs=4).tp == 0
    assert compare_m2(hyp, ref, max_refs=5).tp == 1
    assert compare_m2(hyp, ref, reference_num=5).tp == 1
    skipped = compare_m2(hyp, ref, reference_num=2)
    assert skipped.tp == 0 and skipped.sentences[0].skipped == "reference-count"


def test_detection_modes_on_a_small_block() -> None:
    hyp = _block(f"S a b c\nT0-A0 x\nA 0 2|||S|||x y{EDIT}0\nA 3 3|||M|||z{EDIT}0\n")
    ref = _block(f"S a b c\nT0-A0 x\nA 0 2|||S|||q{EDIT}0\nA 3 3|||M|||w{EDIT}0\n")
    assert compare_m2(hyp, ref).tp == 0
    assert compare_m2(hyp, ref, mode="ds").tp == 2  # same spans
    dt = compare_m2(hyp, ref, mode="dt")
    assert (dt.tp, dt.fp, dt.fn) == (3, 0, 0)  # tokens 0, 1 and the insertion point 3
    cse = compare_m2(hyp, _block(f"S a b c\nT0-A0 x\nA 0 2|||R|||x y{EDIT}0\n"), mode="cse")
    assert cse.tp == 0  # same span and correction, different type


def test_different_block_counts_are_an_error() -> None:
    one = _block("S a\n")
    with pytest.raises(CompareError, match="hypothesis has 1 sentences but the reference has 2"):
        compare_m2(one, one + one)
    hyp = _block("S a\n\nS c\n")
    ref = _block("S a\n\nS b\n\nS c\n")
    with pytest.raises(CompareError, match=r"number 2 \(hypothesis line 3, reference line 3\)"):
        compare_m2(hyp, ref)


def test_f_score_conventions() -> None:
    assert scores(0, 0, 0)[3:] == (1.0, 1.0, 1.0)
    assert scores(0, 0, 5)[3:] == (1.0, 0.0, 0.0)
    assert scores(0, 3, 0)[3:] == (0.0, 1.0, 0.0)


def test_sentence_categories_only_with_a_category_table_and_they_sum_to_it(
    dev_m2: M2Reader,
) -> None:
    hyp, ref = dev_m2("example_pred_dev.m2"), dev_m2("MuCGEC_dev.m2")
    plain = compare_m2(hyp, ref)
    assert not plain.categories and all(not s.categories for s in plain.sentences)
    table = compare_m2(hyp, ref, cat=3)
    assert (table.tp, table.fp, table.fn) == (plain.tp, plain.fp, plain.fn)
    assert [(s.tp, s.fp, s.fn, s.ref_annotator) for s in table.sentences] == [
        (s.tp, s.fp, s.fn, s.ref_annotator) for s in plain.sentences
    ]
    summed: dict[str, list[int]] = {}
    for sentence in table.sentences:
        for name, counts in sentence.categories.items():
            into = summed.setdefault(name, [0, 0, 0])
            for position in range(3):
                into[position] += counts[position]
        assert sum(c[0] for c in sentence.categories.values()) == sentence.tp
    assert {name: tuple(c) for name, c in summed.items()} == {
        name: (s.tp, s.fp, s.fn) for name, s in table.categories.items()
    }
