"""The one bounded reader of input files, gzipped or not.

Every file a person hands in (an upload on the platform, a score or judgment file given to
the library) is read through :func:`iter_chunks`: gzip is recognised by its magic bytes and
decompressed as a stream, a piece at a time, and reading stops with :class:`InputTooLarge`
as soon as one limit of :class:`ReadLimits` is passed: the file's own size (compressed, as
handed in), its decompressed size, its line count or the length of one line. A gzip bomb
(a 1 MB file of newlines that decompresses to 1 GB) therefore costs a few megabytes and a
fraction of a second, never the decompressed size. :func:`iter_xml` adds a depth limit and
frees every element once its end has been handled, so an XML file is read in bounded memory
too (the parser already refuses entity expansion bombs and never fetches external DTDs).

Plain data in and out, no Django: the platform passes limits read from its settings, and
``ReadLimits.names`` says which setting to name in the error.
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gecscore.errors import InputFormatError

__all__ = [
    "CHUNK_BYTES",
    "DEFAULT_LIMITS",
    "GZIP_MAGIC",
    "SPOOL_BYTES",
    "InputTooLarge",
    "MalformedXML",
    "ReadLimits",
    "Source",
    "iter_chunks",
    "iter_xml",
    "read_bounded",
    "xml_events",
]

GZIP_MAGIC = b"\x1f\x8b"
CHUNK_BYTES = 64 * 1024
# Decompressed data above this is kept in a temporary file, not in memory, until every
# limit has been checked (a refused file never costs its decompressed size in memory).
SPOOL_BYTES = 8 * 1024 * 1024

Source = str | os.PathLike[str] | bytes | IO[bytes] | io.BufferedIOBase


@dataclass(frozen=True)
class ReadLimits:
    """Upper bounds on one input file; None means no bound.

    ``file_bytes``: the file as handed in (compressed when gzipped); ``decompressed_bytes``:
    its content; ``lines``: its line count; ``line_bytes``: one line's length in bytes;
    ``xml_depth``: how deeply XML elements may nest (:func:`iter_xml`). ``names`` maps a
    limit to the name a person changes it by (a setting), for the error message."""

    file_bytes: int | None = 1024**3
    decompressed_bytes: int | None = 1024**3
    lines: int | None = 50_000_000
    line_bytes: int | None = 16 * 1024 * 1024
    xml_depth: int | None = 64
    names: tuple[tuple[str, str], ...] = ()

    def name_of(self, limit: str) -> str:
        return dict(self.names).get(limit, f"the {limit} limit")


DEFAULT_LIMITS = ReadLimits()


class InputTooLarge(InputFormatError):
    """A file above one of its limits; ``limit`` is the ReadLimits field it passed."""

    def __init__(self, path: str, line: int, message: str, limit: str = "") -> None:
        super().__init__(path, line, message)
        self.limit = limit

    def __reduce__(self) -> tuple[type, tuple[str, int, str, str]]:  # type: ignore[override]
        return (type(self), (self.path, self.line, self.message, self.limit))


class MalformedXML(InputFormatError):
    """XML that does not parse: the 1-based line and column and the parser's reason."""

    def __init__(self, path: str, line: int, message: str, column: int = 0) -> None:
        super().__init__(path, line, message)
        self.column = column

    def __reduce__(self) -> tuple[type, tuple[str, int, str, int]]:  # type: ignore[override]
        return (type(self), (self.path, self.line, self.message, self.column))


_SPLIT = "split the file or ask an operator to raise the limit"


def _too_large(
    name: str, line: int, limits: ReadLimits, limit: str, what: str, hint: str = _SPLIT
) -> InputTooLarge:
    bound = getattr(limits, limit)
    return InputTooLarge(
        name,
        line,
        f"{what} is above the limit of {bound:,} ({limits.name_of(limit)}); {hint}",
        limit,
    )


class _Counted(io.RawIOBase):
    """The raw file, counting what is read against ``file_bytes``."""

    def __init__(self, raw: IO[bytes] | io.BufferedIOBase, name: str, limits: ReadLimits) -> None:
        self.raw, self.name, self.limits, self.count = raw, name, limits, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        size = len(data)
        buffer[:size] = data
        self.count += size
        bound = self.limits.file_bytes
        if bound is not None and self.count > bound:
            raise _too_large(self.name, 1, self.limits, "file_bytes", "the file's size")
        return size


class _Lines:
    """Line count and line length of the decompressed stream, checked piece by piece."""

    def __init__(self, name: str, limits: ReadLimits) -> None:
        self.name, self.limits = name, limits
        self.lines = 0  # newlines seen
        self.current = 0  # bytes of the line not yet ended

    def _check_length(self, length: int, line: int) -> None:
        bound = self.limits.line_bytes
        if bound is not None and length > bound:
            raise _too_large(self.name, line, self.limits, "line_bytes", "the line's length")

    def _check_count(self, count: int) -> None:
        bound = self.limits.lines
        if bound is not None and count > bound:
            raise _too_large(self.name, bound + 1, self.limits, "lines", "the number of lines")

    def feed(self, chunk: bytes) -> None:
        newlines = chunk.count(b"\n")
        if not newlines:
            self.current += len(chunk)
            self._check_length(self.current, self.lines + 1)
            return
        self._check_length(self.current + chunk.index(b"\n"), self.lines + 1)
        bound = self.limits.line_bytes
        if bound is not None and newlines > 1 and len(chunk) > bound:
            for offset, piece in enumerate(chunk.split(b"\n")[1:-1], start=2):
                self._check_length(len(piece), self.lines + offset)
        self._check_count(self.lines + newlines)
        self.lines += newlines
        self.current = len(chunk) - chunk.rindex(b"\n") - 1

    def close(self) -> None:
        if self.current:
            self._check_count(self.lines + 1)


