"""CLEME2.0-sim: which pseudo-hypotheses are weighted (specs/cleme.md 6) and the provider path."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from gecscore.cleme.evaluate import evaluate_chunks
from gecscore.cleme.model import Sentence, SpanEdit, make_sentence
from gecscore.cleme.similarity import similarity_counts
from gecscore.cleme.v2 import cleme2
from gecscore.weights.base import ProgressCallback, SelfWeights, WeightRequest


class LengthOfEdited:
    """A real provider with a transparent rule: weight = characters of the edited sentence."""

    signature = "weights=len"

    def __init__(self) -> None:
        self.requests: list[WeightRequest] = []

    def weights(
        self, requests: Sequence[WeightRequest], *, progress: ProgressCallback | None = None
    ) -> list[float]:
        self.requests.extend(requests)
        return [float(len(r.edited)) for r in requests]


def sub(start: int, end: int, text: str) -> SpanEdit:
    return SpanEdit(start, end, tuple(text.split()), "S")


def test_pseudo_hypotheses_replace_one_chunk_of_the_source() -> None:
    source = tuple("abcdefg")
    hyp = make_sentence(source, [[sub(1, 2, "B"), sub(3, 4, "Q")]])
    ref = make_sentence(source, [[sub(1, 2, "B"), sub(5, 6, "F")]])
    provider = LengthOfEdited()
    ((counts,),) = similarity_counts(evaluate_chunks([hyp], [ref]), provider)
    # Chunks a|b|c|d|e|f|g: TP "B", FP "Q" (reference left d alone), FN the reference's "F".
    assert [(r.edited, r.reference) for r in provider.requests] == [
        ("a B c d e f g", "a B c d e F g"),
        ("a b c Q e f g", "a B c d e F g"),
        ("a b c d e F g", "a B c d e F g"),
    ]
    assert {r.source for r in provider.requests} == {"a b c d e f g"}
    assert (counts.tp, counts.fp, counts.fp_un, counts.fp_ne, counts.fn) == (13, 13, 13, 0, 13)
    assert counts.tn == 4.0  # chunks a, c, e, g weigh 1 each


def test_independent_weights_each_reference_in_turn() -> None:
    source = tuple("abc")
    hyp = make_sentence(source, [[sub(0, 1, "X")]])
    ref = make_sentence(source, [[sub(0, 1, "X")], [sub(0, 1, "X"), sub(2, 3, "")]])
    provider = LengthOfEdited()
    rows = similarity_counts(evaluate_chunks([hyp], [ref], assumption="independent"), provider)
    assert len(rows[0]) == 2
    assert [r.reference for r in provider.requests] == ["X b c", "X b"]


def test_empty_pseudo_hypothesis_falls_back_to_the_source() -> None:
    source = ("a",)
    hyp = make_sentence(source, [[sub(0, 1, "")]])
    provider = LengthOfEdited()
    similarity_counts(evaluate_chunks([hyp], [make_sentence(source, [[sub(0, 1, "b")]])]), provider)
    assert provider.requests[0].edited == "a"


def test_self_weights_give_the_unweighted_spec_numbers(
    mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    score = cleme2(mucgec_hyps["example"], mucgec_refs, weights=SelfWeights())
    assert (score.tp, score.fp_ne, score.fp_un, score.fn) == (994, 806, 797, 1901)
    assert round(score.score, 4) == 0.5022
    assert "similarity(weights=self)" in score.signature


@pytest.mark.slow
def test_bertscore_weights_on_a_tiny_bert(
    tmp_path: Path, mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    pytest.importorskip("torch", reason="needs the [weighted] extra")
    from gecscore.weights import make_provider
    from tests.weights.conftest import build_tiny_bert

    hyps, refs = mucgec_hyps["example"][:40], mucgec_refs[:40]
    text = "".join("".join(s.source) for s in refs)
    model = build_tiny_bert(tmp_path / "bert", text + "".join("".join(s.source) for s in hyps))
    weighted = cleme2(hyps, refs, weights=make_provider(str(model), num_layers=2, device="cpu"))
    plain = cleme2(hyps, refs)
    # Similarity weights are |F differences| in [0, 1]; TN chunks still weigh 1.
    assert 0 <= weighted.tp <= plain.tp and 0 <= weighted.fn <= plain.fn
    assert weighted.fp == pytest.approx(weighted.fp_ne + weighted.fp_un)
    assert weighted.tn == int(weighted.tn)  # TN chunks weigh 1
    assert weighted.tp + weighted.fp + weighted.fn < plain.tp + plain.fp + plain.fn
    assert 0.0 <= weighted.score <= 1.0
