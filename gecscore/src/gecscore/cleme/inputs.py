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
from gecscore.errors import OptionError, decode_utf8
from gecscore.m2 import (
    NA_TYPE,
    NONE_CORRECTION,
    NOOP_TYPE,
    M2Block,
    M2FormatError,
    detect_format,
    parse_m2,
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
    """Read an M2 file; errors name the file and line.

    Well-formed files are read by the lean reader below, which builds the sentences straight
    from the lines (no M2 blocks, targets or edits in between: half the time of ``cleme``'s
    reading, issue #17); a file it declines goes through ``read_m2``, which names the line.
    """
    name = os.fspath(path)  # not pathlib: ~4 ms of start-up
    with open(path, "rb") as handle:
        data = handle.read()
    text = decode_utf8(data, name=name, error=M2FormatError)
    lines = (text[1:] if text.startswith("\ufeff") else text).split("\n")  # as parse_m2
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    with collector_paused():
        sentences = _lean_sentences(lines, name)
        if sentences is None:
            blocks = parse_m2(text, name=name)
            if not blocks:
                raise ClemeInputError(f"{path}: no M2 block found (empty file?)")
            sentences = sentences_from_m2(blocks, name)
    return sentences


def _lean_sentences(lines: list[str], name: str) -> list[Sentence] | None:
    """``sentences_from_m2(parse_m2(lines))`` for well-formed M2, else None.

    None for every line that reader would reject or treat specially (an A line with other
    than six fields or a span it checks further, unsorted or overlapping edits, which
    ``make_sentence`` sorts or rejects, T lines its regular expression decides, stray
    lines) and for a file without blocks; the caller then reads the validating way.
    """
    try:
        sentences = _lean_lines(lines, name)
    except (ValueError, _Declined):  # ValueError: int() of a field
        return None
    return sentences or None


class _Declined(Exception):
    """A line the lean M2 reader leaves to the validating one."""


def _lean_lines(lines: list[str], name: str) -> list[Sentence]:
    sentences: list[Sentence] = []
    new = tuple.__new__  # SpanEdit / Sentence without their keyword handling: the hot path
    tokens_of: dict[str, Tokens] = {}  # correction text -> tokens (see sentence_from_m2_block)
    source: Tokens | None = None  # of the open block
    n_tokens = 0
    corrections: list[list[SpanEdit]] = []  # first alignment of each annotator, in order
    plain: dict[int, list[SpanEdit]] | None = None  # annotator -> edits; None after a T line
    seen: set[int] = set()  # annotators of the block's T lines
    edits: list[SpanEdit] = []  # of the last T line (or of an alignment CLEME skips)
    origin = ""
    for line_no, line in enumerate(lines, start=1):
        if line[:2] == "A ":
            fields = line.split("|||")
            span = fields[0].split()  # ["A", start, end]
            if source is None or len(fields) != 6 or len(span) != 3:
                raise _Declined
            start, end, annotator = int(span[1]), int(span[2]), int(fields[5])
            if plain is not None:  # plain M2: the annotator id says whose edit it is
                row = plain.get(annotator)
                if row is None:
                    row = plain[annotator] = []
                edits = row
            if not 0 <= start <= end <= n_tokens:
                if start == end == -1:
                    continue
                raise _Declined
            if fields[1] in _SKIPPED_TYPES:
                continue
            if edits and start < edits[-1][1]:
                raise _Declined
            tokens = tokens_of.get(fields[2])
            if tokens is None:
                correction = fields[2]
                tokens = () if correction == NONE_CORRECTION else tuple(correction.split())
                tokens_of[correction] = tokens
            edits.append(new(SpanEdit, (start, end, tokens, fields[1])))
        elif line[:2] == "S " or line == "S":
            if source is not None:
                sentences.append(_lean_sentence(source, corrections, plain, origin))
            source = tuple(line[2:].split())
            n_tokens = len(source)
            corrections, plain, seen = [], {}, set()
            origin = f"{name}, line {line_no}" if name else f"line {line_no}"
        elif line[:1] == "T" and source is not None:
            head, _, _ = line.partition(" ")
            reference, dash, alternative = head[1:].partition("-A")
            if plain or not reference.isdecimal() or (dash and not alternative.isdecimal()):
                raise _Declined
            plain, edits, annotator = None, [], int(reference)
            if int(alternative or 0) == 0 and annotator not in seen:
                seen.add(annotator)
                corrections.append(edits)
        elif not line.strip():
            if source is not None:
                sentences.append(_lean_sentence(source, corrections, plain, origin))
            source = None
        else:
            raise _Declined
    if source is not None:
        sentences.append(_lean_sentence(source, corrections, plain, origin))
    return sentences


def _lean_sentence(
    source: Tokens,
    corrections: list[list[SpanEdit]],
    plain: dict[int, list[SpanEdit]] | None,
    origin: str,
) -> Sentence:
    rows = plain.values() if plain is not None else corrections
    return tuple.__new__(Sentence, (source, tuple([tuple(row) for row in rows]), origin))


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
