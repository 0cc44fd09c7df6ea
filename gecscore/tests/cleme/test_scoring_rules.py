"""Length weighting, reference selection and input checks, worked out from specs/cleme.md 3-5."""

from __future__ import annotations

import math

import pytest

from gecscore.cleme.model import ClemeInputError, Sentence, SpanEdit, make_sentence
from gecscore.cleme.scorers import cleme
from gecscore.cleme.v2 import Factors, aspects, cleme2
from gecscore.cleme.weighting import (
    CORPUS_WEIGHTING,
    SENTENCE_DEPENDENT_WEIGHTING,
    SENTENCE_INDEPENDENT_WEIGHTING,
    LengthWeight,
    WeightedCounts,
    default_weighting,
)

SOURCE = tuple("abcdefg")


def sub(start: int, end: int, text: str) -> SpanEdit:
    return SpanEdit(start, end, tuple(text.split()), "S")


def test_weight_is_one_at_the_mean_length_and_clipped_far_from_it() -> None:
    weight = LengthWeight(2.0, 0.75, 1.25)
    assert weight(2, 2.0) == 1.0
    assert weight(2, 2.0, reverse=True) == 1.0
    assert weight(30, 2.0) == 1.25  # long TP/FN: more credit, capped
    assert weight(30, 2.0, reverse=True) == 0.75  # long FP: less blame, floored
    # Unclipped middle of the sigmoid: a / (1 + (a - 1) e^{-(l - b)}).
    assert LengthWeight(2.0, 0.0, 2.0)(3, 2.0) == pytest.approx(2 / (1 + math.exp(-1)))


def test_default_tables_follow_spec_section_4() -> None:
    assert default_weighting("corpus", "dependent") == CORPUS_WEIGHTING
    assert default_weighting("corpus", "independent") == CORPUS_WEIGHTING
    assert default_weighting("sentence", "dependent") == SENTENCE_DEPENDENT_WEIGHTING
    assert default_weighting("sentence", "independent") == SENTENCE_INDEPENDENT_WEIGHTING
    assert SENTENCE_INDEPENDENT_WEIGHTING.tp == LengthWeight(10.0, 2.5, 10.0)
    assert SENTENCE_DEPENDENT_WEIGHTING.fp == LengthWeight(10.0, 0.25, 1.0)


def test_precision_and_recall_are_one_without_fp_or_fn() -> None:
    assert WeightedCounts().prf() == (1.0, 1.0, 1.0)
    assert WeightedCounts(fp=1.0).prf() == (0.0, 1.0, 0.0)


def test_sentence_level_prefers_the_lower_accuracy_on_ties_like_v1() -> None:
    # Hypothesis: wrong fix of chunk "a". Reference A also fixes "c", B fixes "c" and "e":
    # against both P = R = F = 0, accuracy 4/6 (A) vs 3/6 (B); v1.0 keeps B's.
    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    ref = make_sentence(
        SOURCE, [[sub(0, 1, "Y"), sub(2, 3, "C")], [sub(0, 1, "Y"), sub(2, 3, "C"), sub(4, 5, "E")]]
    )
    score = cleme([hyp], [ref], level="sentence", length_weighting=False)
    assert (score.f, score.p, score.r) == (0.0, 0.0, 0.0)
    assert score.acc == 0.5


def test_corpus_level_picks_the_reference_that_maximises_running_f() -> None:
    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    ref = make_sentence(SOURCE, [[sub(2, 3, "C")], [sub(0, 1, "X")]])
    score = cleme([hyp], [ref], length_weighting=False)
    # chunks: [a] b [c] d-g; against reference 2: TP "X", TN b, c, d-g.
    assert (score.tp, score.fp, score.fn, score.tn) == (1.0, 0.0, 0.0, 3.0)
    assert score.f == 1.0


def test_sentence_without_any_change_scores_one() -> None:
    unchanged = make_sentence(SOURCE, [[]])
    score = cleme([unchanged], [make_sentence(SOURCE, [[]])], level="sentence")
    assert (score.p, score.r, score.f, score.acc) == (1.0, 1.0, 1.0, 1.0)


def test_reference_deleting_everything_is_dropped_unless_alone() -> None:
    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    delete_all = [sub(0, 7, "")]
    with_empty = make_sentence(SOURCE, [delete_all, [sub(0, 1, "X")]])
    # The empty reference would merge the sentence into one chunk; dropped, the hypothesis
    # matches the other reference exactly.
    assert cleme([hyp], [with_empty], length_weighting=False).f == 1.0
    alone = make_sentence(SOURCE, [delete_all])
    assert cleme([hyp], [alone], length_weighting=False).fp == 1.0


def test_max_refs_uses_only_the_first_references() -> None:
    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    ref = make_sentence(SOURCE, [[sub(0, 1, "Y")], [sub(0, 1, "X")]])
    assert cleme([hyp], [ref], length_weighting=False).f == 1.0
    assert cleme([hyp], [ref], length_weighting=False, max_refs=1).f == 0.0


