"""Reading scores under the three reference sets (docs/closest-gold.md): a system's golden,
closest-gold and pooled scores side by side, the release's ranks under each and the rank
changes against golden. A stored closest-gold or pooled score counts only while it was made
from the current references (a verification added since makes it stale: not shown)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.models import (
    ReferenceSet,
    ReferenceSetScore,
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.selectors import scored_system_fields
from scoring.services.reference_sets import SetReferences, named_signature, set_references

SETS = tuple(ReferenceSet.values)


@dataclass
class SetState:
    """One system under one reference set: its score when there is a current one, else its
    coverage; ``partial`` is a stored partial score (shown only when asked for)."""

    reference_set: str
    verified: int
    total: int
    score: SystemScore | ReferenceSetScore | None = None
    partial: ReferenceSetScore | None = None
    rank: int | None = None
    rank_change: int | None = None  # golden rank - this rank: > 0 moved up

    @property
    def complete(self) -> bool:
        return self.verified == self.total

    @property
    def f05(self) -> float | None:
        return None if self.score is None else self.score.f05

    @property
    def arrow(self) -> str:
        if self.rank_change is None or self.rank_change == 0:
            return "="
        return f"\u2191{self.rank_change}" if self.rank_change > 0 else f"\u2193{-self.rank_change}"


@dataclass
class SystemSets:
    system: SystemOutput
    sets: dict[str, SetState] = field(default_factory=dict)


def _stored(system: SystemOutput, name: str, refs: SetReferences, *, partial: bool) -> Any:
    row = ReferenceSetScore.objects.filter(
        system=system, reference_set=name, partial=partial
    ).first()
    if row is None or row.references_key != refs.key(system, partial=partial):
        return None
    return row


def system_sets(system: SystemOutput) -> SystemSets:
    """The system's state under each set (no rank: see `release_sets`)."""
    out = SystemSets(system)
    golden = SystemScore.objects.filter(system=system, status=ScoreStatus.DONE).first()
    total = len(system.hypotheses)
    out.sets[ReferenceSet.GOLDEN] = SetState(ReferenceSet.GOLDEN, total, total, score=golden)
    for name in (ReferenceSet.CLOSEST_GOLD, ReferenceSet.POOLED):
        refs = set_references(system, name)
        state = SetState(name, refs.verified, refs.total)
        if refs.complete:
            state.score = _stored(system, name, refs, partial=False)
        else:
            state.partial = _stored(system, name, refs, partial=True)
        out.sets[name] = state
    return out


def _rank(values: dict[int, float]) -> dict[int, int]:
    """Competition ranks (1 = best F0.5; ties share a rank)."""
    ordered = sorted(values.values(), reverse=True)
    return {key: ordered.index(value) + 1 for key, value in values.items()}


def release_sets(systems: Sequence[SystemOutput]) -> list[SystemSets]:
    """Every system's states with its rank under each set among the systems scored under
    it, and the change against its golden rank."""
    rows = [system_sets(system) for system in systems]
    ranks: dict[str, dict[int, int]] = {}
    for name in SETS:
        values = {
            row.system.pk: row.sets[name].f05 for row in rows if row.sets[name].f05 is not None
        }
        ranks[name] = _rank({k: v for k, v in values.items() if v is not None})
    for row in rows:
        golden_rank = ranks[ReferenceSet.GOLDEN].get(row.system.pk)
        for name in SETS:
            state = row.sets[name]
            state.rank = ranks[name].get(row.system.pk)
            if state.rank is not None and golden_rank is not None:
                state.rank_change = golden_rank - state.rank
    return rows


def state_payload(state: SetState, *, with_partial: bool = False) -> dict[str, Any]:
    """The API's (and `score_system --json`'s) view of one set."""
    payload: dict[str, Any] = {
        "reference_set": state.reference_set,
        "verified": state.verified,
        "total": state.total,
        "complete": state.complete,
        "rank": state.rank,
        "rank_change": state.rank_change,
        "score": None if state.score is None else score_numbers(state.score),
    }
    if with_partial:
        payload["partial"] = None if state.partial is None else score_numbers(state.partial)
    return payload


def score_numbers(score: SystemScore | ReferenceSetScore) -> dict[str, Any]:
    summary = score.summary or {}
    numbers: dict[str, Any] = {
        "tp": score.tp,
        "fp": score.fp,
        "fn": score.fn,
        "p": score.p,
        "r": score.r,
        "f05": score.f05,
        "signature": score.signature,
        "categories": summary.get("categories", {}),
        "detection": summary.get("detection", {}),
        "extra": summary.get("extra", {}),
    }
    if isinstance(score, ReferenceSetScore):
        numbers.update(
            reference_set=score.reference_set,
            partial=score.partial,
            verified=score.verified,
            total=score.total,
            sentences_scored=score.sentences_scored,
        )
    else:
        numbers["reference_set"] = ReferenceSet.GOLDEN
        numbers["signature"] = named_signature(score.signature, ReferenceSet.GOLDEN)
    return numbers


def reference_set_payload(score: ReferenceSetScore) -> dict[str, Any]:
    """`score_system --refs closest-gold|pooled --json` and the API: a stored set score."""
    summary = score.summary or {}
    return {
        **scored_system_fields(score.system),
        **score_numbers(score),
        "ref_count_curve": summary.get("ref_count_curve", []),
        "by_source": summary.get("by_source", {}),
    }
