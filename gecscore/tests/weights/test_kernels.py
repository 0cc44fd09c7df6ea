"""oneDNN linears and exact-length batches: faster, and the same numbers to float noise."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from gecscore.weights import BertScoreConfig, BertScoreWeights, kernels
from gecscore.weights.encoding import _length_batches

pytestmark = pytest.mark.skipif(not kernels.onednn_available(), reason="torch without oneDNN")


def _tiny_model(tiny_bert: Path) -> torch.nn.Module:
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(tiny_bert)).eval()


def test_every_linear_is_swapped_and_outputs_agree(tiny_bert: Path) -> None:
    plain = _tiny_model(tiny_bert)
    fast = _tiny_model(tiny_bert)
    linears = sum(type(m) is torch.nn.Linear for m in fast.modules())
    assert kernels.use_onednn_linears(fast) == linears > 0
    assert not any(type(m) is torch.nn.Linear for m in fast.modules())
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(5, 60, (4, 23), generator=generator)
    mask = torch.ones_like(ids)
    mask[1:, 17:] = 0  # padded rows too
    with torch.inference_mode():
        expected = plain(ids, attention_mask=mask)[0]
        got = fast(ids, attention_mask=mask)[0]
    assert float((got - expected).abs().max()) < 1e-5


def test_no_swap_when_the_self_check_disagrees(
    tiny_bert: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernels, "_agrees", lambda linear: False)
    model = _tiny_model(tiny_bert)
    assert kernels.use_onednn_linears(model) == 0
    assert any(type(m) is torch.nn.Linear for m in model.modules())


def test_length_batches_share_one_length_longest_first() -> None:
    items = [(f"s{i}", [0] * (3 + i % 5)) for i in range(47)]
    batches = _length_batches(items, 4)
    assert sorted(s for batch in batches for s, _ in batch) == sorted(s for s, _ in items)
    assert all(0 < len(batch) <= 4 for batch in batches)
    lengths = [len(batch[0][1]) for batch in batches]
    assert all(len(ids) == lengths[i] for i, batch in enumerate(batches) for _, ids in batch)
    assert lengths == sorted(lengths, reverse=True)


def test_embeddings_are_unit_rows(tiny_bert: Path) -> None:
    provider = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    sentences = ["abc def", "abd deg", "x", "", "一个句子。"]
    provider.encode(sentences)
    store = provider.encoder.store
    assert store is not None
    for sentence in sentences:
        vectors = store.rows([sentence])
        assert vectors.shape[0] == len(provider.tokenize(sentence))
        assert torch.allclose(vectors.norm(dim=-1), torch.ones(vectors.shape[0]), atol=1e-6)
    assert provider.stats.tokens_encoded == sum(len(provider.tokenize(s)) for s in sentences)
    assert provider.stats.tokens_padded == provider.stats.tokens_encoded  # CPU: exact lengths


def test_partial_sentences_are_dropped_and_the_rest_keep_their_vectors(tiny_bert: Path) -> None:
    provider = BertScoreWeights(BertScoreConfig(model=str(tiny_bert), num_layers=2, device="cpu"))
    kept = ["我们今天去北京。", "what is genetic risk ?", "一个句子。"]
    partial = [f"{sentence} {i}" for sentence in kept for i in range(6)]
    provider.encode(kept)
    store = provider.encoder.store
    assert store is not None
    before = {sentence: store.rows([sentence]).clone() for sentence in kept}
    pairs = [(p, kept[i // 6]) for i, p in enumerate(partial)]
    provider.score_pairs(pairs, persist=kept)
    # The partial sentences took more rows than the kept ones: the store was compacted.
    assert set(store.spans) == set(kept) and store.used == sum(len(v) for v in before.values())
    for sentence in kept:
        assert torch.equal(store.rows([sentence]), before[sentence])
