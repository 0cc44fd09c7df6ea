"""``mucgec``: ``id \\t source \\t ref1 \\t ref2 ...`` (MuCGEC / ChERRANT), read and written.

References are optional; ``没有错误`` (no error) and ``无法标注`` (not annotatable) are markers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from datasets.formats.common import (
    ImportFile,
    ImportFormat,
    ParsedSentence,
    check_id,
    check_text,
    decode_lines,
    format_error,
    reject_empty,
    single_file,
)
from datasets.selectors import DatasetRow
from gecscore import InputFormatError, parallel_rows


def parse_mucgec(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = single_file(files, ImportFormat.MUCGEC)
    lines = decode_lines(file)
    reject_empty(lines, file.name)
    seen: dict[str, int] = {}
    rows = []
    try:
        # The library's one MuCGEC reader; references are optional here.
        for row in parallel_rows(lines, name=file.name, min_targets=0):
            check_id(row.id, file.name, row.line, seen)
            check_text(row.source, file.name, row.line, "source")
            for index, reference in enumerate(row.targets, start=1):
                check_text(reference, file.name, row.line, f"ref{index}")
            rows.append(ParsedSentence(row.id, row.source, list(row.targets), row.line))
    except InputFormatError as exc:  # the checks above raise ServiceError, not this
        raise format_error(file.name, exc.line, "source", exc.message) from None
    return rows


def mucgec_lines(rows: Iterable[DatasetRow]) -> Iterator[str]:
    for row in rows:
        yield "\t".join((row.external_id, row.text, *row.references)) + "\n"
