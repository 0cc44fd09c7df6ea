"""M2 files: read (ChERRANT and plain ERRANT / M2-scorer flavours) and write.

Two flavours exist in the wild and both are read by the same functions:

* ChERRANT M2: after the ``S`` line, each target has a ``T<r>-A<k> text`` line (or
  ``T<r> 没有错误`` / ``T<r> 无法标注`` for the special targets) followed by its ``A`` lines.
* Plain M2 (ERRANT, the M2 scorer): only ``S`` and ``A`` lines; the annotator id is the last
  ``|||`` field. An annotator with no ``A`` line in a block is *absent* (no target), which is
  not the same as "no edit needed" (that is an explicit ``noop`` edit).

Errors name the file and the 1-based line so a person can fix the input.
"""

from __future__ import annotations

import io
import os
import re
from typing import TYPE_CHECKING, Literal, NamedTuple

from gecscore.collector import collector_paused
from gecscore.edits import apply_edits
from gecscore.errors import (
    GECError,
    InputFormatError,
    decode_utf8,
    first_nonblank_line,
    split_lines,
)

if TYPE_CHECKING:  # pathlib is not imported at run time: start-up of the CLI
    from collections.abc import Iterable, Sequence
    from typing import TextIO

__all__ = [
    "NA_TYPE",
    "NONE_CORRECTION",
    "NOOP_TYPE",
    "NOT_ANNOTATABLE_TEXT",
    "NO_ERROR_TEXT",
    "M2Block",
    "M2Edit",
    "M2FormatError",
    "M2Target",
    "apply_m2_edits",
    "beyond_source_warning",
    "correction_tokens",
    "format_m2_block",
    "parse_m2",
    "read_m2",
    "write_m2",
]

NONE_CORRECTION = "-NONE-"
NOOP_TYPE = "noop"
NA_TYPE = "NA"
NO_ERROR_TEXT = "没有错误"
NOT_ANNOTATABLE_TEXT = "无法标注"


def correction_tokens(correction: str) -> list[str]:
    """The tokens an ``A`` line writes: none for ``-NONE-`` (a deletion) or an empty field."""
    return [] if correction == NONE_CORRECTION else correction.split()


def apply_m2_edits(tokens: Sequence[str], edits: Iterable[tuple[int, int, str]]) -> list[str]:
    """``tokens`` with M2 ``(start, end, correction)`` edits applied (``gecscore.edits``).

    Edits at ``-1 -1`` (``noop`` / ``NA`` markers) change nothing; leaving out other types
    (``UNK``, ...) is the caller's choice. Overlaps raise ``OverlappingEditsError``.
    """
    return apply_edits(tokens, [(s, e, correction_tokens(c)) for s, e, c in edits if s >= 0])[0]


_TARGET_HEADER = re.compile(r"^T(\d+)(?:-A(\d+))?(?: (.*))?$")


class M2FormatError(InputFormatError):
    """An M2 file that cannot be read; carries the file name and 1-based line."""


class M2Edit(NamedTuple):
    """One ``A`` line. A named tuple rather than a frozen dataclass: a corpus has tens of
    thousands of edits and tuple construction is about three times cheaper."""

    start: int  # source token index, end exclusive; -1, -1 for noop / NA
    end: int
    type: str  # "M"/"R"/"S"/"W"/"noop"/"NA" or ERRANT types such as "R:NOUN"
    correction: str  # correction tokens joined by single spaces; "-NONE-" when none
    annotator: int

    def to_line(self) -> str:
        return (
            f"A {self.start} {self.end}|||{self.type}|||{self.correction}"
            f"|||REQUIRED|||-NONE-|||{self.annotator}"
        )


# M2Target and M2Block are plain slotted classes, not dataclasses: importing dataclasses
# (and building the classes) costs ~15 ms of every `compare` run, a run that is
# measured against ChERRANT's whole script. They behave as the dataclasses did (keyword or
# positional construction, field equality, no hash, the same repr).


