"""Errors about input files: every one names the file and the 1-based line."""

from __future__ import annotations


class InputFormatError(ValueError):
    """A line of an input file that cannot be used, with the file name and line number."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path}, line {line}: {message}")

    def __reduce__(self) -> tuple[type, tuple[str, int, str]]:
        # Keeps the error picklable, so it crosses process boundaries (--workers) intact.
        return (type(self), (self.path, self.line, self.message))


def decode_utf8(data: bytes, *, name: str, error: type[InputFormatError] = InputFormatError) -> str:
    """The text of an input file, or ``error`` naming the line of the first non-UTF-8 byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(
            name, line, f"not UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None
