"""Turn M2 files or raw parallel text into ``Sentence`` objects for the chunk metrics.

Raw ``id \t source \t target...`` text gets its edits from the project's extractor
(``gecscore.extract``), the same one that writes our M2 files.

M2 (ChERRANT or ERRANT) is read by ``gecscore.m2``; here we only pick what CLEME reads:
per annotator the edits of its FIRST alignment (``T<r>-A0``; ChERRANT's further alignments
are skipped, unlike ChERRANT's own union), without noop / NA edits, so a "没有错误" or
"无法标注" target is an unchanged correction.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

# The extractor is imported only where raw text is read: M2 input does not need it
# (nor its resource loading), and `cleme` from M2 is meant to be quick.
from typing import TYPE_CHECKING, Literal

from gecscore.cleme.model import (
    ClemeInputError,
    Sentence,
    SpanEdit,
    Tokens,
    make_sentence,
)
from gecscore.collector import collector_paused
from gecscore.errors import OptionError
from gecscore.m2 import (
    NA_TYPE,
    NONE_CORRECTION,
    NOOP_TYPE,
    M2Block,
    detect_format,
    read_m2,
)

if TYPE_CHECKING:
    from gecscore.extract import ParallelLine
    from gecscore.resources import Resources

__all__ = [
    "ERRANT_GRANULARITY",
    "detect_format",
    "read_m2_sentences",
    "read_sentences",
    "sentence_from_m2_block",
    "sentences_from_m2",
    "sentences_from_parallel",
    "sentences_from_texts",
]

_SKIPPED_TYPES = (NOOP_TYPE, NA_TYPE)


def sentence_from_m2_block(
    block: M2Block, name: str = "", tokens_of: dict[str, Tokens] | None = None
) -> Sentence:
    """The corrections of one M2 block, one per annotator in file order (first alignment).

    ``tokens_of`` memoises correction text -> tokens across the blocks of a file (the same
    short corrections recur thousands of times; the tuples are immutable, so shared).
    A block whose kept edits are in order, inside the source and apart (what our extractor
    and well-formed files give) becomes a ``Sentence`` directly; any other goes through
    ``make_sentence``, which sorts the edits or names the overlap.
    """
    if tokens_of is None:
        tokens_of = {}
    source = block.source.split()
    n_source = len(source)
    in_order = True
    seen: set[int] = set()
    corrections: list[list[SpanEdit]] = []
    new_edit = tuple.__new__  # SpanEdit(...) without its keyword handling: the hot path
    for target in block.targets:
        if target.alternative != 0 or target.annotator in seen:
            continue  # T<r>-A<k>, k >= 1: another alignment of a correction we already have
        seen.add(target.annotator)
        edits: list[SpanEdit] = []
        previous_end = 0
        for start, end, edit_type, correction, _ in target.edits:
            if start < 0 or edit_type in _SKIPPED_TYPES:
                continue
            if not previous_end <= start <= end <= n_source:
                in_order = False
            previous_end = end
            tokens = tokens_of.get(correction)
            if tokens is None:
                tokens = () if correction == NONE_CORRECTION else tuple(correction.split())
                tokens_of[correction] = tokens
            edits.append(new_edit(SpanEdit, (start, end, tokens, edit_type)))
        corrections.append(edits)
    origin = f"{name}, line {block.line}" if name else f"line {block.line}"
    if in_order:  # what make_sentence returns for these edits, without its checks
        rows = tuple([tuple(edits) for edits in corrections])
        return tuple.__new__(Sentence, (tuple(source), rows, origin))
    return make_sentence(source, corrections, origin)


def sentences_from_m2(blocks: Sequence[M2Block], name: str = "") -> list[Sentence]:
    tokens_of: dict[str, Tokens] = {}
    with collector_paused():
        return [sentence_from_m2_block(block, name, tokens_of) for block in blocks]


def read_m2_sentences(path: str | os.PathLike[str]) -> list[Sentence]:
    """Read an M2 file with ``gecscore.m2.read_m2``; errors name the file and line."""
    name = os.fspath(path)  # not pathlib: ~4 ms of start-up
    with collector_paused():  # read_m2 pauses it too; this covers the sentences as well
        blocks = read_m2(name)
        if not blocks:
            raise ClemeInputError(f"{path}: no M2 block found (empty file?)")
        sentences = sentences_from_m2(blocks, name)
        del blocks  # freed before the collector runs again: it need not scan them
    return sentences


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
    from gecscore.extract import parallel_to_m2

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
    from gecscore.english.errant_edits import ragged_m2_blocks

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
    from gecscore.extract import ParallelLine

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


if TYPE_CHECKING:
    InputFormat = Literal["auto", "m2", "text"]


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
        from gecscore.extract import read_parallel

        return sentences_from_parallel(
            read_parallel(path),
            resources=resources,
            granularity=granularity,
            simplified=simplified,
            name=str(path),
            workers=workers,
        )
    raise OptionError(f"input_format must be 'auto', 'm2' or 'text', got {input_format!r}")