class M2Target:
    """One ``T`` line (ChERRANT) or, for plain M2, one annotator's ``A`` lines."""

    __slots__ = ("annotator", "alternative", "text", "edits")

    def __init__(
        self,
        annotator: int,
        alternative: int,  # k in T<r>-A<k>; 0 when absent
        text: str | None,  # text of the T line; None when the file has no T lines
        edits: list[M2Edit] | None = None,
    ) -> None:
        self.annotator = annotator
        self.alternative = alternative
        self.text = text
        self.edits: list[M2Edit] = [] if edits is None else edits

    def _fields(self) -> tuple[object, ...]:
        return (self.annotator, self.alternative, self.text, self.edits)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, M2Target) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, as an eq dataclass

    def __repr__(self) -> str:
        return (
            f"M2Target(annotator={self.annotator!r}, alternative={self.alternative!r}, "
            f"text={self.text!r}, edits={self.edits!r})"
        )

    @property
    def is_special(self) -> bool:
        """True for ChERRANT's ``T<r> 没有错误`` / ``T<r> 无法标注`` targets (no ``-A<k>``)."""
        return (
            len(self.edits) == 1
            and self.edits[0].type in (NOOP_TYPE, NA_TYPE)
            and self.edits[0].start == -1
        )

    def header(self) -> str:
        if self.is_special:
            return f"T{self.annotator} {self.text or ''}"
        return f"T{self.annotator}-A{self.alternative} {self.text or ''}"


class M2Block:
    """One sentence: the ``S`` line and its targets."""

    __slots__ = ("source", "targets", "line")

    def __init__(self, source: str, targets: list[M2Target], line: int = 0) -> None:
        self.source = source  # S line without the leading "S "
        self.targets = targets
        self.line = line  # 1-based line number of the S line, for error messages

    def _fields(self) -> tuple[object, ...]:
        return (self.source, self.targets, self.line)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, M2Block) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, as an eq dataclass

    def __repr__(self) -> str:
        return f"M2Block(source={self.source!r}, targets={self.targets!r}, line={self.line!r})"

    @property
    def source_tokens(self) -> list[str]:
        return self.source.split()

    @property
    def edits(self) -> list[M2Edit]:
        """All edits of the block in file order (what a scorer reads)."""
        return [edit for target in self.targets for edit in target.edits]


def _parse_edit(body: str, name: str, line_no: int) -> M2Edit:
    fields = body.split("|||")
    if len(fields) < 3:
        raise M2FormatError(
            name, line_no, f"an A line needs 'start end|||type|||correction|||...', got {body!r}"
        )
    span = fields[0].split()
    if len(span) != 2:
        raise M2FormatError(name, line_no, f"the span must be two integers, got {fields[0]!r}")
    try:
        start, end = int(span[0]), int(span[1])
    except ValueError:
        raise M2FormatError(
            name, line_no, f"the span must be two integers, got {fields[0]!r}"
        ) from None
    if len(fields) >= 6:
        try:
            annotator = int(fields[-1])
        except ValueError:
            raise M2FormatError(
                name,
                line_no,
                f"the annotator id (last field) must be an integer, got {fields[-1]!r}",
            ) from None
    else:
        # Some hand-written M2 files stop after the correction; the M2 scorer treats that
        # as annotator 0.
        annotator = 0
    if start > end or (start < 0 and (start, end) != (-1, -1)):
        raise M2FormatError(name, line_no, f"invalid span {start} {end}")
    return M2Edit(start, end, fields[1], fields[2], annotator)


def _check_span(
    edit: M2Edit, n_tokens: int, name: str, line_no: int, beyond_source: list[int] | None
) -> None:
    if edit.start >= 0 and edit.end > n_tokens:
        if beyond_source is not None:
            beyond_source.append(line_no)
            return
        raise M2FormatError(
            name,
            line_no,
            f"edit span {edit.start} {edit.end} is beyond the source, which has {n_tokens} tokens",
        )


