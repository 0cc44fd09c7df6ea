"""How the two MuCGEC markers are written in the files of an export.

A reference of an error-free sentence is stored as ``没有错误`` and one of a sentence that
cannot be annotated as ``无法标注`` (the reviewer's verdict, or a MuCGEC import). Chinese
exports keep them: that is how MuCGEC and ChERRANT write them, and their readers expect them.
English files have no such markers: ERRANT and the English corpora write an unchanged
sentence as itself (M2: a ``noop`` line), so English exports write the source in their place
(the JSONL and Parquet ``judgement`` field still says which verdict it was). A model trained
on an English export must never learn to print a Chinese phrase.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from datasets.models import Language
from datasets.selectors import DatasetRow
from gecscore import NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT

MARKERS = (NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT)


def keeps_markers(language: str) -> bool:
    """True where the export formats write the markers themselves (Chinese)."""
    return language != Language.ENGLISH


def written_references(
    row: DatasetRow, language: str = Language.CHINESE, *, plain: bool = False
) -> tuple[str, ...]:
    """The row's references as the exports of `language` write them; ``plain``: the source
    in place of a marker whatever the language (the published Parquet files, what models
    train on)."""
    if keeps_markers(language) and not plain:
        return row.references
    return tuple(row.text if text in MARKERS else text for text in row.references)


def rows_as_written(rows: Iterable[DatasetRow], language: str) -> Iterator[DatasetRow]:
    """`rows` with their references as the exports of `language` write them."""
    if keeps_markers(language):
        yield from rows
        return
    for row in rows:
        references = written_references(row, language)
        yield row if references == row.references else replace(row, references=references)
