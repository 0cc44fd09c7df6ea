"""A chunk-aligned grid of all corrections of one sentence, for the review page.

Columns are the chunks of the joint partition of every correction (shared boundaries, see
``partition.py``); rows are the corrections; a cell holds that correction's tokens for the
chunk and whether it changed them. A reviewer then compares alternatives column by column,
exactly where they differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gecscore.cleme.inputs import sentence_from_m2_block
from gecscore.cleme.model import SpanEdit, Tokens, make_sentence
from gecscore.cleme.partition import ChunkKind, partition

if TYPE_CHECKING:  # the extractor loads only when raw texts are given
    from gecscore.resources import Resources

__all__ = [
    "ChunkGrid",
    "GridCell",
    "GridColumn",
    "chunk_grid",
    "chunk_grid_from_texts",
]


@dataclass(frozen=True, slots=True)
class GridCell:
    text: str  # the tokens joined with the grid's joiner ("" for Chinese chars)
    tokens: Tokens
    changed: bool  # this correction edited this chunk


@dataclass(frozen=True, slots=True)
class GridColumn:
    start: int  # source token span [start, end)
    end: int
    kind: ChunkKind  # "unchanged" (nobody edits), "corrected", "dummy" (insertion point)
    source: str  # the source tokens of the chunk, joined
    disagree: bool  # the corrections do not all have the same text here


@dataclass(frozen=True, slots=True)
class ChunkGrid:
    columns: tuple[GridColumn, ...]
    rows: tuple[tuple[GridCell, ...], ...]  # rows[correction][column]


def chunk_grid(
    source: Sequence[str], corrections: Sequence[Sequence[SpanEdit]], *, joiner: str = ""
) -> ChunkGrid:
    """The grid of a source (tokens) and its corrections given as edits on those tokens.

    ``joiner`` joins tokens for display: "" for char tokens, " " for words.
    """
    sentence = make_sentence(source, corrections, "grid")
    chunks = partition(sentence.source, sentence.corrections)
    columns = []
    for i, span in enumerate(chunks.spans):
        texts = {chunks.tokens[row][i] for row in range(len(chunks.tokens))}
        columns.append(
            GridColumn(
                span.start,
                span.end,
                span.kind,
                joiner.join(sentence.source[span.start : span.end]),
                len(texts) > 1,
            )
        )
    rows = tuple(
        tuple(
            GridCell(joiner.join(tokens), tokens, changed)
            for tokens, changed in zip(chunks.tokens[row], chunks.changed[row], strict=True)
        )
        for row in range(len(chunks.tokens))
    )
    return ChunkGrid(tuple(columns), rows)


def chunk_grid_from_texts(
    source: str,
    corrections: Sequence[str],
    *,
    resources: Resources | None = None,
    granularity: str = "char",
    simplified: bool = True,
) -> ChunkGrid:
    """The grid of raw texts, with edits from the project's extractor (first alignment).

    The same extractor feeds the annotators' live diff and the scorer, so the grid shows
    what gets scored. Texts are normalised as the extractor does (whitespace removed, targets
    converted to simplified characters unless ``simplified=False``); "没有错误" and "无法标注"
    rows come out unchanged. Tokens are joined without spaces (Chinese).
    """
    from gecscore.extract import annotate_sentence

    block, _ = annotate_sentence(
        source,
        list(corrections),
        resources=resources,
        granularity=granularity,
        strategy="first",
        simplified=simplified,
    )
    sentence = sentence_from_m2_block(block)
    return chunk_grid(sentence.source, sentence.corrections, joiner="")
