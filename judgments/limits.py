"""The bounds of a campaign's results , each a setting (config/settings.py,
docs/judgments.md), the campaign's size checked against them on stored counts, and the state
of its judgments that stored results are computed from. A request past one is refused with a 400 that names the setting, before
any job is queued; the job checks the same bounds before it expands a single pairwise
comparison, and again item by item as it reads the judgments, so its memory is bounded by
the settings, not by what was imported (a 20,000-system Appraise item once grew a web worker
to 4 GB: Expected Wins keeps a systems x systems matrix, and the item alone expands into 200
million pairwise comparisons)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import BigIntegerField, Count, F, Max, Q, Sum
from django.db.models.functions import Cast

from core.exceptions import ServiceError
from gecscore import ADMIN_USER
from judgments.models import Assignment, AssignmentStatus, Campaign, CampaignSystem, Item


class BoundExceeded(ServiceError):
    """A results request past a bound: a 400 whose message and `setting` name the setting."""

    def __init__(self, message: str, *, setting: str, field: str | None = None):
        super().__init__(f"{message} (setting {setting})", field=field or "campaign")
        self.setting = setting


def setting(name: str) -> int:
    return int(getattr(settings, name))


@dataclass(frozen=True)
class ResultsLimits:
    """What one computation may hold: judged items, systems in one item, systems of the
    campaign and pairwise comparisons (settings GEC_RESULTS_MAX_*)."""

    items: int
    systems_per_item: int
    systems: int
    comparisons: int

    @classmethod
    def from_settings(cls) -> ResultsLimits:
        return cls(
            items=setting("GEC_RESULTS_MAX_ITEMS"),
            systems_per_item=setting("GEC_RESULTS_MAX_SYSTEMS_PER_ITEM"),
            systems=setting("GEC_RESULTS_MAX_SYSTEMS"),
            comparisons=setting("GEC_RESULTS_MAX_COMPARISONS"),
        )

    def check_item(self, place: str, systems: int) -> None:
        if systems > self.systems_per_item:
            raise BoundExceeded(
                f"{place} has {systems:,} systems; results are computed for items of at most"
                f" {self.systems_per_item:,} systems",
                setting="GEC_RESULTS_MAX_SYSTEMS_PER_ITEM",
            )

    def check_totals(self, campaign: str, *, items: int, systems: int, comparisons: int) -> None:
        if items > self.items:
            raise BoundExceeded(
                f"campaign {campaign} has {items:,} judged items; results are computed for at"
                f" most {self.items:,}",
                setting="GEC_RESULTS_MAX_ITEMS",
            )
        if systems > self.systems:
            raise BoundExceeded(
                f"campaign {campaign} has {systems:,} systems; results are computed for at most"
                f" {self.systems:,}",
                setting="GEC_RESULTS_MAX_SYSTEMS",
            )
        if comparisons > self.comparisons:
            raise BoundExceeded(
                f"campaign {campaign}'s judgments expand into {comparisons:,} pairwise"
                f" comparisons; results are computed for at most {self.comparisons:,}",
                setting="GEC_RESULTS_MAX_COMPARISONS",
            )


# --- the campaign's state and size, from stored counts ---------------------------------------


def judgment_state(campaign: Campaign) -> str:
    """What the results depend on, in one aggregate query: assignments, finished ones, the
    last judgment and the last finish. Any judgment, skip or import changes it."""
    row = Assignment.objects.filter(campaign=campaign).aggregate(
        total=Count("id"),
        finished=Count("id", filter=~Q(status=AssignmentStatus.PENDING)),
        last=Max("judgment__id"),
        at=Max("finished_at"),
    )
    at = row["at"].timestamp() if row["at"] is not None else 0
    return f"{row['total']}:{row['finished']}:{row['last'] or 0}:{at}"


@dataclass(frozen=True)
class CampaignSize:
    items: int
    widest: int
    systems: int
    comparisons: int


def campaign_size(campaign: Campaign) -> CampaignSize:
    """Judged items, the most systems in one of them, the campaign's systems and the pairwise
    comparisons the judgments expand into, from the items' stored system counts."""
    width = Cast(F("item__system_count"), BigIntegerField())
    row = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.DONE)
        .exclude(judge_name=ADMIN_USER)
        .aggregate(
            items=Count("id"),
            widest=Max("item__system_count"),
            comparisons=Sum(width * (width - 1) / 2),
        )
    )
    return CampaignSize(
        items=row["items"] or 0,
        widest=row["widest"] or 0,
        systems=CampaignSystem.objects.filter(campaign=campaign).count(),
        comparisons=int(row["comparisons"] or 0),
    )


def check_size(campaign: Campaign) -> CampaignSize:
    """The campaign within the bounds (BoundExceeded, a 400 naming the setting) and with a
    pairwise comparison to rank (a 400 saying so)."""
    limits = ResultsLimits.from_settings()
    size = campaign_size(campaign)
    if size.widest > limits.systems_per_item:
        item = (
            Item.objects.filter(campaign=campaign, system_count__gt=limits.systems_per_item)
            .order_by("number")
            .first()
        )
        place = f"item {item.src_id!r} (#{item.number})" if item is not None else "an item"
        limits.check_item(place, size.widest)
    limits.check_totals(
        campaign.name, items=size.items, systems=size.systems, comparisons=size.comparisons
    )
    if not size.comparisons:
        raise ServiceError(
            "no pairwise judgment yet: rank the outputs of at least one item", field="campaign"
        )
    return size
