"""THE way to apply span edits to a token sequence (references rebuilt from M2, PT-M2's
one-edit texts, the ensemble's hypothesis, CLEME's targets)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gecscore.errors import GECError

__all__ = [
    "OverlappingEditsError",
    "apply_edits",
]


class OverlappingEditsError(GECError, ValueError):
    """Two edits of one correction cover the same source token."""

    def __init__(self, start: int) -> None:
        self.start = start
        super().__init__(f"overlapping edits at token {start}")


def apply_edits(
    source: Sequence[str], edits: Iterable[tuple[int, int, Sequence[str]]]
) -> tuple[list[str], list[tuple[int, int]]]:
    """The source with the ``(start, end, replacement tokens)`` edits applied, and per edit
    (in ``(start, end)`` order) its ``[start, end)`` span in the result.

    Edits are applied left to right in ``(start, end)`` order; insertions at one point keep
    their given order. An edit starting inside an earlier one raises ``OverlappingEditsError``
    (callers add their file and line). Spans index ``source``; markers (``noop``, ``-1 -1``)
    are the caller's to leave out.
    """
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < position:
            raise OverlappingEditsError(start)
        out.extend(source[position:start])
        begin = len(out)
        out.extend(replacement)
        spans.append((begin, len(out)))
        position = max(position, end)
    out.extend(source[position:])
    return out, spans