def _token_count(source: str) -> int:
    """``len(source.split())`` without building the tokens when the only whitespace is single
    ASCII spaces between tokens (isprintable() is False for every other whitespace)."""
    if source.isprintable() and "  " not in source and source[:1] != " " and source[-1:] != " ":
        return source.count(" ") + 1 if source else 0
    return len(source.split())


def _parse_lines(
    lines: list[str], name: str, beyond_source: list[int] | None = None
) -> list[M2Block]:
    """Blocks of M2 lines (without line ends or a BOM).

    The loop is the hot path of every command that reads M2 (it was most of
    ``compare``'s time), so well-formed ``A`` lines are parsed inline and anything unusual
    goes to ``_parse_edit`` / ``_check_span``, which raise the error that names the line.
    """
    blocks: list[M2Block] = []
    block: M2Block | None = None
    targets: list[M2Target] = []  # block.targets
    plain_targets: dict[int, M2Target] | None = None  # None once the block has a T line
    n_tokens = 0
    target_edits: list[M2Edit] = []  # of the last T line's target
    add_edit = target_edits.append
    new_edit = tuple.__new__  # M2Edit._make without its length check: 5 fields here
    for line_no, line in enumerate(lines, start=1):
        if line[:2] == "A ":
            if block is None:
                raise _unexpected_line(line, True, name, line_no)
            fields = line.split("|||")
            edit: M2Edit | None = None
            if len(fields) == 6:
                span = fields[0].split()  # ["A", start, end]
                if len(span) == 3:
                    try:
                        start, end, annotator = int(span[1]), int(span[2]), int(fields[5])
                    except ValueError:
                        pass  # _parse_edit says which field
                    else:
                        if 0 <= start <= end <= n_tokens or start == end == -1:
                            edit = new_edit(M2Edit, (start, end, fields[1], fields[2], annotator))
            if edit is None:
                edit = _parse_edit(line[2:], name, line_no)
                _check_span(edit, n_tokens, name, line_no, beyond_source)
            if plain_targets is None:
                add_edit(edit)
            else:
                target = plain_targets.get(edit.annotator)
                if target is None:
                    target = plain_targets[edit.annotator] = M2Target(edit.annotator, 0, None, [])
                    targets.append(target)
                target.edits.append(edit)
        elif line[:2] == "S " or line == "S":
            if block is not None:
                blocks.append(block)
            targets = []
            block = M2Block(line[2:], targets, line_no)
            n_tokens = _token_count(block.source)
            plain_targets = {}
        elif line[:1] == "T" and block is not None:
            if plain_targets:
                _target(line, name, line_no)  # a malformed T line is named first
                raise M2FormatError(name, line_no, "T line after A lines that had no T line")
            plain_targets = None
            target = _target(line, name, line_no)
            target_edits = target.edits
            add_edit = target_edits.append
            targets.append(target)
        elif not line.strip():
            if block is not None:
                blocks.append(block)
            block = None
        else:
            raise _unexpected_line(line, block is None, name, line_no)
    if block is not None:
        blocks.append(block)
    return blocks


def _target(line: str, name: str, line_no: int) -> M2Target:
    """The target of a ``T<r>-A<k> text`` line (``T<r> text`` for the special targets)."""
    # Read with str.partition; _TARGET_HEADER (the same grammar: \d is what isdecimal()
    # accepts) decides the lines this does not take.
    head, _, text = line.partition(" ")
    reference, dash, alternative = head[1:].partition("-A")
    if not reference.isdecimal() or (dash and not alternative.isdecimal()):
        match = _TARGET_HEADER.match(line)
        if match is None:
            raise M2FormatError(
                name, line_no, f"a T line must look like 'T<r>-A<k> text', got {line[:40]!r}"
            )
        reference, alternative, text = match[1], match[2] or "", match[3] or ""
    return M2Target(int(reference), int(alternative or 0), text, [])


def _unexpected_line(line: str, outside_block: bool, name: str, line_no: int) -> M2FormatError:
    if outside_block:
        return M2FormatError(
            name, line_no, f"expected an 'S ' line to start a block, got {line[:40]!r}"
        )
    return M2FormatError(
        name, line_no, f"unknown line kind (expected S, T or A), got {line[:40]!r}"
    )


