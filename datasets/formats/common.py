"""What every import format shares: the input file, the parsed row, the checks on bytes,
ids and texts, and the one error shape (file, 1-based line, field).

Input is strict on purpose: a byte-order mark, Windows (CRLF) line ends, a non-UTF-8 file
(typically GBK), empty lines, duplicate ids, mismatched line counts and files above
the upload limits (core/uploads.py: size, decompressed size, lines, line length) are
refused, because each of them otherwise ends up as invisible characters inside ids or
references, as references attached to the wrong sentence, or as a worker out of memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from core.exceptions import ServiceError
from core.uploads import check_upload, read_upload
from datasets.textrules import (
    BINARY_MESSAGE,
    describe_character,
    looks_binary,
    refused_character,
    text_problem,
)
from gecscore import InputFormatError, decode_utf8

MAX_ID_LENGTH = 100


class ImportFormat(StrEnum):
    TEXT = "text"
    MUCGEC = "mucgec"
    PARALLEL = "parallel"
    JSONL = "jsonl"
    M2 = "m2"


@dataclass(frozen=True)
class ImportFile:
    """One input file: its name (for messages) and its raw bytes."""

    name: str
    data: bytes

    @classmethod
    def from_path(cls, path: str | Path, *, name: str | None = None) -> ImportFile:
        """The file's content (decompressed when gzipped) through the one bounded reader."""
        path = Path(path)
        if not path.is_file():
            raise ServiceError(f"{path}: no such file", field="file")
        label = name or str(path)
        return cls(name=label, data=read_upload(path, name=label))


@dataclass
class ParsedSentence:
    external_id: str
    text: str
    references: list[str]
    line: int
    source_name: str | None = None  # per-row override (JSONL)
    split: str | None = None
    # The file has no ids (text, parallel, M2, JSONL without "id"): the id becomes the
    # sentence's number in the dataset, so a second file appended to a dataset continues
    # the numbering instead of clashing with the first one.
    auto_id: bool = False


def format_error(file: str, line: int | None, field_name: str, message: str) -> ServiceError:
    where = f"{file}, line {line}" if line is not None else file
    return ServiceError(f"{where}, field {field_name}: {message}", field=field_name)


def decode_lines(file: ImportFile) -> list[str]:
    """The file's lines, after the checks every format shares (size, BOM, UTF-8, CRLF)."""
    data = file.data
    check_upload(data, name=file.name)  # the upload limits, for files handed in as bytes
    if data.startswith(b"\xef\xbb\xbf"):
        raise format_error(
            file.name,
            1,
            "encoding",
            "the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM",
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise format_error(
            file.name,
            1,
            "encoding",
            "the file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8",
        )
    if looks_binary(data):
        raise format_error(file.name, None, "encoding", BINARY_MESSAGE)
    try:
        text = decode_utf8(data, name=file.name)  # the library's one UTF-8 policy
    except InputFormatError as exc:
        line, offset = exc.line, exc.offset or 0
        hint = ""
        try:
            data.decode("gb18030")
            hint = " It decodes as GBK/GB18030: convert it with `iconv -f GBK -t UTF-8`."
        except UnicodeDecodeError:
            pass
        raise format_error(
            file.name,
            line,
            "encoding",
            f"not valid UTF-8 (byte {data[offset]:#04x} at offset {offset}).{hint}",
        ) from None
    if "\r" in text:
        line = text[: text.index("\r")].count("\n") + 1
        raise format_error(
            file.name,
            line,
            "line end",
            "Windows (CRLF) or old Mac (CR) line end; "
            "convert the file to Unix (LF) line ends, e.g. with dos2unix",
        )
    if not text:
        raise format_error(file.name, None, "file", "the file is empty")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    # One scan of the whole file (tab separates MuCGEC fields, each checked whole by
    # `check_text`); the line of the first refused character is named.
    found = refused_character(text, allow="\t\n")
    if found is not None:
        position, char = found
        line_number = text.count("\n", 0, position - 1) + 1
        line_start = text.rfind("\n", 0, position - 1) + 1
        raise format_error(
            file.name,
            line_number,
            "text",
            f"{describe_character(char)} at column {position - line_start}; control and "
            "invisible characters cannot be annotated or stored: remove it",
        )
    return lines


def reject_empty(lines: Sequence[str], name: str) -> None:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise format_error(
                name, number, "line", "empty line; remove it (every line is one sentence)"
            )


def check_id(external_id: str, name: str, line: int, seen: dict[str, int]) -> None:
    if not external_id.strip():
        raise format_error(name, line, "id", "empty id")
    if external_id != external_id.strip():
        raise format_error(name, line, "id", f"id {external_id!r} has leading or trailing spaces")
    if len(external_id) > MAX_ID_LENGTH:
        raise format_error(name, line, "id", f"id longer than {MAX_ID_LENGTH} characters")
    first = seen.get(external_id)
    if first is not None:
        raise format_error(
            name, line, "id", f"duplicate id {external_id!r} (first used on line {first})"
        )
    seen[external_id] = line


def check_text(text: str, name: str, line: int, field_name: str) -> None:
    """A sentence or reference: not empty, and within the one text rule (length, characters:
    `datasets.textrules`), so nothing is imported that the annotation box would refuse."""
    if not text.strip():
        raise format_error(name, line, field_name, "empty text")
    check_rule(text, name, line, field_name)


def check_rule(text: str, name: str, line: int, field_name: str) -> None:
    """The text rule alone (length, characters), for texts that may be empty."""
    problem = text_problem(text)
    if problem is not None:
        raise format_error(name, line, field_name, problem)


def single_file(files: Sequence[ImportFile], fmt: ImportFormat) -> ImportFile:
    if len(files) != 1:
        raise ServiceError(
            f"the {fmt} format takes exactly one file, got {len(files)}", field="file"
        )
    return files[0]
