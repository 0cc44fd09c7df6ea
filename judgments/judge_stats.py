"""Per-judge statistics of a campaign's results: the counts, read live from the assignments
(cheap: the results page shows them beside the stored kappas), and Cohen's kappa of each judge
with the others and with themself (computed with the results)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Count, Q, Sum

# Judges' Cohen's kappa: the rankings package's own API.
from gecscore.meta.rankings import agreement

from gecscore import JudgmentSet
from judgments.models import Assignment, AssignmentStatus, Campaign


def judge_counts(campaign: Campaign) -> list[dict[str, Any]]:
    """Per judge, from the assignments as they are now (two grouped queries): items assigned,
    finished and skipped, and the time spent. The results page shows these live beside the
    stored kappas, so a reassignment shows at once."""
    rows = (
        Assignment.objects.filter(campaign=campaign)
        .values("judge_name")
        .annotate(
            assigned=Count("id"),
            done=Count("id", filter=Q(status=AssignmentStatus.DONE)),
            skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)),
        )
        .order_by("judge_name")
    )
    seconds = dict(
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.DONE)
        .values_list("judge_name")
        .annotate(total=Sum("seconds_spent"))
        .order_by()
    )
    out = []
    for row in rows:
        name = row["judge_name"]
        spent = float(seconds.get(name) or 0.0)
        out.append(
            {
                "judge": name,
                "assigned": row["assigned"],
                "done": row["done"],
                "skipped": row["skipped"],
                "seconds": round(spent, 1),
                "seconds_per_item": round(spent / row["done"], 1) if row["done"] else None,
            }
        )
    return out


def judge_statistics(campaign: Campaign, judgments: JudgmentSet) -> list[dict[str, Any]]:
    """Per judge: items finished and skipped, time, and Cohen's kappa with the other judges and
    with themself (pooled like the campaign's kappa, without the 50-decision floor)."""
    kappa = agreement(judgments.items, min_overlap=1)
    out = []
    for row in judge_counts(campaign):
        name = row["judge"]
        inter_sum = inter_weight = 0.0
        intra: float | None = None
        for (first, second), (value, weight) in kappa.per_pair.items():
            if name not in (first, second) or not weight:
                continue
            if first == second:
                intra = value
            else:
                inter_sum += value * weight
                inter_weight += weight
        out.append(
            {
                **row,
                "inter_kappa": inter_sum / inter_weight if inter_weight else None,
                "intra_kappa": intra,
            }
        )
    return out


def with_live_judge_counts(
    campaign: Campaign, stored: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The judges' counts as they are now, each with the kappas of the stored results."""
    kappas = {row["judge"]: row for row in stored}
    return [
        {
            **row,
            "inter_kappa": kappas.get(row["judge"], {}).get("inter_kappa"),
            "intra_kappa": kappas.get(row["judge"], {}).get("intra_kappa"),
        }
        for row in judge_counts(campaign)
    ]
