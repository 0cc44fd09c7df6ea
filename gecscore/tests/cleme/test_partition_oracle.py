"""The partition against a literal transcription of specs/cleme.md section 2 (position maps
and target slices, as the reference code does it), on many random sentences."""

from __future__ import annotations

import random

from gecscore.cleme.model import SpanEdit, Tokens, make_sentence
from gecscore.cleme.partition import partition
from gecscore.edits import apply_edits


def spec_partition(
    source: Tokens, corrections: list[tuple[SpanEdit, ...]]
) -> tuple[list[tuple[int, int]], list[list[tuple[Tokens, bool]]]]:
    n = len(source)
    targets, maps = [], []
    for edits in corrections:
        tokens, spans = apply_edits(source, [(e.start, e.end, e.tokens) for e in edits])
        target = tuple(tokens)
        # Step 1: unchanged tokens shift by the running offset; an edit's start and end map
        # to its target start and end.
        mapping: dict[int, int] = {}
        src = tgt = 0
        for edit, (t_start, t_end) in zip(edits, spans, strict=True):
            mapping[edit.start] = t_start
            mapping[edit.end] = t_end
            while src < edit.start:
                mapping[src] = tgt
                src += 1
                tgt += 1
            src, tgt = edit.end, t_end
        while src <= n:
            mapping[src] = tgt
            src += 1
            tgt += 1
        targets.append(target)
        maps.append(mapping)
    # Step 2: sweep, stable by start, merge distance 0.
    flat = sorted(
        ((e.start, e.end, c) for c, edits in enumerate(corrections) for e in edits),
        key=lambda x: x[0],
    )
    intervals: list[list[int]] = []
    for start, end, _ in flat:
        if intervals and start <= intervals[-1][1]:
            intervals[-1][1] = max(intervals[-1][1], end)
        else:
            intervals.append([start, end])
    # Step 3: widen each edit to its interval: [map(start-1)+1, map(end)) of its target.
    widened: list[dict[tuple[int, int], Tokens]] = []
    for c, edits in enumerate(corrections):
        cells: dict[tuple[int, int], Tokens] = {}
        for edit in edits:
            s, e = next((a, b) for a, b in intervals if a <= edit.start and edit.end <= b)
            begin = 0 if s == 0 else maps[c][s - 1] + 1
            cells.setdefault((s, e), targets[c][begin : maps[c][e]])
        widened.append(cells)
    # Step 4: walk the source.
    chunks: list[tuple[int, int]] = []
    position = k = 0
    while position <= n:
        if k == len(intervals):
            if position != n:
                chunks.append((position, n))
            break
        a, b = intervals[k]
        if position == a == b:
            chunks.append((a, b))
            k += 1
        elif a <= position < b:
            chunks.append((a, b))
            position = b
            k += 1
        else:
            chunks.append((position, a))
            position = a
    # Step 5: changed cells carry the widened edit, others the mapped target tokens.
    rows = []
    for c in range(len(corrections)):
        row = []
        for s, e in chunks:
            if (s, e) in widened[c]:
                row.append((widened[c][(s, e)], True))
            else:
                end = 0 if e == 0 else maps[c][e - 1] + 1
                row.append((targets[c][maps[c][s] : end], False))
        rows.append(row)
    return chunks, rows


def random_correction(rng: random.Random, n: int) -> list[SpanEdit]:
    """Up to 5 sorted, non-overlapping edits; an insertion may precede an edit at its spot."""
    edits: list[SpanEdit] = []
    position = 0
    last_insertion = -1
    while position <= n and len(edits) < 5:
        start = rng.randint(position, n)
        insertion = start == n or rng.random() < 0.3
        if insertion and start == last_insertion:
            break
        end = start if insertion else min(n, start + rng.randint(1, 3))
        width = rng.randint(1 if insertion else 0, 3)
        edits.append(SpanEdit(start, end, tuple(rng.choice("XYZxyz") for _ in range(width))))
        position = end
        last_insertion = start if insertion else -1
        if rng.random() < 0.3:
            break
    return edits


def test_partition_equals_the_spec_transcription_on_random_sentences() -> None:
    rng = random.Random(20231022)
    for _ in range(3000):
        n = rng.randint(0, 12)
        source = tuple(rng.choice("abcdefgh") for _ in range(n))
        corrections = [
            random_correction(rng, n) if rng.random() < 0.85 else []
            for _ in range(rng.randint(1, 5))
        ]
        sentence = make_sentence(source, corrections)
        chunks = partition(sentence.source, sentence.corrections)
        expected_spans, expected_rows = spec_partition(sentence.source, list(sentence.corrections))
        assert [(s.start, s.end) for s in chunks.spans] == expected_spans
        for c, row in enumerate(expected_rows):
            assert list(zip(chunks.tokens[c], chunks.changed[c], strict=True)) == row, (
                source,
                corrections,
            )
