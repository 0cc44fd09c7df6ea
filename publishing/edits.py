"""A published reference's edits as character spans of its source: applying them to the
source gives the reference, exactly.

The edits are the one extractor's, read from the release's reference M2, but M2 speaks in
tokens: ChERRANT's characters of the whitespace-free source (its corrections written with a
space between characters, ``即 使`` for 即使), ERRANT's whitespace-separated words. Copied
as they are, the corrections do not apply to the text people load, so each token span is
mapped back to the characters of the raw source and the raw reference:

1. every source token is found in the source in order, and every token of the corrected
   sequence in the reference, skipping only whitespace;
2. an edit's source span runs from its first token's first character to its last token's
   last character (an insertion is a point: the start of the token it precedes), its
   correction is the reference text of its target tokens;
3. the spans are checked by applying them; where whitespace between tokens differs (an
   English deletion also removes a space), the edits between two unchanged tokens are
   merged into one edit over that whole stretch, less the whitespace both sides share;
4. where tokens cannot be found at all (ChERRANT compares references after converting them
   to simplified characters), one edit covers what differs between source and reference,
   typed with the extractor's types joined by ``+``.

Step 4 keeps the promise on every input; steps 1-3 keep the extractor's edits one by one
wherever the text allows (tests/publishing/test_published_edits.py checks every reference of
a MuCGEC and a CoNLL-14 release).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecscore import M2Edit, correction_tokens

Span = tuple[int, int]


def apply_edits(source: str, edits: Sequence[dict[str, Any]]) -> str:
    """``source`` with character edits ``{start, end, correction}`` applied (any order; they
    must not overlap)."""
    out = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e["start"], e["end"])):
        if edit["start"] < cursor or edit["end"] < edit["start"] or edit["end"] > len(source):
            raise ValueError(f"edit {edit} overlaps another or leaves the source")
        out.append(source[cursor : edit["start"]])
        out.append(edit["correction"])
        cursor = edit["end"]
    out.append(source[cursor:])
    return "".join(out)


def character_edits(
    source: str, reference: str, source_tokens: Sequence[str], edits: Sequence[M2Edit]
) -> list[dict[str, Any]]:
    """``{start, end, correction, type}`` per edit, in source characters (module docstring).
    ``edits``: one reference's M2 edits (noop / NA markers left out by the caller)."""
    edits = sorted(edits, key=lambda e: (e.start, e.end))
    target_tokens, target_spans = _target_tokens(source_tokens, edits)
    source_at = _locate(source, source_tokens)
    target_at = _locate(reference, target_tokens) if source_at is not None else None
    if source_at is not None and target_at is not None:
        one_by_one = [
            _edit(
                _span(source_at, edit.start, edit.end, len(source)),
                _span(target_at, *target_spans[index], len(reference)),
                reference,
                edit.type,
            )
            for index, edit in enumerate(edits)
        ]
        if apply_edits(source, one_by_one) == reference:
            return one_by_one
        merged = _merged(source, reference, source_at, target_at, edits, target_spans)
        if apply_edits(source, merged) == reference:
            return merged
    return _whole(source, reference, edits)


def _target_tokens(
    source_tokens: Sequence[str], edits: Sequence[M2Edit]
) -> tuple[list[str], list[Span]]:
    """The corrected token sequence and, per edit, the span of its tokens in it."""
    tokens: list[str] = []
    spans: list[Span] = []
    cursor = 0
    for edit in edits:
        tokens.extend(source_tokens[cursor : edit.start])
        start = len(tokens)
        tokens.extend(correction_tokens(edit.correction))
        spans.append((start, len(tokens)))
        cursor = max(cursor, edit.end)
    tokens.extend(source_tokens[cursor:])
    return tokens, spans


def _locate(text: str, tokens: Sequence[str]) -> list[Span] | None:
    """Each token's character span in ``text``, in order, with only whitespace between them
    (and around them); None when the tokens are not the text's."""
    spans = []
    cursor = 0
    for token in tokens:
        while cursor < len(text) and text[cursor].isspace():
            cursor += 1
        if not text.startswith(token, cursor):
            return None
        spans.append((cursor, cursor + len(token)))
        cursor += len(token)
    return spans if not text[cursor:].strip() else None


def _span(located: Sequence[Span], start: int, end: int, length: int) -> Span:
    """The characters of tokens [start, end); for no tokens, the point where token `start`
    begins (the text's end after the last token)."""
    if end > start:
        return located[start][0], located[end - 1][1]
    point = located[start][0] if start < len(located) else length
    return point, point


def _edit(source_span: Span, target_span: Span, reference: str, type_: str) -> dict[str, Any]:
    return {
        "start": source_span[0],
        "end": source_span[1],
        "correction": reference[target_span[0] : target_span[1]],
        "type": type_,
    }


def _merged(
    source: str,
    reference: str,
    source_at: Sequence[Span],
    target_at: Sequence[Span],
    edits: Sequence[M2Edit],
    target_spans: Sequence[Span],
) -> list[dict[str, Any]]:
    """One edit per stretch between two unchanged tokens that holds edits: from the end of
    the unchanged token before to the start of the one after, on both sides, less the
    whitespace the two sides share at either end."""
    groups: list[list[int]] = []
    for index, edit in enumerate(edits):
        previous = edits[groups[-1][-1]] if groups else None
        # Adjacent edits (no unchanged token between them) share a stretch.
        if previous is not None and edit.start <= previous.end:
            groups[-1].append(index)
        else:
            groups.append([index])
    out = []
    for group in groups:
        first, last = edits[group[0]], edits[group[-1]]
        s_start = source_at[first.start - 1][1] if first.start > 0 else 0
        s_end = source_at[last.end][0] if last.end < len(source_at) else len(source)
        t_first, t_last = target_spans[group[0]][0], target_spans[group[-1]][1]
        t_start = target_at[t_first - 1][1] if t_first > 0 else 0
        t_end = target_at[t_last][0] if t_last < len(target_at) else len(reference)
        while (
            s_start < s_end
            and t_start < t_end
            and source[s_start] == reference[t_start]
            and source[s_start].isspace()
        ):
            s_start, t_start = s_start + 1, t_start + 1
        while (
            s_end > s_start
            and t_end > t_start
            and source[s_end - 1] == reference[t_end - 1]
            and source[s_end - 1].isspace()
        ):
            s_end, t_end = s_end - 1, t_end - 1
        out.append(
            {
                "start": s_start,
                "end": s_end,
                "correction": reference[t_start:t_end],
                "type": "+".join(edits[i].type for i in group),
            }
        )
    return out


def _whole(source: str, reference: str, edits: Sequence[M2Edit]) -> list[dict[str, Any]]:
    """One edit over what differs (nothing when the texts are equal)."""
    if source == reference:
        return []
    prefix = 0
    limit = min(len(source), len(reference))
    while prefix < limit and source[prefix] == reference[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and source[-1 - suffix] == reference[-1 - suffix]:
        suffix += 1
    types = "+".join(edit.type for edit in edits)
    return [
        {
            "start": prefix,
            "end": len(source) - suffix,
            "correction": reference[prefix : len(reference) - suffix],
            "type": types or "OTHER",
        }
    ]
