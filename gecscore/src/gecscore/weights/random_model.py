"""Randomly initialised BERT models with a real char + word vocabulary, built on the fly.

For tests and benchmarks that must run without downloading weights: the vocabulary is built
from the texts the model will see (every word and every character BERT's own normaliser and
pre-tokeniser produce from them, plus `##` continuations of every character), so no test or
benchmark sentence becomes `[UNK]`. Sizes: `tiny` (tests: 3 layers, hidden 32), `small`
(MiniLM-L6-H384 shape) and `base` (bert-base shape: 12 layers, hidden 768).

Never used by the metrics themselves: a random model gives reproducible, meaningless weights.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gecscore.errors import OptionError

__all__ = [
    "BASE_CHARS",
    "SHAPES",
    "SPECIAL_TOKENS",
    "BertShape",
    "build_random_bert",
    "build_vocab",
]

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# Always present so that text outside the given sentences still splits into known pieces.
BASE_CHARS = (
    string.ascii_lowercase + string.digits + string.punctuation + "，。、；：？！“”（）《》"
)


@dataclass(frozen=True)
class BertShape:
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int


SHAPES = {
    "tiny": BertShape(32, 3, 4, 64, 160),
    "small": BertShape(384, 6, 12, 1536, 512),  # all-MiniLM-L6-v2
    "base": BertShape(768, 12, 12, 3072, 512),  # bert-base-chinese / bert-base-uncased
}


def _basic_pieces(texts: Iterable[str]) -> set[str]:
    """What BERT's normaliser + pre-tokeniser make of the texts (lower-cased words, CJK chars)."""
    from transformers import BertTokenizer

    probe = BertTokenizer(vocab={token: i for i, token in enumerate(SPECIAL_TOKENS)})
    backend = probe.backend_tokenizer
    pieces: set[str] = set()
    for text in texts:
        normalized = backend.normalizer.normalize_str(text) if backend.normalizer else text
        if backend.pre_tokenizer is not None:
            pieces.update(piece for piece, _ in backend.pre_tokenizer.pre_tokenize_str(normalized))
        else:
            pieces.update(normalized.split())
    return pieces


def build_vocab(texts: Iterable[str]) -> list[str]:
    """Special tokens, then every word and character of `texts`, then `##` + each character."""
    words = _basic_pieces(texts)
    chars = set(BASE_CHARS) | {char for word in words for char in word}
    vocab = list(SPECIAL_TOKENS)
    vocab += sorted(words | chars)
    vocab += sorted(f"##{char}" for char in chars)
    return vocab


def build_random_bert(
    directory: Path,
    texts: Iterable[str],
    *,
    size: str = "tiny",
    seed: int = 0,
    model_max_length: int = 128,
    head: str | None = None,
) -> Path:
    """Save a random BERT (`size` from SHAPES) and its tokenizer into `directory`.

    ``head="regression"`` saves a BertForSequenceClassification with one output (the shape
    of SOME's and IMPARA's regressors) instead of the bare encoder."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizer

    if head not in (None, "regression"):
        raise ValueError(f"unknown head {head!r}: None or 'regression'")

    if size not in SHAPES:
        raise OptionError(f"unknown model size {size!r}: one of {', '.join(SHAPES)}")
    shape = SHAPES[size]
    vocab = build_vocab(texts)
    directory.mkdir(parents=True, exist_ok=True)
    # `vocab=` a mapping: transformers 5 ignores `vocab_file=` (every token became [UNK]).
    tokenizer = BertTokenizer(
        vocab={token: index for index, token in enumerate(vocab)},
        do_lower_case=True,
        model_max_length=min(model_max_length, shape.max_position_embeddings),
    )
    tokenizer.save_pretrained(str(directory))
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=shape.hidden_size,
        num_hidden_layers=shape.num_hidden_layers,
        num_attention_heads=shape.num_attention_heads,
        intermediate_size=shape.intermediate_size,
        max_position_embeddings=shape.max_position_embeddings,
    )
    if head == "regression":
        config.num_labels = 1  # one output: a regressor
    torch.manual_seed(seed)
    model: Any = BertModel(config) if head is None else BertForSequenceClassification(config)
    if head == "regression":
        # Wide head weights and a bias of 2.5: outputs spread over SOME's 1-4 scale instead of
        # all being ~0, so a wrong step in a metric moves the scores visibly.
        with torch.no_grad():
            model.classifier.weight.normal_(0.0, 4.0)
            model.classifier.bias.fill_(2.5)
    model.eval()
    model.save_pretrained(str(directory))
    return directory


def build_random_gpt2(
    directory: Path,
    texts: Iterable[str],
    *,
    seed: int = 0,
    vocab_size: int = 600,
    n_layer: int = 2,
    n_embd: int = 32,
    n_positions: int = 256,
    n_head: int = 4,
) -> Path:
    """Save a random GPT-2 and a byte-level BPE tokenizer trained on `texts` into `directory`.

    Byte-level BPE covers every string (no unknown token); ``<|endoftext|>`` is its BOS, EOS
    and UNK, as in GPT-2. The training is deterministic, so the same texts give the same
    vocabulary."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    special = "<|endoftext|>"
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(list(texts), vocab_size=vocab_size, special_tokens=[special])
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=bpe, bos_token=special, eos_token=special, unk_token=special
    )
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(directory))
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model: Any = GPT2LMHeadModel(config)
    model.eval()
    model.save_pretrained(str(directory))
    return directory