def parse_m2(
    text: str, *, name: str = "<text>", beyond_source: list[int] | None = None
) -> list[M2Block]:
    """Parse M2 text; blocks are separated by blank lines. CRLF and a BOM are accepted.

    An edit whose span ends beyond its sentence's tokens (``A 13 13`` on an 11-token ``S``
    line) is an error, unless ``beyond_source`` is a list: then the edit is kept as written
    and the 1-based number of its line is appended to the list. m2scorer 3.2 and I-measure
    read such files (JFLEG's official ``dev.ref.m2`` has 19 such edits), each in its own
    way: ``maxmatch.scorer.gold_edits_by_annotator`` and ``english.imeasure`` follow them.
    """
    lines = split_lines(text)
    with collector_paused():  # tens of thousands of acyclic objects (see collector.py)
        return _parse_lines(lines, name, beyond_source)


class UnknownFormatError(GECError, ValueError):
    """An input file that is neither M2 nor parallel text (``detect_format``)."""


def detect_format(
    path: str | os.PathLike[str], *, error: type[InputFormatError] = InputFormatError
) -> Literal["m2", "text"]:
    """What an input file holds, by content: ``"m2"`` when its first non-blank line is an ``S``
    line, or when it has none (an empty corpus reads the same either way), ``"text"`` when
    that line has a tab (``id<TAB>source<TAB>target...``); anything else is an
    ``UnknownFormatError``. ``error`` is the class of a decoding error."""
    line = first_nonblank_line(path, error=error)
    if line is None or line.startswith("S ") or line == "S":
        return "m2"
    if "\t" in line:
        return "text"
    raise UnknownFormatError(
        f"{os.fspath(path)}: cannot tell the format: expected an M2 file (first line 'S ...') "
        "or 'id<TAB>source<TAB>target...' lines; pass the format explicitly"
    )


def read_m2(
    path_or_file: str | os.PathLike[str] | TextIO, *, beyond_source: list[int] | None = None
) -> list[M2Block]:
    """Read an M2 file (path or open text file). Raises M2FormatError with file and line.

    ``beyond_source``: as in ``parse_m2``.
    """
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "rb") as handle:
            data = handle.read()
        name = os.fspath(path_or_file)
        text = decode_utf8(data, name=name, error=M2FormatError)
        return parse_m2(text, name=name, beyond_source=beyond_source)
    name = getattr(path_or_file, "name", "<stream>")
    if isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "read"):
        return parse_m2(path_or_file.read(), name=str(name), beyond_source=beyond_source)
    raise TypeError(f"read_m2 needs a path or a text file, got {type(path_or_file).__name__}")


def beyond_source_warning(name: str, lines: Sequence[int], treatment: str) -> str:
    """The warning a command prints for the edit lines ``parse_m2`` kept beyond the source."""
    shown = ", ".join(str(line) for line in lines[:20])
    if len(lines) > 20:
        shown += f" and {len(lines) - 20} more"
    return (
        f"{name}: {len(lines)} edit(s) with a span beyond the sentence's tokens "
        f"(line {shown}); {treatment}"
    )


def format_m2_block(block: M2Block) -> str:
    """The text of one block, without the separating blank line.

    Targets with ``text is None`` (plain M2) write only their ``A`` lines.
    """
    lines = [f"S {block.source}"]
    for target in block.targets:
        if target.text is not None:
            lines.append(target.header())
        lines.extend(edit.to_line() for edit in target.edits)
    return "\n".join(lines)


def write_m2(
    blocks: Iterable[M2Block], path_or_file: str | os.PathLike[str] | TextIO | None = None
) -> str:
    """Format blocks as M2 text (each block followed by a blank line); optionally write it."""
    text = "".join(format_m2_block(block) + "\n\n" for block in blocks)
    if path_or_file is None:
        return text
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path_or_file.write(text)
    return text
