"""The candidate references ``ieval.py -nomix`` builds from a gold M2 block, in its order."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gecscore.english.gleu import tokens as python2_tokens
from gecscore.english.imeasure.aligner import align_counts_many
from gecscore.english.imeasure.counts import SentenceCounts
from gecscore.m2 import NOOP_TYPE, M2Block

__all__ = [
    "GoldSentence",
    "candidate_references",
    "gold_sentences",
    "python2_order",
    "tokenise_correction",
]


# NLTK word_tokenize rules (nltk 3.4.5, as run by m2_to_ixml.py) that can split an already
# tokenised correction, in NLTK's order. Quote conversion and contraction splitting are not
# reproduced (no CoNLL-2014 correction has a double quote or an unsplit contraction).
_CORRECTION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile("([^\\.])(\\.)([\\]\\)}>\"'\u00bb\u201d\u2019 ]*)\\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.\.\."), r" ... "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> "),
    (re.compile(r"--"), r" -- "),
)


def tokenise_correction(text: str) -> str:
    """A correction as m2_to_ixml.py writes it (first alternative, NLTK-style splitting)."""
    text = text.split("||")[0]
    for pattern, replacement in _CORRECTION_RULES:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def _python2_hash(text: str) -> int:
    """CPython 2.7's hash of a str/unicode (no -R), as a signed 64-bit integer."""
    if not text:
        return 0
    mask = (1 << 64) - 1
    value = ord(text[0]) << 7
    for char in text:
        value = ((1000003 * value) ^ ord(char)) & mask
    value ^= len(text)
    if value >= 1 << 63:
        value -= 1 << 64
    return -2 if value == -1 else value


def python2_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a Python 2.7 dict (or set) after inserting ``keys`` in order."""
    unique = list(dict.fromkeys(keys))
    size = 8
    table: list[str | None] = [None] * size

    def insert(slots: list[str | None], key: str) -> None:
        mask = len(slots) - 1
        hashed = _python2_hash(key)
        index = hashed & mask
        perturb = hashed & ((1 << 64) - 1)
        while slots[index & mask] is not None:
            index = ((index << 2) + index + perturb + 1) & ((1 << 64) - 1)
            perturb >>= 5
        slots[index & mask] = key

    for fill, key in enumerate(unique, start=1):
        insert(table, key)
        if fill * 3 >= size * 2:  # dictresize / set_table_resize to 4 x used
            new_size = 8
            while new_size <= 4 * fill:
                new_size <<= 1
            old = table
            size = new_size
            table = [None] * size
            for existing in old:
                if existing is not None:
                    insert(table, existing)
    return [key for key in table if key is not None]


@dataclass(frozen=True)
class GoldSentence:
    source: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]  # candidate references, in the order they are tried
    base: tuple[SentenceCounts, ...]  # the source as hypothesis, against each reference


def _apply_corrections(source: list[str], edits: Sequence[tuple[int, int, str]]) -> str:
    corrected = source[:]
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        previous = corrected[:]
        corrected[start:end] = text.split()
        if not corrected:  # NUCLE has long deletions with no correction: keep the sentence
            corrected = previous
    joined = " ".join(corrected)
    return joined if joined.strip() else " ".join(source)


def candidate_references(block: M2Block) -> list[tuple[str, ...]]:
    """The references ``ieval.py -nomix`` tries for one gold block, in its order."""
    source = python2_tokens(block.source)
    source_text = " ".join(source)
    by_annotator: dict[int, list[tuple[int, int, str]]] = {}
    present: set[int] = set()
    for target in block.targets:
        for edit in target.edits:
            present.add(edit.annotator)
            if (edit.start, edit.end) == (-1, -1) and edit.type.lower() == NOOP_TYPE:
                continue
            text = "" if edit.correction == "-NONE-" else tokenise_correction(edit.correction)
            by_annotator.setdefault(edit.annotator, []).append((edit.start, edit.end, text))
    texts: list[str] = []
    if not present or len(by_annotator) < len(present):
        texts.append(source_text)
    # Annotators are visited in the order of a Python 2 set of their ids (as strings), filled
    # in the order their alternatives appear in the converted file (by error span).
    first_span = {a: min((s, e) for s, e, _ in edits) for a, edits in by_annotator.items()}
    annotators = python2_order(
        str(a) for a in sorted(by_annotator, key=lambda a: (first_span[a], a))
    )
    for annotator in annotators:
        merged: dict[tuple[int, int], str] = {}
        for start, end, text in by_annotator[int(annotator)]:
            key = (start, end)
            merged[key] = f"{merged[key]} {text}" if key in merged else text
        edits = [(s, e, t) for (s, e), t in merged.items()]
        texts.append(_apply_corrections(list(source), edits))
    return [tuple(text.split()) for text in python2_order(texts)]


def gold_sentences(blocks: Sequence[M2Block]) -> list[GoldSentence]:
    """Candidate references and their baseline counts for every block of a gold M2."""
    sources = [tuple(python2_tokens(block.source)) for block in blocks]
    references = [tuple(candidate_references(block)) for block in blocks]
    base = iter(
        align_counts_many(
            [(s, s, r) for s, refs in zip(sources, references, strict=True) for r in refs]
        )
    )
    return [
        GoldSentence(source, refs, tuple(next(base) for _ in refs))
        for source, refs in zip(sources, references, strict=True)
    ]
