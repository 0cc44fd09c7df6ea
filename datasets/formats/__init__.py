"""One reader and one writer per file format (import: file bytes -> ParsedSentence rows;
export: DatasetRow rows -> lines or files). `parse_files` picks the reader by format name."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.exceptions import ServiceError
from datasets.formats.common import ImportFile, ImportFormat, ParsedSentence
from datasets.formats.jsonl import parse_jsonl
from datasets.formats.m2 import parse_m2_files
from datasets.formats.mucgec import parse_mucgec
from datasets.formats.parallel import parse_parallel
from datasets.formats.text import parse_text
from datasets.models import Language

__all__ = ["ImportFile", "ImportFormat", "ParsedSentence", "parse_files"]


PARSERS: dict[ImportFormat, Callable[[Sequence[ImportFile]], list[ParsedSentence]]] = {
    ImportFormat.TEXT: parse_text,
    ImportFormat.MUCGEC: parse_mucgec,
    ImportFormat.PARALLEL: parse_parallel,
    ImportFormat.JSONL: parse_jsonl,
}


def parse_files(
    files: Sequence[ImportFile], *, fmt: str, language: str = Language.CHINESE
) -> list[ParsedSentence]:
    try:
        format_ = ImportFormat(fmt)
    except ValueError:
        choices = ", ".join(f.value for f in ImportFormat)
        raise ServiceError(
            f"unknown format {fmt!r}; use one of {choices}", field="format"
        ) from None
    if format_ == ImportFormat.M2:
        rows = parse_m2_files(files, language=language)
    else:
        rows = PARSERS[format_](files)
    if not rows:
        raise ServiceError(f"{files[0].name}: no sentences found", field="file")
    return rows
