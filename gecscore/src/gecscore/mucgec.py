"""THE reader of MuCGEC / ChERRANT parallel text: ``id \\t source \\t target1 \\t target2 ...``
a line. The extractor's ``read_parallel`` (so every CLI reading such files) and the dataset
import (``datasets/formats/mucgec.py``) read rows here and add their own checks of the fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gecscore.errors import InputFormatError

__all__ = [
    "ParallelLine",
    "parallel_rows",
]


@dataclass(frozen=True)
class ParallelLine:
    id: str
    source: str
    targets: tuple[str, ...]
    line: int  # 1-based line number in its file


def parallel_rows(
    lines: Iterable[str],
    *,
    name: str,
    min_targets: int = 1,
    error: type[InputFormatError] = InputFormatError,
) -> Iterator[ParallelLine]:
    """One row per line, in order (a caller checking each row as it comes reports the first
    bad line first). A line end ``\\r`` is dropped; a blank line, or fewer than ``min_targets``
    targets, raises ``error`` naming the file and line."""
    for line_no, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            raise error(name, line_no, "empty line (every line must be id, source, targets)")
        fields = line.split("\t")
        if len(fields) < 2 + min_targets:
            raise error(
                name,
                line_no,
                f"expected 'id<TAB>source<TAB>target...', found {len(fields)} field(s)",
            )
        yield ParallelLine(fields[0], fields[1], tuple(fields[2:]), line_no)
