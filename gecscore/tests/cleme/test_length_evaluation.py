"""``evaluate_lengths`` (what ``cleme`` runs) counts exactly as ``evaluate_chunks``.

The lean path builds no partition rows, only each correction's edited cells; every weighted
count it gives must equal, to the last bit, the one read from the full partition and its
tallies, for every system, assumption, reference limit and weighting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cleme.evaluate import (
    EMPTY_TARGETS,
    EmptyTargets,
    evaluate_chunks,
    evaluate_lengths,
)
from gecscore.cleme.inputs import read_m2_sentences
from gecscore.cleme.model import ClemeInputError, Sentence, SpanEdit, make_sentence
from gecscore.cleme.scorers import score_evaluation
from gecscore.cleme.weighting import (
    CORPUS_WEIGHTING,
    NO_WEIGHTING,
    SENTENCE_INDEPENDENT_WEIGHTING,
    LengthWeigher,
)


def _same_counts(
    hypotheses: list[Sentence],
    references: list[Sentence],
    assumption: str,
    max_refs: int | None = None,
    empty_targets: EmptyTargets = "head",
) -> None:
    options = {"assumption": assumption, "max_refs": max_refs, "empty_targets": empty_targets}
    full = evaluate_chunks(hypotheses, references, **options)  # type: ignore[arg-type]
    lean = evaluate_lengths(hypotheses, references, **options)  # type: ignore[arg-type]
    assert lean.mean_corrected_length == full.mean_corrected_length
    assert (lean.assumption, lean.max_refs) == (full.assumption, full.max_refs)
    for table in (CORPUS_WEIGHTING, SENTENCE_INDEPENDENT_WEIGHTING, NO_WEIGHTING):
        weigher = LengthWeigher(table, full.mean_corrected_length)
        assert lean.weighted_counts(weigher) == full.weighted_counts(weigher)
    for level in ("corpus", "sentence"):
        assert score_evaluation(lean, level=level) == score_evaluation(full, level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize("assumption", ["dependent", "independent"])
@pytest.mark.parametrize("system", ["example", "source", "noop", "oracle1"])
def test_mucgec_systems_count_the_same(
    mucgec_refs: list[Sentence],
    mucgec_hyps: dict[str, list[Sentence]],
    system: str,
    assumption: str,
) -> None:
    _same_counts(mucgec_hyps[system], mucgec_refs, assumption)


@pytest.mark.parametrize("max_refs", [1, 2])
def test_reference_limit_counts_the_same(
    mucgec_refs: list[Sentence], mucgec_hyps: dict[str, list[Sentence]], max_refs: int
) -> None:
    _same_counts(mucgec_hyps["example"], mucgec_refs, "dependent", max_refs)
    _same_counts(mucgec_hyps["example"], mucgec_refs, "independent", max_refs)


# POST has a hypothesis that deletes a whole sentence, which the two rules for empty
# corrections treat differently.
@pytest.mark.parametrize("empty_targets", EMPTY_TARGETS)
@pytest.mark.parametrize("system", ["AMU", "CAMB", "INPUT", "POST", "UMC"])
def test_conll14_systems_count_the_same(
    conll_dir: Path, system: str, empty_targets: EmptyTargets
) -> None:
    references = read_m2_sentences(conll_dir / "conll14.errant")
    hypotheses = read_m2_sentences(conll_dir / f"conll14-{system}.errant")
    _same_counts(hypotheses, references, "dependent", empty_targets=empty_targets)
    _same_counts(hypotheses, references, "independent", empty_targets=empty_targets)


def _edit(start: int, end: int, text: str) -> SpanEdit:
    return SpanEdit(start, end, tuple(text.split()), "S")


def test_merged_insertions_identity_edits_and_lists_count_the_same() -> None:
    source = tuple("abcdef")
    # Insertions touching a substitution, an edit that restores the source tokens, a
    # multi-edit interval, a correction given as lists of tokens, an empty reference.
    hyp = make_sentence(source, [[_edit(1, 2, "B"), _edit(2, 2, "X"), _edit(4, 5, "e")]])
    refs = make_sentence(
        source,
        [
            [_edit(1, 2, "B"), _edit(2, 2, "X")],
            [SpanEdit(0, 1, ["A"], "S"), _edit(2, 3, "c"), _edit(4, 5, "E")],  # type: ignore[arg-type]
            [_edit(0, 6, "")],
            [],
        ],
    )
    for assumption in ("dependent", "independent"):
        _same_counts([hyp], [refs], assumption)


def test_mismatched_inputs_raise_the_same_errors() -> None:
    one = make_sentence(tuple("ab"), [[]], "h, line 1")
    two = make_sentence(tuple("ab"), [[], []], "r, line 1")
    other = make_sentence(tuple("ax"), [[]], "r, line 1")
    for hypotheses, references in (([one], [one, one]), ([two], [two]), ([one], [other])):
        messages = []
        for evaluate in (evaluate_chunks, evaluate_lengths):
            with pytest.raises(ClemeInputError) as caught:
                evaluate(hypotheses, references)
            messages.append(str(caught.value))
        assert messages[0] == messages[1]
