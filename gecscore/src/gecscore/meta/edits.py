"""Edit-level human results, as SEEDA-E (Kobayashi et al., TACL 2024) collects them: a judge
first marks each edit of each shown output correct or incorrect, then ranks the outputs.

From the verdicts (``RankedEntry.edits``) this module computes, per system:

* **edit precision**: the share of its judged edits marked correct (an output shown for several
  identical systems credits each of them), with a percentile bootstrap interval over the judged
  items (items drawn with replacement, ``samples`` times);
* **agreement** on verdicts: Cohen's kappa between judges (and of a judge with themself on a
  repeated item), pooled like the ranking kappa: a decision is (sentence, shown output, edit);
* an **edit-based ranking** (:func:`verdict_rankings`): within each item the outputs are
  ordered by net correct edits (correct minus incorrect; an unchanged output scores 0), so
  the human ranking (Expected Wins, TrueSkill) can be computed from the verdicts alone.

SEEDA's published ``EW_edit`` / ``TS_edit`` are Expected Wins / TrueSkill of the ranks the
judges gave *after* judging the edits (the second step); those come from :mod:`report`'s
``human_ranking`` on the items as they are. The verdict-derived ranking is the mechanical
version of that second step (the judge's ranks can weigh edits differently).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gecscore.meta.judgments import ADMIN_USER, RankedEntry, RankingItem
from gecscore.meta.rankings import Agreement, pooled_kappa

__all__ = [
    "CONFIDENCE",
    "EditPrecision",
    "edit_agreement",
    "edit_precision",
    "edit_report",
    "judged_items",
    "net_correct",
    "verdict_rankings",
]


CONFIDENCE = 0.95


@dataclass(frozen=True)
class EditPrecision:
    """A system's judged edits, how many were marked correct, their share and its interval
    (None without edits or without a bootstrap)."""

    system: str
    judged: int
    correct: int
    precision: float | None
    interval: tuple[float, float] | None = None


def judged_items(items: Sequence[RankingItem]) -> list[RankingItem]:
    """The items with at least one edit verdict (admin items dropped)."""
    return [
        item
        for item in items
        if item.user != ADMIN_USER and any(entry.edits for entry in item.entries)
    ]


def _counts(items: Sequence[RankingItem], systems: Sequence[str]) -> np.ndarray[Any, Any]:
    """(items x systems x 2) counts: judged edits and correct edits of each system per item."""
    index = {name: i for i, name in enumerate(systems)}
    counts = np.zeros((len(items), len(systems), 2), dtype=np.int64)
    for row, item in enumerate(items):
        for entry in item.entries:
            correct = sum(1 for verdict in entry.edits if verdict.correct)
            for name in entry.systems:
                counts[row, index[name], 0] += len(entry.edits)
                counts[row, index[name], 1] += correct
    return counts


def edit_precision(
    items: Sequence[RankingItem], *, samples: int = 0, seed: int = 0
) -> list[EditPrecision]:
    """Edit precision per system, best first (a system without judged edits last, precision
    None). With ``samples`` > 1, a 95% percentile interval from resampling the judged items."""
    judged = judged_items(items)
    systems = sorted({name for item in judged for name in item.systems})
    if not systems:
        return []
    counts = _counts(judged, systems)
    totals = counts.sum(axis=0)
    intervals: dict[str, tuple[float, float]] = {}
    if samples > 1:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, len(judged), size=(samples, len(judged)))
        resampled = counts[draws].sum(axis=1)  # samples x systems x 2
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = resampled[:, :, 1] / resampled[:, :, 0]
        tail = (1 - CONFIDENCE) / 2 * 100
        for column, name in enumerate(systems):
            values = shares[:, column]
            values = values[~np.isnan(values)]
            if totals[column, 0] and values.size:
                low, high = np.percentile(values, [tail, 100 - tail])
                intervals[name] = (float(low), float(high))
    out = [
        EditPrecision(
            system=name,
            judged=int(totals[column, 0]),
            correct=int(totals[column, 1]),
            precision=float(totals[column, 1] / totals[column, 0]) if totals[column, 0] else None,
            interval=intervals.get(name),
        )
        for column, name in enumerate(systems)
    ]
    return sorted(
        out, key=lambda p: (p.precision is None, -(p.precision or 0.0), -p.judged, p.system)
    )


def edit_agreement(items: Sequence[RankingItem], *, min_overlap: int = 1) -> Agreement:
    """Cohen's kappa on correct/incorrect verdicts: inter (judge pairs) and intra (a judge's
    repeated items), each pooled over the pairs weighted by shared verdicts."""
    by_judge: dict[str, dict[tuple[str, str, str], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for item in judged_items(items):
        decisions = by_judge[item.user]
        for entry in item.entries:
            shown = " ".join(sorted(entry.systems))
            for verdict in entry.edits:
                label = "correct" if verdict.correct else "incorrect"
                decisions[(item.src_id, shown, str(verdict.edit))].append(label)
    return pooled_kappa(by_judge, min_overlap=min_overlap)


def net_correct(entry: RankedEntry) -> int:
    """Correct minus incorrect edits of a shown output (0 when it changes nothing)."""
    return sum(1 if verdict.correct else -1 for verdict in entry.edits)


def verdict_rankings(items: Sequence[RankingItem]) -> list[RankingItem]:
    """Each judged item re-ranked by its verdicts: outputs with more net correct edits rank
    better; equal nets tie (dense ranks, 1 = best). Items without a verdict are left out."""
    out = []
    for item in judged_items(items):
        nets = [net_correct(entry) for entry in item.entries]
        dense = {net: rank for rank, net in enumerate(sorted(set(nets), reverse=True), start=1)}
        entries = tuple(
            RankedEntry(systems=entry.systems, rank=dense[net], edits=entry.edits)
            for entry, net in zip(item.entries, nets, strict=True)
        )
        out.append(
            RankingItem(
                item_id=item.item_id,
                src_id=item.src_id,
                user=item.user,
                entries=entries,
                doc_id=item.doc_id,
                duration=item.duration,
                extra=item.extra,
            )
        )
    return out


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def edit_report(
    items: Sequence[RankingItem], *, samples: int = 0, seed: int = 0
) -> dict[str, Any] | None:
    """JSON-ready edit-level results: ``{"systems": [{"system", "judged", "correct",
    "precision", "interval"}], "verdicts", "items", "agreement": {"inter_kappa",
    "intra_kappa"}, "bootstrap", "seed"}``; None when no item carries a verdict."""
    judged = judged_items(items)
    if not judged:
        return None
    precision = edit_precision(judged, samples=samples, seed=seed)
    kappa = edit_agreement(judged)
    return {
        "systems": [
            {
                "system": p.system,
                "judged": p.judged,
                "correct": p.correct,
                "precision": p.precision,
                "interval": list(p.interval) if p.interval else None,
            }
            for p in precision
        ],
        "verdicts": sum(len(e.edits) for item in judged for e in item.entries),
        "items": len(judged),
        "agreement": {
            "inter_kappa": _number(kappa.inter_kappa),
            "intra_kappa": _number(kappa.intra_kappa),
        },
        "bootstrap": samples,
        "seed": seed,
    }
