"""Plain input data of the chunk metrics: a source sentence and the edits of its corrections.

CLEME needs nothing else: each correction (the hypothesis or a reference) is a list of
span edits on the source tokens, and its text is the source with those edits applied.
Readers (M2, raw text) live in ``inputs.py``; this module only defines and checks the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gecscore.errors import GECError

__all__ = [
    "ClemeInputError",
    "Sentence",
    "SpanEdit",
    "Tokens",
    "make_sentence",
]

Tokens = tuple[str, ...]


class ClemeInputError(GECError, ValueError):
    """Input CLEME cannot score; the message names the file/line (``origin``) and the field."""


class SpanEdit(NamedTuple):
    """Replace source tokens ``[start, end)`` with ``tokens`` (empty: a deletion).

    A NamedTuple rather than a frozen dataclass: a corpus has tens of thousands of edits and
    tuple construction is several times cheaper.
    """

    start: int
    end: int
    tokens: Tokens
    type: str = ""


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class Sentence(NamedTuple):
    """One source sentence with the edits of each of its corrections.

    ``corrections[i]`` holds the edits of correction ``i`` sorted by source start; an empty
    tuple is a correction that leaves the sentence unchanged. ``origin`` ("file, line N")
    only serves error messages.
    """

    source: Tokens
    corrections: tuple[tuple[SpanEdit, ...], ...]
    origin: str = ""


def make_sentence(
    source: Sequence[str], corrections: Sequence[Sequence[SpanEdit]], origin: str = ""
) -> Sentence:
    """Validate and normalise: edits sorted by (start, end), inside the source, not overlapping.

    Two edits of one correction may touch (``a.end == b.start``) and several insertions may
    share a position, but a non-empty span may not overlap another edit: the correction's
    text would be ambiguous.
    """
    src = tuple(source)
    n_source = len(src)
    checked: list[tuple[SpanEdit, ...]] = []
    for index, edits in enumerate(corrections):
        ordered = tuple(edits)
        previous_start = previous_end = 0
        for start, end, _, _ in ordered:
            if start < previous_start or (start == previous_start and end < previous_end):
                ordered = tuple(sorted(ordered, key=lambda e: (e.start, e.end)))
                break
            previous_start, previous_end = start, end
        previous_end = 0
        for start, end, _, _ in ordered:
            if not 0 <= start <= end <= n_source:
                raise ClemeInputError(
                    f"{origin or 'sentence'}: correction {index}: edit span {start} {end} "
                    f"is outside the source of {n_source} tokens"
                )
            if start < previous_end:
                raise ClemeInputError(
                    f"{origin or 'sentence'}: correction {index}: edit {start} {end} "
                    f"overlaps the previous edit ending at {previous_end}"
                )
            previous_end = end
        checked.append(ordered)
    return Sentence(src, tuple(checked), origin)
