"""A tiny randomly initialised BERT, built on the fly: no download, seconds on a CPU."""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Characters of the Chinese sentences the tests use are added on top of these.
BASE_CHARS = (
    string.ascii_lowercase + string.digits + string.punctuation + "，。、；：？！“”（）《》"
)


def build_tiny_bert(directory: Path, extra_chars: str, *, seed: int = 0) -> Path:
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    chars = sorted(set(BASE_CHARS) | {c for c in extra_chars if not c.isspace()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += chars
    # WordPiece continuation pieces so English words split into characters, not [UNK].
    vocab += [f"##{c}" for c in string.ascii_lowercase + string.digits]
    directory.mkdir(parents=True, exist_ok=True)
    vocab_file = directory / "vocab.txt"
    vocab_file.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(vocab_file=str(vocab_file), do_lower_case=True, model_max_length=128)
    tokenizer.save_pretrained(str(directory))
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=160,
    )
    torch.manual_seed(seed)
    BertModel(config).eval().save_pretrained(str(directory))
    return directory


@pytest.fixture(scope="session")
def mucgec_blocks(shared_data: Path) -> list:  # type: ignore[type-arg]
    from scoring.gec.m2 import read_m2

    return read_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.m2")


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory, mucgec_blocks: list) -> Path:  # type: ignore[type-arg]
    text = "".join(
        block.source + "".join(t.text or "" for t in block.targets) for block in mucgec_blocks[:80]
    )
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), text)
