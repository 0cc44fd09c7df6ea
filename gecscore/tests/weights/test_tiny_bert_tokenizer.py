"""The test model's tokenizer is real: its vocabulary covers the test sentences (no [UNK])."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from gecscore.m2 import read_m2
from gecscore.ptm2 import prepare_sentences, weight_requests


def _tokenizer(tiny_bert: Path):  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    # The way bert-score loads it (use_fast=False is its default).
    return AutoTokenizer.from_pretrained(str(tiny_bert), use_fast=False)


def _test_sentences(shared_data: Path, dataset: str, hyp: str, ref: str, limit: int) -> set[str]:
    folder = shared_data / dataset
    granularity = "char" if dataset == "mucgec-dev" else "word"
    sentences = prepare_sentences(
        read_m2(folder / hyp)[:limit], read_m2(folder / ref)[:limit], granularity=granularity
    )
    requests, _ = weight_requests(sentences, granularity=granularity)
    return {text for r in requests for text in (r.source, r.edited, r.reference) if text.strip()}


def test_vocabulary_has_every_word_and_character_of_the_test_text(
    tiny_bert: Path, tiny_bert_text: str
) -> None:
    tokenizer = _tokenizer(tiny_bert)
    vocab_lines = (tiny_bert / "vocab.txt").read_text(encoding="utf-8").splitlines()
    config = json.loads((tiny_bert / "config.json").read_text(encoding="utf-8"))
    # transformers 5 ignored `vocab_file=`: the old test tokenizer had 5 entries.
    assert len(tokenizer) == len(vocab_lines) == config["vocab_size"]
    cjk = {c for c in tiny_bert_text if unicodedata.name(c, "").startswith("CJK UNIFIED")}
    words = {w.lower() for w in tiny_bert_text.split() if w.isascii() and w.isalpha()}
    assert len(cjk) > 500 and len(words) > 500
    assert len(tokenizer) > len(cjk) + len(words)
    vocab = set(vocab_lines)
    assert cjk <= vocab and words <= vocab


def test_chinese_and_english_test_sentences_have_no_unknown_token(
    tiny_bert: Path, shared_data: Path
) -> None:
    tokenizer = _tokenizer(tiny_bert)
    chinese = _test_sentences(shared_data, "mucgec-dev", "example_pred_dev.m2", "MuCGEC_dev.m2", 40)
    english = _test_sentences(
        shared_data, "cleme-conll14", "conll14-AMU.errant", "conll14.errant", 40
    )
    assert len(chinese) > 100 and len(english) > 50
    for sentence in sorted(chinese | english):
        ids = tokenizer.encode(sentence, add_special_tokens=True, truncation=True)
        assert tokenizer.unk_token_id not in ids, (sentence, tokenizer.tokenize(sentence))
    # Chinese is split into characters, English into whole words.
    assert tokenizer.tokenize("我们今天去北京。") == list("我们今天去北京。")
    assert tokenizer.tokenize("What is genetic risk ?") == ["what", "is", "genetic", "risk", "?"]
