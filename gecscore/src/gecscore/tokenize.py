"""Pre-processing and tokenisation of sentences (ChERRANT ``parallel_to_m2`` semantics).

* All whitespace inside a sentence is removed (text is not pre-segmented).
* Targets (never sources) go through OpenCC ``t2s`` unless ``simplified=False``.
* Char tokens: one per Unicode character, except the literal ``[缺失成分]`` (one token).
* Word tokens: jieba segmentation, with ``[缺失成分]`` kept as one token.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gecscore.errors import OptionError

__all__ = [
    "GRANULARITIES",
    "MISSING_COMPONENT",
    "char_tokens",
    "normalize_source",
    "normalize_target",
    "remove_whitespace",
    "to_simplified",
    "tokenize",
    "word_tokens",
]

MISSING_COMPONENT = "[缺失成分]"
GRANULARITIES = ("char", "word")


def remove_whitespace(text: str) -> str:
    return "".join(text.split())


@lru_cache(maxsize=1)
def _t2s() -> Any:
    import opencc  # local import: loading the OpenCC dictionaries takes ~50 ms

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    return str(_t2s().convert(text))


def normalize_source(text: str) -> str:
    return remove_whitespace(text)


def normalize_target(text: str, *, simplified: bool = True) -> str:
    text = remove_whitespace(text)
    return to_simplified(text) if simplified else text


def char_tokens(text: str) -> list[str]:
    """One token per character; ``[缺失成分]`` stays whole (ChERRANT joins it back)."""
    if MISSING_COMPONENT not in text:
        return list(text)
    tokens: list[str] = []
    for index, piece in enumerate(text.split(MISSING_COMPONENT)):
        if index:
            tokens.append(MISSING_COMPONENT)
        tokens.extend(piece)
    return tokens


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.add_word(MISSING_COMPONENT)
    return tokenizer


def word_tokens(text: str) -> list[str]:
    """jieba segmentation (precise mode, HMM on); ``[缺失成分]`` is one token."""
    tokens: list[str] = []
    for index, piece in enumerate(text.split(MISSING_COMPONENT)):
        if index:
            tokens.append(MISSING_COMPONENT)
        if piece:
            tokens.extend(word for word in _jieba().lcut(piece) if word)
    return tokens


def tokenize(text: str, granularity: str = "char") -> list[str]:
    if granularity == "char":
        return char_tokens(text)
    if granularity == "word":
        return word_tokens(text)
    raise OptionError(f"granularity must be one of {GRANULARITIES}, got {granularity!r}")


# The name the package exports (``gecscore.chinese_tokens``): ``gecscore.tokenize`` is this
# module, and once the module is imported the package attribute of that name is the module,
# so a function exported under it would be shadowed.
chinese_tokens = tokenize
