"""A chunk-aligned grid of all corrections of one sentence, for the review page.

Columns are the chunks of the joint partition of every correction (shared boundaries, see
``partition.py``); rows are the corrections; a cell holds that correction's tokens for the
chunk and whether it changed them. A reviewer then compares alternatives column by column,
exactly where they differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.gec.cleme.model import SpanEdit, Tokens, make_sentence
from scoring.gec.cleme.partition import ChunkKind, partition


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


# (source, target) -> edits with start/end on the source tokens and target_start/target_end
# on the target tokens: the shape of scoring.gec's extract_edits results.
Extractor = Callable[[str, str], Sequence[Any]]


def edits_from_extractor(source: str, target: str, extract: Extractor, tokenize: Callable[[str], list[str]]) -> list[SpanEdit]:
    """SpanEdits from an extractor's edits (noop/unchanged targets give no edits)."""
    target_tokens = tokenize(target)
    return [
        SpanEdit(
            int(edit.start),
            int(edit.end),
            tuple(target_tokens[int(edit.target_start) : int(edit.target_end)]),
            str(getattr(edit, "type", "")),
        )
        for edit in extract(source, target)
    ]


def chunk_grid_from_texts(
    source: str,
    corrections: Sequence[str],
    *,
    extract: Extractor,
    tokenize: Callable[[str], list[str]],
    joiner: str = "",
) -> ChunkGrid:
    """The grid of raw texts; edits come from ``extract`` on tokens from ``tokenize``.

    Pass the project's extractor (the one the annotators' live diff uses) so the grid shows
    what gets scored.
    """
    source_tokens = tokenize(source)
    edits = [edits_from_extractor(source, target, extract, tokenize) for target in corrections]
    return chunk_grid(source_tokens, edits, joiner=joiner)
