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
