"""Turn M2 files or raw parallel text into ``Sentence`` objects for the chunk metrics.

M2 (ChERRANT or ERRANT) is read by ``scoring.gec.m2``; here we only pick what CLEME reads:
per annotator the edits of its FIRST alignment (``T<r>-A0``; ChERRANT's further alignments
are skipped, unlike ChERRANT's own union), without noop / NA edits, so a "没有错误" or
"无法标注" target is an unchanged correction.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from scoring.gec.cleme.model import ClemeInputError, Sentence, SpanEdit, make_sentence
from scoring.gec.m2 import NA_TYPE, NONE_CORRECTION, NOOP_TYPE, M2Block, read_m2


def _correction_tokens(correction: str) -> tuple[str, ...]:
    return () if correction == NONE_CORRECTION else tuple(correction.split())


def sentence_from_m2_block(block: M2Block, name: str = "") -> Sentence:
    """The corrections of one M2 block, one per annotator in file order (first alignment)."""
    seen: set[int] = set()
    corrections: list[list[SpanEdit]] = []
    for target in block.targets:
        if target.annotator in seen:
            continue  # T<r>-A<k>, k >= 1: another alignment of a correction we already have
        seen.add(target.annotator)
        corrections.append(
            [
                SpanEdit(edit.start, edit.end, _correction_tokens(edit.correction), edit.type)
                for edit in target.edits
                if edit.start >= 0 and edit.type not in (NOOP_TYPE, NA_TYPE)
            ]
        )
    origin = f"{name}, line {block.line}" if name else f"line {block.line}"
    return make_sentence(block.source.split(), corrections, origin)


def sentences_from_m2(blocks: Sequence[M2Block], name: str = "") -> list[Sentence]:
    return [sentence_from_m2_block(block, name) for block in blocks]


def read_m2_sentences(path: str | os.PathLike[str]) -> list[Sentence]:
    """Read an M2 file; errors name the file and line."""
    blocks = read_m2(path)
    if not blocks:
        raise ClemeInputError(f"{path}: no M2 block found (empty file?)")
    return sentences_from_m2(blocks, str(Path(path)))
