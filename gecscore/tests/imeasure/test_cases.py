"""I-measure on small cases: the definitions of Felice & Briscoe (2015) worked by hand, and
the reference tool's own alignments.

Counts per aligned token (source s, hypothesis h, reference r; correction aspect):
s = h = r: TN; s = h != r: FN; s != h, s = r: FP; s != h = r: TP; s, h, r all different:
FP + FN + FPN. WAcc = (w TP + TN) / (w (TP + FP) + TN + FN - (w + 1) FPN / 2) with w = 2;
the baseline is the source scored as the hypothesis; I = (WAcc - WAcc_b) / (1 - WAcc_b) when
better, WAcc / WAcc_b - 1 when worse, floor(WAcc) when equal.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gecscore.english.imeasure import (
    GoldSentence,
    align_counts,
    align_counts_many,
    candidate_references,
    gold_sentences,
    python2_order,
    score_corpus,
    tokenise_correction,
)
from gecscore.english.imeasure.aligner import _column_counts, _threeway_backtrace, _threeway_tables
from gecscore.m2 import parse_m2

DATA = Path(__file__).parent / "data"


def _gold(m2: str) -> list[GoldSentence]:
    return gold_sentences(parse_m2(m2))


ONE_ERROR = "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\n\n"


def test_a_correct_correction_scores_one():
    # Columns (a,a,a) TN, (b,x,x) TP, (c,c,c) TN: WAcc = (2*1 + 2) / (2*1 + 2) = 1.
    # Baseline (b,b,x) is an FN: WAcc_b = 2 / (2 + 1) = 2/3; I = (1 - 2/3) / (1 - 2/3) = 1.
    result = score_corpus([["a", "x", "c"]], _gold(ONE_ERROR))
    counts = result.correction.counts
    assert (counts.tp, counts.tn, counts.fp, counts.fn, counts.fpn) == (1, 2, 0, 0, 0)
    assert result.correction.wacc == 1.0
    assert result.correction.wacc_base == pytest.approx(2 / 3)
    assert result.imeasure == 1.0


def test_a_wrong_correction_is_an_fp_an_fn_and_an_fpn():
    # (b,y,x): detection TP; correction FP, FN and FPN.
    # WAcc = (0 + 2) / (2*(0 + 1) + 2 + 1 - 3 * 1/2) = 2 / 3.5 = 4/7; WAcc_b = 2/3;
    # worse than the baseline: I = (4/7) / (2/3) - 1 = 6/7 - 1 = -1/7.
    result = score_corpus([["a", "y", "c"]], _gold(ONE_ERROR))
    c = result.correction.counts
    assert (c.tp, c.tn, c.fp, c.fn, c.fpn) == (0, 2, 1, 1, 1)
    d = result.detection.counts
    assert (d.tp, d.tn, d.fp, d.fn, d.fpn) == (1, 2, 0, 0, 0)
    assert result.correction.wacc == pytest.approx(4 / 7)
    assert result.imeasure == pytest.approx(-1 / 7)


def test_a_change_where_the_reference_keeps_the_source_is_a_false_positive():
    # Gold: no edit (noop). (b,y,b): FP. WAcc = 2 / (2*1 + 2) = 1/2; WAcc_b = 3/3 = 1;
    # I = (1/2) / 1 - 1 = -1/2.
    gold = _gold("S a b c\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    result = score_corpus([["a", "y", "c"]], gold)
    c = result.correction.counts
    assert (c.tp, c.tn, c.fp, c.fn, c.fpn) == (0, 2, 1, 0, 0)
    assert result.imeasure == -0.5


def test_the_source_itself_scores_zero_or_one():
    # WAcc = WAcc_b: I = floor(WAcc), 0 with an error left, 1 on a correct sentence.
    assert score_corpus([["a", "b", "c"]], _gold(ONE_ERROR)).imeasure == 0.0
    noop = _gold("S a b c\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    assert score_corpus([["a", "b", "c"]], noop).imeasure == 1.0


def test_the_reference_with_the_best_wacc_is_kept_per_sentence():
    # Annotator 0 wants x, annotator 1 wants z; the hypothesis has z: I = 1 against ann. 1.
    gold = _gold(
        "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\nA 1 2|||R|||z|||REQUIRED|||-NONE-|||1\n\n"
    )
    assert len(gold[0].references) == 2
    result = score_corpus([["a", "z", "c"]], gold)
    assert result.imeasure == 1.0
    assert gold[0].references[result.sentences[0].reference] == ("a", "z", "c")


def test_corpus_scores_come_from_summed_counts():
    # Sentence 1: TP 1, TN 2 (baseline TN 2, FN 1). Sentence 2: FP 1, TN 2 (baseline TN 3).
    # Sum: WAcc = (2*1 + 4) / (2*(1 + 1) + 4) = 6/8; WAcc_b = 5 / (5 + 1) = 5/6;
    # I = (3/4) / (5/6) - 1 = 9/10 - 1 = -1/10.
    gold = _gold(ONE_ERROR + "S d e f\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    result = score_corpus([["a", "x", "c"], ["d", "y", "f"]], gold)
    assert result.correction.wacc == 0.75
    assert result.correction.wacc_base == pytest.approx(5 / 6)
    assert result.imeasure == pytest.approx(-0.1)


def test_candidates_absent_annotator_noop_annotator_and_emptying_deletion():
    # Annotator 1 absent: only annotator 0's correction.
    only_zero = parse_m2(ONE_ERROR)[0]
    assert candidate_references(only_zero) == [("a", "x", "c")]
    # Annotator 1 present with a noop: the source is a candidate too.
    with_noop = parse_m2(
        "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n"
    )[0]
    assert sorted(candidate_references(with_noop)) == [("a", "b", "c"), ("a", "x", "c")]
    # No A line at all: the source.
    assert candidate_references(parse_m2("S a b\n\n")[0]) == [("a", "b")]
    # A deletion of the whole sentence is skipped (the reference's NUCLE workaround).
    whole = parse_m2("S a b\nA 0 2|||Um||||||REQUIRED|||-NONE-|||0\n\n")[0]
    assert candidate_references(whole) == [("a", "b")]


def test_python2_dict_order_equals_python_2_7():
    # Printed by Python 2.7.18: list(d) after d[k] = 1 for these keys in this order (the
    # sixth insertion resizes the table).
    keys = ["a b", "c", "x y z", "q", "w", "e", "r", "t"]
    assert python2_order(keys) == ["c", "e", "x y z", "a b", "q", "r", "t", "w"]


@pytest.mark.parametrize(
    ("correction", "tokenised"),
    [  # nltk 3.4.5 word_tokenize on CoNLL-2014 gold corrections (printed by the reference run)
        ("known,the", "known , the"),
        ("a positive and a negative side.", "a positive and a negative side ."),
        ("their friends ' recent activity is.", "their friends ' recent activity is ."),
        ("one 's", "one 's"),
        ("", ""),
    ],
)
def test_corrections_are_tokenised_like_m2_to_ixml(correction: str, tokenised: str):
    assert tokenise_correction(correction) == tokenised


def test_alignment_counts_equal_the_reference_tools_alignment():
    """800 tie-heavy random triples: counts of ``align.Alignment`` + ``get_counts`` of
    mfelice/imeasure @fc79fdf under Python 2.7 (generated outside the repository)."""
    cases = json.loads((DATA / "reference_alignments.json").read_text(encoding="utf-8"))
    got = align_counts_many([(c["src"], c["hyp"], c["ref"]) for c in cases])
    for case, counts in zip(cases, got, strict=True):
        d, c = counts.detection, counts.correction
        assert [d.tp, d.tn, d.fp, d.fn, d.fpn] == case["det"], case
        assert [c.tp, c.tn, c.fp, c.fn, c.fpn] == case["cor"], case
    # One at a time gives the same as in a batch, and so does the bounded fill.
    for case, counts in list(zip(cases, got, strict=True))[:50]:
        assert align_counts(case["src"], case["hyp"], case["ref"]) == counts
    triples = [(c["src"], c["hyp"], c["ref"]) for c in cases]
    assert align_counts_many(triples, bounded_cells=1) == got


def test_the_bounded_fill_gives_the_whole_tables_counts_on_long_sentences():
    """Long sentences with a few edits each (where the bounded fill is used): the same counts
    as the whole table."""
    rng = random.Random(3)

    def edited(tokens: list[str]) -> list[str]:
        out = list(tokens)
        for _ in range(rng.randint(0, 6)):
            at, kind = rng.randrange(len(out) + 1), rng.random()
            if kind < 0.3 and at < len(out):
                out[at] = rng.choice("abcxyz")
            elif kind < 0.6:
                out.insert(at, rng.choice("abxyz"))
            elif at < len(out):
                del out[at]
        return out

    triples = []
    for _ in range(150):
        source = [rng.choice("abcdefghij") for _ in range(rng.randint(20, 45))]
        triples.append((source, edited(source), edited(source)))
    bounded = align_counts_many(triples, bounded_cells=1)
    assert bounded == align_counts_many(triples, bounded_cells=10**12)


def test_shared_prefix_and_suffix_do_not_change_counts():
    """Taking a shared prefix off is not proven safe (the whole-table back-trace may order
    tied columns differently): compare with the whole table on tie-heavy random triples."""
    rng = random.Random(11)
    triples = []
    for _ in range(1500):
        alphabet = rng.choice(["ab", "abc"])
        prefix = [rng.choice(alphabet) for _ in range(rng.randint(1, 3))]
        suffix = [rng.choice(alphabet) for _ in range(rng.randint(0, 2))]
        triple = tuple(
            prefix + [rng.choice(alphabet) for _ in range(rng.randint(0, 6))] + suffix
            for _ in range(3)
        )
        if triple[0] not in (triple[1], triple[2]):
            triples.append(triple)
    trimmed = align_counts_many(triples)
    for triple, counts in zip(triples, trimmed, strict=True):
        whole = _column_counts(_threeway_backtrace(_threeway_tables([triple])[0], triple))
        assert whole == counts, triple


def test_an_empty_sentence_scores_one_instead_of_dividing_by_zero():
    # Empty source, hypothesis and reference: no column, so no count. The reference tool
    # divides by zero; here WAcc = WAcc_b = 1 and I = floor(1) = 1, and the corpus is unchanged.
    gold = _gold("S \n\n" + ONE_ERROR)
    result = score_corpus([[], ["a", "x", "c"]], gold)
    assert result.sentences[0].imeasure == 1.0
    assert result.imeasure == 1.0
