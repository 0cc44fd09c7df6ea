"""Turn M2 files or raw parallel text into ``Sentence`` objects for the chunk metrics.

Raw ``id \t source \t target...`` text gets its edits from the project's extractor
(``scoring.gec.extract``), the same one that writes our M2 files.

M2 (ChERRANT or ERRANT) is read by ``scoring.gec.m2``; here we only pick what CLEME reads:
per annotator the edits of its FIRST alignment (``T<r>-A0``; ChERRANT's further alignments
are skipped, unlike ChERRANT's own union), without noop / NA edits, so a "没有错误" or
"无法标注" target is an unchanged correction.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from scoring.gec.cleme.model import (
    ClemeInputError,
    Sentence,
    SpanEdit,
    Tokens,
    make_sentence,
)
from scoring.gec.collector import collector_paused
from scoring.gec.errors import first_nonblank_line
from scoring.gec.m2 import NA_TYPE, NONE_CORRECTION, NOOP_TYPE, M2Block, read_m2

# The extractor is imported only where raw text is read: M2 input does not need it
# (nor its resource loading), and `cleme` from M2 is meant to be quick.
if TYPE_CHECKING:
    from scoring.gec.extract import ParallelLine
    from scoring.gec.resources import Resources

_SKIPPED_TYPES = (NOOP_TYPE, NA_TYPE)


def sentence_from_m2_block(
    block: M2Block, name: str = "", tokens_of: dict[str, Tokens] | None = None
) -> Sentence:
    """The corrections of one M2 block, one per annotator in file order (first alignment).

    ``tokens_of`` memoises correction text -> tokens across the blocks of a file (the same
    short corrections recur thousands of times; the tuples are immutable, so shared).
    """
    if tokens_of is None:
        tokens_of = {}
    seen: set[int] = set()
    corrections: list[list[SpanEdit]] = []
    new_edit = tuple.__new__  # SpanEdit(...) without its keyword handling: the hot path
    for target in block.targets:
        if target.alternative != 0 or target.annotator in seen:
            continue  # T<r>-A<k>, k >= 1: another alignment of a correction we already have
        seen.add(target.annotator)
        edits: list[SpanEdit] = []
        for start, end, edit_type, correction, _ in target.edits:
            if start < 0 or edit_type in _SKIPPED_TYPES:
                continue
            tokens = tokens_of.get(correction)
            if tokens is None:
                tokens = () if correction == NONE_CORRECTION else tuple(correction.split())
                tokens_of[correction] = tokens
            edits.append(new_edit(SpanEdit, (start, end, tokens, edit_type)))
        corrections.append(edits)
    origin = f"{name}, line {block.line}" if name else f"line {block.line}"
    return make_sentence(block.source.split(), corrections, origin)


def sentences_from_m2(blocks: Sequence[M2Block], name: str = "") -> list[Sentence]:
    tokens_of: dict[str, Tokens] = {}
    with collector_paused():
        return [sentence_from_m2_block(block, name, tokens_of) for block in blocks]


def read_m2_sentences(path: str | os.PathLike[str]) -> list[Sentence]:
    """Read an M2 file; errors name the file and line."""
    blocks = read_m2(path)
    if not blocks:
        raise ClemeInputError(f"{path}: no M2 block found (empty file?)")
    return sentences_from_m2(blocks, os.fspath(path))  # not pathlib: ~4 ms of start-up


def sentences_from_parallel(
    lines: Sequence[ParallelLine],
    *,
    resources: Resources | None = None,
    granularity: str = "char",
    simplified: bool = True,
    name: str = "<input>",
    workers: int = 1,
) -> list[Sentence]:
    """Sentences of ``id \\t source \\t target...`` lines, edits from our extractor.

    Only the first cheapest alignment of each target is computed: it is all CLEME reads.
    ``workers`` > 1 extracts in that many processes (same result). ``granularity="errant"``
    takes English (whitespace-tokenised) text and ERRANT's edits, as ``errant_parallel``
    writes them.
    """
    if granularity == ERRANT_GRANULARITY:
        return sentences_from_m2(_errant_blocks(lines), name)
    from scoring.gec.extract import parallel_to_m2

    blocks, _ = parallel_to_m2(
        lines,
        resources=resources,
        granularity=granularity,
        strategy="first",
        simplified=simplified,
        name=name,
        workers=workers,
    )
    return sentences_from_m2(blocks, name)


ERRANT_GRANULARITY = "errant"


def _errant_blocks(lines: Sequence[ParallelLine]) -> list[M2Block]:
    """ERRANT M2 blocks of parallel lines in input order, one annotator per target."""
    from scoring.gec.english.errant_edits import ragged_m2_blocks

    for line in lines:
        if not line.source.strip():
            raise ClemeInputError(f"line {line.line}: empty source")
    blocks = ragged_m2_blocks([line.source for line in lines], [line.targets for line in lines])
    for line, block in zip(lines, blocks, strict=True):
        block.line = line.line
    return blocks


def sentences_from_texts(
    items: Sequence[tuple[str, Sequence[str]]],
    *,
    resources: Resources | None = None,
    granularity: str = "char",
    simplified: bool = True,
    workers: int = 1,
) -> list[Sentence]:
    """Sentences from in-memory ``(source, [correction, ...])`` pairs (e.g. database rows).

    Errors name the 1-based item number as the line.
    """
    from scoring.gec.extract import ParallelLine

    lines = [
        ParallelLine(str(number), source, tuple(targets), number)
        for number, (source, targets) in enumerate(items, start=1)
    ]
    return sentences_from_parallel(
        lines,
        resources=resources,
        granularity=granularity,
        simplified=simplified,
        name="<texts>",
        workers=workers,
    )


InputFormat = Literal["auto", "m2", "text"]


def detect_format(path: str | os.PathLike[str]) -> Literal["m2", "text"]:
    """M2 when the first non-blank line is an ``S`` line, parallel text when it has a tab."""
    stripped = first_nonblank_line(path)
    if stripped is not None:
        if stripped.startswith("S ") or stripped == "S":
            return "m2"
        if "\t" in stripped:
            return "text"
    raise ClemeInputError(
        f"{path}: cannot tell the format: expected an M2 file (first line 'S ...') or "
        "'id<TAB>source<TAB>target...' lines; pass the format explicitly"
    )


def read_sentences(
    path: str | os.PathLike[str],
    *,
    input_format: InputFormat = "auto",
    resources: Resources | None = None,
    granularity: str = "char",
    simplified: bool = True,
    workers: int = 1,
) -> list[Sentence]:
    """Read M2 or parallel text (detected by content unless ``input_format`` says)."""
    kind = detect_format(path) if input_format == "auto" else input_format
    if kind == "m2":
        return read_m2_sentences(path)
    if kind == "text":
        from scoring.gec.extract import read_parallel

        return sentences_from_parallel(
            read_parallel(path),
            resources=resources,
            granularity=granularity,
            simplified=simplified,
            name=str(path),
            workers=workers,
        )
    raise ValueError(f"input_format must be 'auto', 'm2' or 'text', got {input_format!r}")
