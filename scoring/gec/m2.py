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
from dataclasses import dataclass, field

from scoring.gec.errors import InputFormatError, decode_utf8

TYPE_CHECKING = False  # typing and pathlib are imported where needed: start-up of the CLI
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TextIO

NONE_CORRECTION = "-NONE-"
NOOP_TYPE = "noop"
NA_TYPE = "NA"
NO_ERROR_TEXT = "没有错误"
NOT_ANNOTATABLE_TEXT = "无法标注"

_TARGET_HEADER = re.compile(r"^T(\d+)(?:-A(\d+))?(?: (.*))?$")


class M2FormatError(InputFormatError):
    """An M2 file that cannot be read; carries the file name and 1-based line."""


@dataclass(frozen=True)
class M2Edit:
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


@dataclass
class M2Target:
    """One ``T`` line (ChERRANT) or, for plain M2, one annotator's ``A`` lines."""

    annotator: int
    alternative: int  # k in T<r>-A<k>; 0 when absent
    text: str | None  # text of the T line; None when the file has no T lines
    edits: list[M2Edit] = field(default_factory=list)

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


@dataclass
class M2Block:
    source: str  # S line without the leading "S "
    targets: list[M2Target]
    line: int = 0  # 1-based line number of the S line, for error messages

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


def _check_span(edit: M2Edit, n_tokens: int, name: str, line_no: int) -> None:
    if edit.start >= 0 and edit.end > n_tokens:
        raise M2FormatError(
            name,
            line_no,
            f"edit span {edit.start} {edit.end} is beyond the source, which has {n_tokens} tokens",
        )


def _parse_lines(lines: Iterable[str], name: str) -> list[M2Block]:
    blocks: list[M2Block] = []
    block: M2Block | None = None
    has_t_lines = False
    plain_targets: dict[int, M2Target] = {}
    n_tokens = 0

    def finish() -> None:
        nonlocal block
        if block is not None:
            if not has_t_lines:
                block.targets = list(plain_targets.values())
            blocks.append(block)
        block = None

    for line_no, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line_no == 1 and line.startswith("\ufeff"):
            line = line[1:]
        line = line.rstrip("\r")
        if not line.strip():
            finish()
            continue
        if line.startswith("S ") or line == "S":
            finish()
            block = M2Block(source=line[2:], targets=[], line=line_no)
            n_tokens = len(block.source.split())
            has_t_lines = False
            plain_targets = {}
        elif block is None:
            raise M2FormatError(
                name, line_no, f"expected an 'S ' line to start a block, got {line[:40]!r}"
            )
        elif line.startswith("T"):
            match = _TARGET_HEADER.match(line)
            if match is None:
                raise M2FormatError(
                    name, line_no, f"a T line must look like 'T<r>-A<k> text', got {line[:40]!r}"
                )
            if block.targets and not has_t_lines:
                raise M2FormatError(name, line_no, "T line after A lines that had no T line")
            has_t_lines = True
            block.targets.append(
                M2Target(
                    annotator=int(match.group(1)),
                    alternative=int(match.group(2) or 0),
                    text=match.group(3) if match.group(3) is not None else "",
                    edits=[],
                )
            )
        elif line.startswith("A "):
            edit = _parse_edit(line[2:], name, line_no)
            _check_span(edit, n_tokens, name, line_no)
            if has_t_lines:
                block.targets[-1].edits.append(edit)
            else:
                target = plain_targets.get(edit.annotator)
                if target is None:
                    target = M2Target(edit.annotator, 0, None, [])
                    plain_targets[edit.annotator] = target
                    block.targets.append(target)
                target.edits.append(edit)
        else:
            raise M2FormatError(
                name, line_no, f"unknown line kind (expected S, T or A), got {line[:40]!r}"
            )
    finish()
    return blocks


def parse_m2(text: str, *, name: str = "<text>") -> list[M2Block]:
    """Parse M2 text; blocks are separated by blank lines. CRLF and a BOM are accepted."""
    return _parse_lines(text.split("\n"), name)


def read_m2(path_or_file: str | os.PathLike[str] | TextIO) -> list[M2Block]:
    """Read an M2 file (path or open text file). Raises M2FormatError with file and line."""
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "rb") as handle:
            data = handle.read()
        name = os.fspath(path_or_file)
        return parse_m2(decode_utf8(data, name=name, error=M2FormatError), name=name)
    name = getattr(path_or_file, "name", "<stream>")
    if isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "read"):
        return parse_m2(path_or_file.read(), name=str(name))
    raise TypeError(f"read_m2 needs a path or a text file, got {type(path_or_file).__name__}")


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
