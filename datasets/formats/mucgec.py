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


def parse_mucgec(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = single_file(files, ImportFormat.MUCGEC)
    lines = decode_lines(file)
    reject_empty(lines, file.name)
    seen: dict[str, int] = {}
    rows = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if len(fields) < 2:
            raise format_error(
                file.name,
                number,
                "source",
                "expected 'id<TAB>source<TAB>ref1<TAB>...', found no tab",
            )
        external_id, text, references = fields[0], fields[1], fields[2:]
        check_id(external_id, file.name, number, seen)
        check_text(text, file.name, number, "source")
        for index, reference in enumerate(references, start=1):
            check_text(reference, file.name, number, f"ref{index}")
        rows.append(ParsedSentence(external_id, text, references, number))
    return rows


def mucgec_lines(rows: Iterable[DatasetRow]) -> Iterator[str]:
    for row in rows:
        yield "\t".join((row.external_id, row.text, *row.references)) + "\n"
