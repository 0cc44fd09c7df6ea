"""The error root of the library (``GECError``) and its general kinds: ``OptionError`` (an
option out of range), ``InputError`` (input that cannot be scored), ``InputFormatError``
(a line of an input file, naming the file and the 1-based line) and ``Unavailable`` (what a
metric needs is not installed, configured or reachable here); and the one UTF-8 decoding
policy and line reader of every reader."""

from __future__ import annotations

import os

__all__ = [
    "UTF8_BOM",
    "GECError",
    "InputError",
    "InputFormatError",
    "OptionError",
    "Unavailable",
    "decode_utf8",
    "first_nonblank_line",
    "read_lines",
    "split_lines",
    "strip_bom",
]


class GECError(Exception):
    """The root of every error the library raises on purpose: bad input, a missing model or
    resource, an option out of range. Anything else that escapes is a bug. The command line
    prints a GECError as a one-line message (exit 2) and lets every other exception show its
    traceback."""


class OptionError(GECError, ValueError):
    """An option out of its range or not one of its choices. The message names the option as
    the Python API spells it (``max_refs``); the command line adds its flag."""


class InputError(GECError, ValueError):
    """Input that cannot be scored and is not one line of a file: an empty sentence, lists
    that do not line up, too few systems to correlate."""


class Unavailable(GECError):
    """What a metric needs and does not find here: an optional package (an extra: spaCy and
    errant, torch and transformers), a model or data folder, a setting that names one (a
    model, an LLM endpoint's URL), a GPU asked for, an endpoint that does not answer. The
    message says what to install or set. The library's narrower kinds are all Unavailable:
    ``MissingDependencyError``, ``ModelSettingError``, ``ModelNotFoundError``,
    ``EnglishModelMissing``, ``ResourceError``, ``MetricUnavailable``."""


class InputFormatError(InputError):
    """A line of an input file that cannot be used, with the file name and line number."""

    # The byte offset in the file, for bytes that are not UTF-8 (``decode_utf8``).
    offset: int | None = None

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path}, line {line}: {message}")

    def __reduce__(self) -> tuple[type, tuple[str, int, str]]:
        # Keeps the error picklable, so it crosses process boundaries (--workers) intact.
        return (type(self), (self.path, self.line, self.message))


# The one decoding policy of every reader of the library (M2, parallel text, system outputs,
# score and judgment files, resources, baselines):
# * strict UTF-8: a byte that is not UTF-8 is an error naming the file, the line and the byte
#   offset (never a silent U+FFFD);
# * a UTF-8 byte-order mark at the start of a file is removed (Windows editors write one; a BOM
#   is never part of an id, a token or a score). The reference tools (ChERRANT, errant,
#   m2scorer, CLEME) do not remove it: it ends up in the first id or S line, which they then
#   misread, so removing it changes no result they get right.
UTF8_BOM = "\ufeff"


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark (for text that did not come through
    ``decode_utf8``, e.g. an open text file)."""
    return text[1:] if text.startswith(UTF8_BOM) else text


def decode_utf8(
    data: bytes,
    *,
    name: str,
    error: type[InputFormatError] = InputFormatError,
    first_line: int = 1,
    offset: int = 0,
) -> str:
    """The text of an input file (a leading BOM removed), or ``error`` naming the line and
    byte offset of the first byte that is not UTF-8.

    ``first_line`` and ``offset`` say where ``data`` starts when it is a piece of the file
    (one line read at a time); only a piece at offset 0 may start with the BOM.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data[: exc.start].count(b"\n")
        failure = error(
            name, line, f"not UTF-8 (byte {data[exc.start]:#04x} at offset {offset + exc.start})"
        )
        failure.offset = offset + exc.start
        raise failure from None
    return strip_bom(text) if offset == 0 else text


def first_nonblank_line(
    path: str | os.PathLike[str], *, error: type[InputFormatError] = InputFormatError
) -> str | None:
    """The first line of a file with a non-space character (BOM and line end removed),
    decoded as ``decode_utf8`` does; None for a file of blank lines. For sniffing a format
    without reading the whole file."""
    name = os.fspath(path)
    offset = 0
    with open(name, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = decode_utf8(raw, name=name, error=error, first_line=number, offset=offset)
            offset += len(raw)
            line = line.rstrip("\r\n")
            if line.strip():
                return line
    return None


def split_lines(text: str, *, crlf: list[int] | None = None) -> list[str]:
    """The lines of a text file's text, the one way every reader splits: a leading BOM
    removed, split at ``\\n``, the newline that ends the last line opening no line of its
    own, a ``\\r`` that ends a line dropped. ``crlf``: a list to which the 1-based numbers of the
    lines that ended in ``\\r\\n`` are appended (for a reader that reports them)."""
    lines = strip_bom(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        if crlf is not None:
            crlf.extend(n for n, line in enumerate(lines, start=1) if line[-1:] == "\r")
        lines = [line[:-1] if line[-1:] == "\r" else line for line in lines]
    return lines


def read_lines(
    path: str | os.PathLike[str],
    *,
    error: type[InputFormatError] = InputFormatError,
    crlf: list[int] | None = None,
) -> list[str]:
    """The lines of a UTF-8 text file: ``split_lines`` of its ``decode_utf8`` text."""
    name = os.fspath(path)
    with open(name, "rb") as handle:
        data = handle.read()
    return split_lines(decode_utf8(data, name=name, error=error), crlf=crlf)
