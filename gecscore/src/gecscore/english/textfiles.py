"""Line-aligned plain-text inputs of the English tools (source, hypotheses, references).

The reference tools read these files line by line and split on whitespace, so CRLF line ends,
trailing spaces and empty lines do not change a score; they are reported (file and line), never
fatal. Bytes that are not UTF-8 and files whose line counts differ are errors naming the line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from gecscore.errors import InputFormatError, read_lines, split_lines

__all__ = [
    "TextFile",
    "TextFormatError",
    "check_one_line_per_gold_sentence",
    "check_same_length",
    "parse_text_lines",
    "read_text_lines",
]


class TextFormatError(InputFormatError):
    """A plain-text input that cannot be used; names the file and 1-based line."""


@dataclass(frozen=True)
class TextFile:
    path: str
    lines: list[str]  # without the line end ("\n" or "\r\n")
    crlf: list[int] = field(default_factory=list)  # 1-based numbers of lines ending in CRLF
    trailing_space: list[int] = field(default_factory=list)
    empty: list[int] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One readable warning per kind of tolerated irregularity."""
        notes = []
        for what, numbers in (
            ("end with CRLF", self.crlf),
            ("have leading or trailing spaces", self.trailing_space),
            ("are empty", self.empty),
        ):
            if numbers:
                shown = ", ".join(str(n) for n in numbers[:5]) + (
                    ", ..." if len(numbers) > 5 else ""
                )
                notes.append(
                    f"{self.path}: {len(numbers)} line(s) {what} (line {shown}); "
                    "tokens are split on whitespace, as the reference tools do"
                )
        return notes


def parse_text_lines(text: str, *, name: str) -> TextFile:
    """The lines of a text (``errors.split_lines``) and its tolerated irregularities."""
    crlf: list[int] = []
    return _text_file(split_lines(text, crlf=crlf), name, crlf)


def read_text_lines(path: str | os.PathLike[str]) -> TextFile:
    """The lines of a UTF-8 text file; non-UTF-8 bytes raise TextFormatError with the line."""
    crlf: list[int] = []
    lines = read_lines(path, error=TextFormatError, crlf=crlf)
    return _text_file(lines, os.fspath(path), crlf)


def _text_file(lines: list[str], name: str, crlf: list[int]) -> TextFile:
    spaced: list[int] = []
    empty: list[int] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            empty.append(number)
        elif line != line.strip():
            spaced.append(number)
    return TextFile(name, lines, crlf, spaced, empty)


def check_same_length(expected: TextFile, other: TextFile) -> None:
    """TextFormatError naming the first line one file has and the other lacks."""
    if len(other.lines) != len(expected.lines):
        line = min(len(other.lines), len(expected.lines)) + 1
        raise TextFormatError(
            other.path,
            line,
            f"{len(other.lines)} lines, but {expected.path} has {len(expected.lines)}; "
            "every file must have one line per source sentence",
        )


def check_one_line_per_gold_sentence(
    text: TextFile, sentences: int, gold_path: str, *, what: str
) -> None:
    """TextFormatError naming the first line missing or in excess against a gold M2 of
    ``sentences`` sentences; ``what`` names the file in the message ("the hypothesis")."""
    if len(text.lines) != sentences:
        line = min(len(text.lines), sentences) + 1
        raise TextFormatError(
            text.path,
            line,
            f"{len(text.lines)} lines, but the gold M2 {gold_path} has {sentences} "
            f"sentences; {what} must have one line per gold sentence",
        )
