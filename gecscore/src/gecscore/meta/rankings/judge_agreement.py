"""Cohen's kappa agreement between and within judges on pairwise decisions (``agreement.pl``)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gecscore.meta.judgments import ADMIN_USER, RankingItem

__all__ = [
    "Agreement",
    "MIN_OVERLAP",
    "agreement",
    "pooled_kappa",
]


MIN_OVERLAP = 50  # agreement.pl leaves out judge pairs with fewer common comparisons


@dataclass(frozen=True)
class Agreement:
    """Cohen's kappa on pairwise decisions (<, =, >), weighted by the number of comparisons
    of each judge pair (inter) or of each judge with themself (intra)."""

    inter_kappa: float
    intra_kappa: float
    per_pair: dict[tuple[str, str], tuple[float, int]]


def _entry_comparisons(item: RankingItem) -> list[tuple[str, str, str]]:
    """Pairs of shown entries (collapsed entries NOT split, as ``agreement.pl`` does)."""
    by_rank: dict[int, list[str]] = {}
    for entry in item.entries:
        by_rank.setdefault(entry.rank, []).append(" ".join(entry.systems))
    groups = [sorted(by_rank[r]) for r in sorted(by_rank)]
    out: list[tuple[str, str, str]] = []
    for i, better in enumerate(groups):
        for x, first in enumerate(better):
            for second in better[x + 1 :]:
                out.append((first, second, "="))
        for worse in groups[i + 1 :]:
            for a in better:
                for b in worse:
                    out.append((a, b, "<") if a < b else (b, a, ">"))
    return out


def _kappa(
    first: dict[tuple[str, str, str], list[str]],
    second: dict[tuple[str, str, str], list[str]],
    same: bool,
) -> tuple[float, int]:
    agree = total = seen = 0
    tally: dict[str, int] = defaultdict(int)  # decisions per label ("<", "=", ">" or verdicts)
    for key, mine in first.items():
        theirs = second.get(key)
        if theirs is None:
            continue
        if same:
            if len(mine) == 1:
                continue
            for x in range(len(mine)):
                for y in range(x + 1, len(mine)):
                    agree += mine[x] == mine[y]
                    total += 1
            both: Iterable[str] = mine
            seen += len(mine)
        else:
            for a in mine:
                for b in theirs:
                    agree += a == b
                    total += 1
            both = [*mine, *theirs]
            seen += len(mine) + len(theirs)
        for relation in both:
            tally[relation] += 1
    if not total:
        return 0.0, 0
    p_agree = agree / total
    p_chance = sum((count / seen) ** 2 for count in tally.values())
    if p_chance >= 1.0:
        # Every decision of the pair is the same relation: kappa is undefined (0/0); the pair
        # is left out like a pair with no common decision (small platform campaigns hit this).
        return 0.0, 0
    return (p_agree - p_chance) / (1 - p_chance), total


def agreement(items: Sequence[RankingItem], *, min_overlap: int = MIN_OVERLAP) -> Agreement:
    """Inter- and intra-annotator kappa as ``agreement.pl``: a comparison is (sentence, entry,
    entry); each judge's decisions on it are pooled over the items they judged; judge pairs
    (and judges with themselves) with fewer than ``min_overlap`` common decisions are left out."""
    by_judge: dict[str, dict[tuple[str, str, str], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for item in items:
        if item.user == ADMIN_USER:
            continue
        decisions = by_judge[item.user]
        for a, b, relation in _entry_comparisons(item):
            decisions[(item.src_id, a, b)].append(relation)
    return pooled_kappa(by_judge, min_overlap=min_overlap)


def pooled_kappa(
    by_judge: Mapping[str, dict[tuple[str, str, str], list[str]]], *, min_overlap: int
) -> Agreement:
    """Cohen's kappa of every judge pair (and of each judge with themself) over the decisions
    they share, pooled weighted by the number of shared decisions; a pair with fewer than
    ``min_overlap`` is left out. A decision is keyed by what was decided on and holds each
    label the judge gave it (several when they saw it more than once)."""
    inter = inter_weight = intra = intra_weight = 0.0
    per_pair: dict[tuple[str, str], tuple[float, int]] = {}
    judges = sorted(by_judge)
    for x, first in enumerate(judges):
        for second in judges[x:]:
            kappa, weight = _kappa(by_judge[first], by_judge[second], first == second)
            per_pair[(first, second)] = (kappa, weight)
            if weight < min_overlap:
                continue
            if first == second:
                intra += kappa * weight
                intra_weight += weight
            else:
                inter += kappa * weight
                inter_weight += weight
    return Agreement(
        inter_kappa=inter / inter_weight if inter_weight else math.nan,
        intra_kappa=intra / intra_weight if intra_weight else math.nan,
        per_pair=per_pair,
    )
