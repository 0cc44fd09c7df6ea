"""Dynamic assignment: a judge's next item is chosen when they ask for it, by the library's
rule (gecscore.meta.assignment.item_priorities): of the items this judge has not judged and
that still lack judges, the one whose judging is expected to settle the order of the top
systems most, given the campaign's pairwise judgments so far. A cold start (nothing judged)
is uniform, ties drawn at random with a seed.

The shares a static queue has are kept: attention checks (created with the campaign, one
after every (1 - share) / share items), a consistency repeat of one of the judge's judged
items after every 1 / share first showings, and agreement items, which were given k + 1
judges when the campaign was built (Item.judges_wanted).

An item its judge opened and left is moved by the stale rule (services.reassign_stale) to
another judge, who is handed it before anything new when they next ask; the judge who left it
is never given it again (Item.left_by), here or by the stale rule.

Concurrency: the campaign row is locked while an item is chosen and its assignment written,
so two judges asking at once are served one after the other and never both take an item's
last slot; the (item, judge, repeat) constraint backs this up.
"""

from __future__ import annotations

import random

from django.db.models import Count, F, Q
from django.utils import timezone

from core.models import User
from gecscore import item_priorities
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CheckKind,
    Item,
    Judgment,
)

RULE_IN_WORDS = (
    "Each judge is given, of the items they have not judged that still lack judges, the one"
    " whose judgment is expected to most reduce the chance that the top systems' Expected"
    " Wins are in the wrong order (uniform at random until anything is judged)."
)
# Values within this relative distance of the best are ties (sums in another order differ
# in the last bits); one of them is drawn at random.
TIE_TOLERANCE = 1e-9


def pairwise_judgments(campaign: Campaign) -> list[tuple[str, str, str]]:
    """(system a, system b, "<" | ">" | "=") for every pair of systems on different outputs
    of every answered ordinary item (checks and repeat showings left out)."""
    judged = (
        Judgment.objects.filter(
            assignment__campaign=campaign,
            assignment__repeat=False,
            assignment__item__check_kind=CheckKind.NONE,
        )
        .select_related("assignment__item")
        .prefetch_related("assignment__item__outputs")
    )
    pairs: list[tuple[str, str, str]] = []
    for judgment in judged:
        outputs = list(judgment.assignment.item.outputs.all())
        for x, one in enumerate(outputs):
            for y in range(x + 1, len(outputs)):
                other = outputs[y]
                a, b = judgment.ranks[x], judgment.ranks[y]
                relation = "<" if a < b else ">" if a > b else "="
                pairs.extend((s, t, relation) for s in one.systems for t in other.systems)
    return pairs


def _start(assignment: Assignment) -> Assignment:
    assignment.started_at = timezone.now()
    assignment.save(update_fields=["started_at"])
    return assignment


def _new(campaign: Campaign, judge: User, item_id: int, *, repeat: bool, order: int) -> Assignment:
    return Assignment.objects.create(
        campaign=campaign,
        item_id=item_id,
        judge=judge,
        judge_name=judge.username,
        repeat=repeat,
        order=order,
        started_at=timezone.now(),
    )


def next_dynamic_assignment(*, campaign: Campaign, judge: User) -> Assignment | None:
    """The judge's next item in a dynamic campaign (called in a transaction by
    services.next_assignment): an item they opened and did not finish; else an item the stale
    rule moved to them; else a check or a consistency repeat when one is due; else the item the
    rule values most; None when done."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    mine = Assignment.objects.filter(campaign=campaign, judge=judge)
    opened = mine.filter(status=AssignmentStatus.PENDING, started_at__isnull=False)
    current = opened.order_by("order", "id").first()
    if current is not None:
        return current
    taken = mine.filter(started_at__isnull=False).aggregate(
        ordinary=Count("id", filter=Q(repeat=False, item__check_kind=CheckKind.NONE)),
        checks=Count("id", filter=~Q(item__check_kind=CheckKind.NONE)),
        repeats=Count("id", filter=Q(repeat=True)),
    )
    order = mine.count()
    unopened = mine.filter(status=AssignmentStatus.PENDING, started_at__isnull=True)
    # only the stale rule leaves an unopened first showing of an ordinary item with a judge
    # here (this rule writes them opened); nothing else would ever hand it out
    moved_here = (
        unopened.filter(repeat=False, item__check_kind=CheckKind.NONE).order_by("id").first()
    )
    if moved_here is not None:
        moved_here.order = order
        moved_here.save(update_fields=["order"])
        return _start(moved_here)
    share = campaign.attention_share
    if share and (taken["checks"] + 1) * (1.0 - share) <= taken["ordinary"] * share:
        check = unopened.exclude(item__check_kind=CheckKind.NONE).first()
        if check is not None:
            check.order = order
            check.save(update_fields=["order"])
            return _start(check)
    if taken["repeats"] + 1 <= taken["ordinary"] * campaign.consistency_share:
        repeated = mine.filter(repeat=True).values_list("item_id", flat=True)
        candidates = list(
            mine.filter(repeat=False, status=AssignmentStatus.DONE, item__check_kind=CheckKind.NONE)
            .exclude(item_id__in=repeated)
            .order_by("item__number")
            .values_list("item_id", flat=True)
        )
        if candidates:
            rng = random.Random(f"{campaign.seed}:repeat:{judge.pk}:{taken['repeats']}")
            return _new(campaign, judge, rng.choice(candidates), repeat=True, order=order)
    item_id = _most_valuable_item(campaign, judge, drawn=taken["ordinary"])
    if item_id is None:
        # nothing left to judge: the checks this judge was never shown go (their items were
        # theirs alone), so the judge's progress reads done
        unused = mine.filter(status=AssignmentStatus.PENDING, started_at__isnull=True)
        Item.objects.filter(pk__in=unused.values("item_id")).exclude(
            check_kind=CheckKind.NONE
        ).delete()
        return None
    return _new(campaign, judge, item_id, repeat=False, order=order)


def open_items(campaign: Campaign, judge: User) -> list[Item]:
    """Ordinary items `judge` does not hold and never left that have fewer first showings
    than they want."""
    held = Assignment.objects.filter(campaign=campaign, judge=judge).values_list(
        "item_id", flat=True
    )
    return list(
        Item.objects.filter(campaign=campaign, check_kind=CheckKind.NONE)
        .exclude(pk__in=held)
        .exclude(left_by=judge)
        .annotate(showings=Count("assignments", filter=Q(assignments__repeat=False)))
        .filter(showings__lt=F("judges_wanted"))
        .prefetch_related("outputs")
        .order_by("number")
    )


def _most_valuable_item(campaign: Campaign, judge: User, *, drawn: int) -> int | None:
    candidates = open_items(campaign, judge)
    if not candidates:
        return None
    shown = [[list(output.systems) for output in item.outputs.all()] for item in candidates]
    systems = list(campaign.systems.values_list("name", flat=True))
    values = item_priorities(pairwise_judgments(campaign), shown, systems=systems)
    best = max(values)
    tied = [
        item.pk
        for item, value in zip(candidates, values, strict=True)
        if value >= best - TIE_TOLERANCE * abs(best)
    ]
    rng = random.Random(f"{campaign.seed}:dynamic:{judge.pk}:{drawn}")
    return rng.choice(tied)
