"""``text``: one source sentence a line; the id is the line number."""

from __future__ import annotations

from collections.abc import Sequence

from datasets.formats.common import (
    ImportFile,
    ImportFormat,
    ParsedSentence,
    check_text,
    decode_lines,
    reject_empty,
    single_file,
)


def parse_text(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = single_file(files, ImportFormat.TEXT)
    lines = decode_lines(file)
    reject_empty(lines, file.name)
    for number, line in enumerate(lines, start=1):
        check_text(line, file.name, number, "source")
    return [
        ParsedSentence(str(n), line, [], n, auto_id=True) for n, line in enumerate(lines, start=1)
    ]
