"""Edit types for merged edits: transposition W, deletion R, insertion M, substitution S.

ChERRANT's word level refines these with LTP part-of-speech tags (R:NOUN, ...); our word level
has no POS tagger (jieba only), so it uses the same four operation types at both levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.align import Op

__all__ = [
    "NONE_CORRECTION",
    "TypedEdit",
    "classify",
]

NONE_CORRECTION = "-NONE-"


@dataclass(frozen=True)
class TypedEdit:
    type: str  # W / R / M / S
    start: int
    end: int
    target_start: int
    target_end: int
    correction: str  # target tokens joined by single spaces; "-NONE-" for deletions


def classify(edits: Sequence[Op], tgt: Sequence[str]) -> list[TypedEdit]:
    typed: list[TypedEdit] = []
    for label, s_start, s_end, t_start, t_end in edits:
        tokens = " ".join(tgt[t_start:t_end])
        kind = label[0]
        if kind == "T":
            typed.append(TypedEdit("W", s_start, s_end, t_start, t_end, tokens))
        elif kind == "D":
            typed.append(TypedEdit("R", s_start, s_end, t_start, t_end, NONE_CORRECTION))
        elif kind == "I":
            typed.append(TypedEdit("M", s_start, s_end, t_start, t_end, tokens))
        elif kind == "S":
            typed.append(TypedEdit("S", s_start, s_end, t_start, t_end, tokens))
        else:  # pragma: no cover - merge() never emits other labels
            raise ValueError(f"unexpected edit label {label!r}")
    return typed
