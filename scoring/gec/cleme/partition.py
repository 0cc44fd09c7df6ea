"""Chunk partition: split a source and all its corrections into chunks with shared boundaries.

Following CLEME (Ye et al., EMNLP 2023; reference code THUKElab/CLEME v1.0 ``cleme/chunk.py``):

1. every correction gets a map from source positions to its own token positions;
2. the edits of all corrections, swept by source start, merge into shared intervals when
   they overlap or touch (start <= current end + merge distance), so an insertion at the
   border of another edit joins that edit;
3. each edit is widened to its interval and takes its correction's tokens of that interval;
4. the source is walked: gaps between intervals are unchanged chunks, intervals are
   corrected chunks, and an empty interval (an isolated insertion) is a dummy chunk.

Every correction ends up with the same number of chunks, chunk ``i`` covering the same source
tokens in each, so corrections can be compared chunk by chunk (the metric) or shown column by
column (the review grid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scoring.gec.cleme.model import SpanEdit, Tokens, apply_edits

ChunkKind = Literal["unchanged", "corrected", "dummy"]


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """Source tokens ``[start, end)`` of one chunk and what kind of column it is.

    ``kind`` describes the column over all corrections partitioned together: "unchanged" when
    no correction edits there, "corrected" for a non-empty edited interval, "dummy" for an
    empty one (insertions only). Whether one particular correction changed it is
    ``Partition.changed``.
    """

    start: int
    end: int
    kind: ChunkKind


@dataclass(frozen=True, slots=True)
class Partition:
    """Chunks of one sentence: ``tokens[c][i]`` / ``changed[c][i]`` for correction c, chunk i."""

    source: Tokens
    spans: tuple[ChunkSpan, ...]
    tokens: tuple[tuple[Tokens, ...], ...]
    changed: tuple[tuple[bool, ...], ...]

    def chunk_length(self, correction: int, chunk: int) -> int:
        """max(#source tokens, #corrected tokens) of a chunk: the length CLEME weights by."""
        span = self.spans[chunk]
        return max(span.end - span.start, len(self.tokens[correction][chunk]))


def _position_map(
    n_source: int, edits: Sequence[SpanEdit], spans: Sequence[tuple[int, int]]
) -> list[int]:
    """Source position -> corrected position, as the reference builds it.

    Unchanged tokens shift by the running offset; an edit's start and end map to its target
    start and end (so an insertion's position maps to the END of the inserted tokens). Inner
    positions of an edit are never looked up: they lie inside a shared interval.
    """
    mapping = [0] * (n_source + 1)
    src = tgt = 0
    for edit, (tgt_start, tgt_end) in zip(edits, spans, strict=True):
        if src < edit.start:
            mapping[src : edit.start] = range(tgt, tgt + edit.start - src)
        mapping[edit.start] = tgt_start
        mapping[edit.end] = tgt_end
        src, tgt = edit.end, tgt_end
    mapping[src:] = range(tgt, tgt + n_source + 1 - src)
    return mapping


def partition(
    source: Tokens, corrections: Sequence[Sequence[SpanEdit]], *, merge_distance: int = 0
) -> Partition:
    """Partition ``source`` and its corrections (edits sorted, non-overlapping) into chunks.

    The order of ``corrections`` only decides the order of the rows; CLEME puts the
    hypothesis first and the references after it.
    """
    n_source = len(source)
    targets: list[Tokens] = []
    maps: list[list[int]] = []
    for edits in corrections:
        target, spans = apply_edits(source, edits)
        targets.append(target)
        maps.append(_position_map(n_source, edits, spans))

    # Sweep the edits of all corrections by start (stable: hypothesis first) into intervals.
    flat = sorted(
        ((edit.start, edit.end, c) for c, edits in enumerate(corrections) for edit in edits),
        key=lambda item: item[0],
    )
    starts: list[int] = []
    ends: list[int] = []
    edited: list[set[int]] = []  # per interval: the corrections with an edit inside it
    for start, end, c in flat:
        if starts and start <= ends[-1] + merge_distance:
            if end > ends[-1]:
                ends[-1] = end
        else:
            starts.append(start)
            ends.append(end)
            edited.append(set())
        edited[-1].add(c)

    spans_out: list[ChunkSpan] = []
    interval_of_chunk: list[int] = []  # -1 for a gap (unchanged for everybody)
    position = interval = 0
    n_intervals = len(starts)
    while position <= n_source:
        if interval == n_intervals:
            if position != n_source:
                spans_out.append(ChunkSpan(position, n_source, "unchanged"))
                interval_of_chunk.append(-1)
            break
        start, end = starts[interval], ends[interval]
        if position == start == end:
            spans_out.append(ChunkSpan(start, end, "dummy"))
            interval_of_chunk.append(interval)
            interval += 1
        elif start <= position < end:
            spans_out.append(ChunkSpan(start, end, "corrected"))
            interval_of_chunk.append(interval)
            position = end
            interval += 1
        else:
            spans_out.append(ChunkSpan(position, start, "unchanged"))
            interval_of_chunk.append(-1)
            position = start

    all_tokens: list[tuple[Tokens, ...]] = []
    all_changed: list[tuple[bool, ...]] = []
    for c, (target, mapping) in enumerate(zip(targets, maps, strict=True)):
        row_tokens: list[Tokens] = []
        row_changed: list[bool] = []
        for span, index in zip(spans_out, interval_of_chunk, strict=True):
            if index >= 0 and c in edited[index]:
                # The edit widened to its shared interval: the correction's tokens between the
                # token before the interval and the interval end.
                begin = 0 if span.start == 0 else mapping[span.start - 1] + 1
                row_tokens.append(target[begin : mapping[span.end]])
                row_changed.append(True)
            else:
                end = 0 if span.end == 0 else mapping[span.end - 1] + 1
                row_tokens.append(target[mapping[span.start] : end])
                row_changed.append(False)
        all_tokens.append(tuple(row_tokens))
        all_changed.append(tuple(row_changed))
    return Partition(source, tuple(spans_out), tuple(all_tokens), tuple(all_changed))
