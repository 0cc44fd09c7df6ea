"""Edit-wise voting ensemble (MuCGEC section 4), pure Python (no Django).

Each system's hypothesis is turned into edits by the ONE extractor (`gecscore.extract_edits`);
an edit (source span + replacement) is kept when more than half of the systems propose it,
and the kept edits are applied to the source to give the ensemble's hypothesis.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.edits import apply_edits
from gecscore.errors import InputError

__all__ = [
    "VoteEdit",
    "majority",
    "vote",
    "vote_edits_from",
]

# Types of edits that change nothing in the text (markers, not corrections).
_MARKER_TYPES = frozenset({"noop", "NA"})


@dataclass(frozen=True)
class VoteEdit:
    """The part of an edit that defines it for voting: where it is and what it writes."""

    start: int
    end: int
    target_text: str


def majority(n_systems: int) -> int:
    """Votes needed to keep an edit: strictly more than half of the systems."""
    return n_systems // 2 + 1


def vote(
    source_tokens: Sequence[str],
    edit_sets: Sequence[Sequence[VoteEdit]],
    *,
    min_votes: int | None = None,
) -> tuple[str, list[VoteEdit]]:
    """Combine the systems' edits of one sentence; return (hypothesis text, kept edits).

    `min_votes` defaults to a strict majority of ``len(edit_sets)``. One system's edits never
    overlap each other, so two overlapping edits can both reach a majority only when
    ``min_votes`` is set lower by the caller; then the earlier-starting (and, at the same
    start, more voted) edit wins and the overlapping one is dropped rather than garbling text.
    """
    if not edit_sets:
        raise InputError("an ensemble needs at least one system")
    needed = majority(len(edit_sets)) if min_votes is None else min_votes
    votes: Counter[VoteEdit] = Counter()
    for edits in edit_sets:
        # A system proposing the same edit twice (alternative alignments) still votes once.
        votes.update(set(edits))
    kept_candidates = sorted(
        (edit for edit, count in votes.items() if count >= needed),
        key=lambda e: (e.start, e.end, -votes[e], e.target_text),
    )
    kept: list[VoteEdit] = []
    covered_until = -1
    last_insertion_at = -1
    for edit in kept_candidates:
        if edit.start < covered_until:
            continue
        if edit.start == edit.end:
            # Two different insertions at one point cannot both be applied meaningfully.
            if edit.start == last_insertion_at:
                continue
            last_insertion_at = edit.start
        kept.append(edit)
        covered_until = max(covered_until, edit.end)
    text, _ = apply_edits(source_tokens, [(e.start, e.end, (e.target_text,)) for e in kept])
    return "".join(text), kept


def vote_edits_from(edit_type: str, start: int, end: int, target_text: str) -> VoteEdit | None:
    """A voting key for one extracted edit, or None for markers (noop / NA)."""
    if edit_type in _MARKER_TYPES or start < 0:
        return None
    return VoteEdit(start=start, end=end, target_text=target_text)