def _open_raw(source: Source, stack: ExitStack) -> IO[bytes] | io.BufferedIOBase:
    if isinstance(source, bytes):
        return io.BytesIO(source)
    if isinstance(source, str | os.PathLike):
        return stack.enter_context(open(source, "rb"))
    seek = getattr(source, "seek", None)
    if seek is not None:
        seek(0)  # an upload a framework may have peeked at
    return source


def iter_chunks(
    source: Source, *, name: str, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[bytes]:
    """The file's content (decompressed when it starts with the gzip magic bytes) in pieces
    of at most CHUNK_BYTES, each checked against ``limits`` before it is given out.

    Raises :class:`InputTooLarge` naming the file, the line and the limit passed, or
    :class:`InputFormatError` for a file that starts like gzip but is not readable gzip."""
    size = getattr(source, "size", None)
    if isinstance(source, bytes):
        size = len(source)
    elif isinstance(source, str | os.PathLike):
        size = Path(source).stat().st_size
    if size is not None and limits.file_bytes is not None and int(size) > limits.file_bytes:
        raise _too_large(name, 1, limits, "file_bytes", f"the file's size ({int(size):,} bytes)")
    with ExitStack() as stack:
        buffered = io.BufferedReader(_Counted(_open_raw(source, stack), name, limits), CHUNK_BYTES)
        compressed = buffered.peek(2)[:2] == GZIP_MAGIC
        stream: io.BufferedIOBase = gzip.GzipFile(fileobj=buffered) if compressed else buffered
        lines = _Lines(name, limits)
        total = 0
        while True:
            try:
                chunk = stream.read(CHUNK_BYTES)
            except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
                raise InputFormatError(
                    name, lines.lines + 1, f"not a readable gzip file ({exc})"
                ) from None
            if not chunk:
                break
            total += len(chunk)
            bound = limits.decompressed_bytes
            if bound is not None and total > bound:
                what = "the decompressed content" if compressed else "the file's size"
                line = lines.lines + chunk.count(b"\n", 0, bound - total + len(chunk)) + 1
                raise _too_large(name, line, limits, "decompressed_bytes", what)
            lines.feed(chunk)
            yield chunk
        lines.close()


def read_bounded(source: Source, *, name: str, limits: ReadLimits = DEFAULT_LIMITS) -> bytes:
    """The whole content of ``source`` (decompressed), once every limit has been checked."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        for chunk in iter_chunks(source, name=name, limits=limits):
            spool.write(chunk)
        spool.seek(0)
        return spool.read()


def iter_xml(
    source: Source, *, name: str, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[tuple[str, ET.Element, int]]:
    """("start" | "end", element, depth) for each element of an XML file read through
    :func:`iter_chunks` (the root has depth 1); see :func:`xml_events`."""
    return xml_events(iter_chunks(source, name=name, limits=limits), name=name, limits=limits)


def xml_events(
    chunks: Iterable[bytes], *, name: str, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[tuple[str, ET.Element, int]]:
    """("start" | "end", element, depth) for each element of the XML text in ``chunks``
    (pieces of :func:`iter_chunks`; the root has depth 1).

    An element nested deeper than ``limits.xml_depth`` is an :class:`InputTooLarge`; once
    the caller has handled an element's "end" the element is cleared and detached from its
    parent, so only the open elements are kept (read a child's attributes at its own "end").
    Malformed XML, undefined entities, entity expansion bombs: :class:`MalformedXML`."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    open_elements: list[ET.Element] = []
    bound = limits.xml_depth
    fed_lines = 0  # the parser reads a whole piece before its events: the line is "by"

    def events() -> Iterator[tuple[str, ET.Element, int]]:
        for event, element in parser.read_events():  # type: ignore[misc]
            assert isinstance(element, ET.Element)
            if event == "start":
                open_elements.append(element)
                depth = len(open_elements)
                if bound is not None and depth > bound:
                    raise _too_large(
                        name,
                        fed_lines + 1,
                        limits,
                        "xml_depth",
                        f"the nesting depth ({depth} elements)",
                        "the file is not in the expected XML layout",
                    )
                yield event, element, depth
                continue
            yield event, element, len(open_elements)
            open_elements.pop()
            element.clear()
            if open_elements:
                open_elements[-1].remove(element)

    try:
        for chunk in chunks:
            parser.feed(chunk)
            fed_lines += chunk.count(b"\n")
            yield from events()
        parser.close()
        yield from events()
    except ET.ParseError as exc:
        line, column = exc.position
        reason = str(exc.msg).split(":")[0]
        raise MalformedXML(name, line, f"malformed XML ({reason})", column + 1) from None
