"""Chunk partition: split a source and all its corrections into chunks with shared boundaries.

Following CLEME (Ye et al., EMNLP 2023; reference code THUKElab/CLEME v1.0 ``cleme/chunk.py``):

1. the edits of all corrections, swept by source start, merge into shared intervals when
   they overlap or touch (start <= current end + merge distance), so an insertion at the
   border of another edit joins that edit;
2. the source is walked: gaps between intervals are unchanged chunks, intervals are
   corrected chunks, and an empty interval (an isolated insertion) is a dummy chunk;
3. each edit is widened to its interval and takes its correction's tokens of that interval;
   where a correction has no edit, it keeps the source tokens.

Every correction ends up with the same number of chunks, chunk ``i`` covering the same source
tokens in each, so corrections can be compared chunk by chunk (the metric) or shown column by
column (the review grid).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from gecscore.cleme.model import SpanEdit, Tokens

__all__ = [
    "ChunkKind",
    "ChunkSpan",
    "Partition",
    "correction_cells",
    "merged_intervals",
    "partition",
]

ChunkKind = Literal["unchanged", "corrected", "dummy"]


class ChunkSpan(NamedTuple):
    """Source tokens ``[start, end)`` of one chunk and what kind of column it is.

    ``kind`` describes the column over all corrections partitioned together: "unchanged" when
    no correction edits there, "corrected" for a non-empty edited interval, "dummy" for an
    empty one (insertions only). Whether one particular correction changed it is
    ``Partition.changed``.
    """

    start: int
    end: int
    kind: ChunkKind


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class Partition(NamedTuple):
    """Chunks of one sentence: ``tokens[c][i]`` / ``changed[c][i]`` for correction c, chunk i.

    ``edited[c]`` lists the chunks correction c changed, in order (the True of ``changed[c]``):
    every other cell is the source slice, so comparisons only need to look there.
    """

    source: Tokens
    spans: tuple[ChunkSpan, ...]
    tokens: tuple[tuple[Tokens, ...], ...]
    changed: tuple[tuple[bool, ...], ...]
    edited: tuple[tuple[int, ...], ...]

    def chunk_length(self, correction: int, chunk: int) -> int:
        """max(#source tokens, #corrected tokens) of a chunk: the length CLEME weights by."""
        span = self.spans[chunk]
        return max(span.end - span.start, len(self.tokens[correction][chunk]))


def partition(
    source: Tokens, corrections: Sequence[Sequence[SpanEdit]], *, merge_distance: int = 0
) -> Partition:
    """Partition ``source`` and its corrections (edits sorted, non-overlapping) into chunks.

    The order of ``corrections`` only decides the order of the rows; CLEME puts the
    hypothesis first and the references after it.

    The reference maps source to target positions and slices each target; we build the same
    cells directly (``correction_cells``): an unchanged cell is the source slice.
    """
    starts, ends = merged_intervals(corrections, merge_distance)
    # Walk the source: gaps are unchanged chunks, intervals corrected or dummy chunks.
    # (ChunkSpan built with tuple.__new__: this runs for every chunk of a corpus.)
    new_span = tuple.__new__
    spans: list[ChunkSpan] = []
    plain: list[Tokens] = []  # the source slice of each chunk
    chunk_of_interval: list[int] = []
    position = 0
    for start, end in zip(starts, ends, strict=True):
        if position < start:
            spans.append(new_span(ChunkSpan, (position, start, "unchanged")))
            plain.append(source[position:start])
        chunk_of_interval.append(len(spans))
        spans.append(new_span(ChunkSpan, (start, end, "dummy" if start == end else "corrected")))
        plain.append(source[start:end])
        position = end
    if position < len(source):
        spans.append(new_span(ChunkSpan, (position, len(source), "unchanged")))
        plain.append(source[position:])
    # Each correction: its cells are the source slices except where it edits.
    all_tokens: list[tuple[Tokens, ...]] = []
    all_changed: list[tuple[bool, ...]] = []
    all_edited: list[tuple[int, ...]] = []
    plain_row, unchanged_row = tuple(plain), (False,) * len(spans)
    for edits in corrections:
        if not edits:
            all_tokens.append(plain_row)
            all_changed.append(unchanged_row)
            all_edited.append(())
            continue
        row = plain.copy()
        changed = [False] * len(spans)
        edited: list[int] = []
        for interval, cell in correction_cells(source, edits, starts, ends).items():
            chunk = chunk_of_interval[interval]
            row[chunk] = cell
            changed[chunk] = True
            edited.append(chunk)
        all_tokens.append(tuple(row))
        all_changed.append(tuple(changed))
        all_edited.append(tuple(edited))
    return Partition(source, tuple(spans), tuple(all_tokens), tuple(all_changed), tuple(all_edited))


def merged_intervals(
    corrections: Sequence[Sequence[SpanEdit]], merge_distance: int = 0
) -> tuple[list[int], list[int]]:
    """Step 1: the edits of all corrections swept by start into shared intervals
    ``[starts[k], ends[k])``. Ties in start cannot change the result (every edit with the
    start of an open interval joins it), so whole edits are sorted, no pairs built."""
    starts: list[int] = []
    ends: list[int] = []
    every = [edit for edits in corrections for edit in edits]
    every.sort()
    last_end = -1 - merge_distance  # below every start: the first edit opens an interval
    for start, end, _, _ in every:
        if start <= last_end + merge_distance:
            if end > last_end:
                ends[-1] = last_end = end
        else:
            starts.append(start)
            ends.append(end)
            last_end = end
    return starts, ends


def correction_cells(
    source: Tokens, edits: Sequence[SpanEdit], starts: list[int], ends: list[int]
) -> dict[int, Tokens]:
    """Step 3 for one correction: interval index -> its tokens there, for the intervals it
    edits (in order). Within an interval they are the source tokens with the correction's
    edits replaced, insertions at either border included, as they merged into it."""
    cells: dict[int, Tokens] = {}
    n_edits = len(edits)
    interval = -1
    first = 0  # edits[first:last] are the (sorted) edits of one interval
    while first < n_edits:
        start, end, tokens, _ = edits[first]
        # The first interval ending at or after the start holds the edit, and every
        # following edit that starts before that interval's end.
        interval += 1
        while ends[interval] < start:
            interval += 1
        span_start, span_end = starts[interval], ends[interval]
        last = first + 1
        while last < n_edits and edits[last][0] <= span_end:
            last += 1
        if last == first + 1 and start == span_start and end == span_end:
            # The common case: one edit that is the whole chunk.
            cells[interval] = tokens if type(tokens) is tuple else tuple(tokens)
        else:
            cell: list[str] = []
            cursor = span_start
            for start, end, tokens, _ in edits[first:last]:
                cell.extend(source[cursor:start])
                cell.extend(tokens)
                cursor = end
            cell.extend(source[cursor:span_end])
            cells[interval] = tuple(cell)
        first = last
    return cells