def test_cleme2_aspects_and_factor_check() -> None:
    result = aspects(tp=2, fp_ne=1, fp_un=1, fn=1, factors=Factors(0.45, 0.35, 0.15, 0.05))
    assert (result.hit, result.wrong, result.under, result.over) == (0.5, 0.25, 0.25, 0.25)
    assert result.score == pytest.approx(0.45 * 0.5 + 0.35 * 0.75 + 0.15 * 0.75 + 0.05 * 0.75)
    with pytest.raises(ValueError, match="sum to 1"):
        Factors(0.5, 0.5, 0.5, 0.0)


def test_cleme2_nothing_to_correct_and_nothing_done_scores_one_minus_hit_factor() -> None:
    unchanged = make_sentence(SOURCE, [[]])
    score = cleme2([unchanged], [make_sentence(SOURCE, [[]])], level="sentence")
    assert score.hit == 0.0
    assert score.score == pytest.approx(1 - 0.35)


def test_mismatched_inputs_are_clear_errors() -> None:
    hyp = make_sentence(SOURCE, [[]], "hyp.m2, line 1")
    other = make_sentence(("z",), [[]], "ref.m2, line 1")
    with pytest.raises(ClemeInputError, match="hyp.m2, line 1 and ref.m2, line 1: the source"):
        cleme([hyp], [other])
    with pytest.raises(ClemeInputError, match="1 sentences but the references have 0"):
        cleme([hyp], [])
    two = make_sentence(SOURCE, [[], []], "hyp.m2, line 5")
    with pytest.raises(ClemeInputError, match="hyp.m2, line 5: a hypothesis needs exactly one"):
        cleme([two], [make_sentence(SOURCE, [[]])])
    with pytest.raises(ClemeInputError, match="ref.m2, line 9: the sentence has no reference"):
        cleme([hyp], [make_sentence(SOURCE, [], "ref.m2, line 9")])


def test_per_sentence_scores_name_the_chosen_reference() -> None:
    from gecscore.cleme.evaluate import evaluate_chunks
    from gecscore.cleme.scorers import sentence_scores
    from gecscore.cleme.v2 import sentence_scores2
    from gecscore.cleme.weighting import NO_WEIGHTING

    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    ref = make_sentence(
        SOURCE, [[sub(0, 1, "Y"), sub(2, 3, "C")], [sub(0, 1, "Y"), sub(2, 3, "C"), sub(4, 5, "E")]]
    )
    (detail,) = sentence_scores(evaluate_chunks([hyp], [ref]), weighting=NO_WEIGHTING)
    assert (detail.reference, detail.acc) == (1, 0.5)  # the lower accuracy, as v1.0
    (detail2,) = sentence_scores2(evaluate_chunks([hyp], [ref]))
    # Sentence factors .35/.25/.20/.20: reference A (wrong 1/2, under 1/2) scores 0.425,
    # reference B (wrong 1/3, under 2/3) 0.4333, so B is chosen.
    assert detail2.reference == 1
    assert (detail2.counts.fp_ne, detail2.counts.fn) == (1.0, 2.0)


def test_sentence_level_means_match_per_sentence_scores(
    mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    from gecscore.cleme.evaluate import evaluate_chunks
    from gecscore.cleme.scorers import numpy_mean, sentence_scores

    details = sentence_scores(evaluate_chunks(mucgec_hyps["example"], mucgec_refs))
    assert len(details) == 1137
    assert round(numpy_mean([d.f for d in details]), 4) == 0.3736  # spec section 8


def test_accuracy_variant_chooses_references_by_accuracy() -> None:
    # Chunks a|b|c|d|e|fg. Reference A agrees on "X" but also fixes c and e (TP 1, FN 2,
    # TN 3: F 0.7143, accuracy 4/6); reference C changes nothing (FP 1, TN 5: F 0, 5/6).
    hyp = make_sentence(SOURCE, [[sub(0, 1, "X")]])
    ref = make_sentence(SOURCE, [[sub(0, 1, "X"), sub(2, 3, "C"), sub(4, 5, "E")], []])
    by_f = cleme([hyp], [ref], level="sentence", length_weighting=False)
    by_acc = cleme([hyp], [ref], level="sentence", length_weighting=False, select="accuracy")
    assert (by_f.f, by_f.acc) == (0.7143, 0.6667)
    assert (by_acc.f, by_acc.acc) == (0.0, 0.8333)
    corpus_acc = cleme([hyp], [ref], length_weighting=False, select="accuracy")
    assert (corpus_acc.tp, corpus_acc.fp, corpus_acc.fn, corpus_acc.tn) == (0.0, 1.0, 0.0, 5.0)
    assert corpus_acc.signature.endswith("|select:accuracy")
