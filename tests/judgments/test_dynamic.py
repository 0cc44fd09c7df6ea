"""Dynamic assignment: a cold start spreads the items (seeded), later the items showing two
close top systems are preferred, no item gets more judges than it wants and no judge an item
twice, the consistency, agreement and attention shares are kept, and two judges asking at
once never both take an item's last slot (PostgreSQL, threads). An item a judge opened and
abandoned is moved by the stale rule and handed out when its new judge asks; it never goes
back to the judge who abandoned it, and the race for its slot has one winner."""

from __future__ import annotations

import html
import random
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from core.models import User
from core.roles import Role
from judgments import services
from judgments.models import Assignment, AssignmentStatus, Campaign, Item
from judgments.services import dynamic
from tests.factories import make_user
from tests.judgments.attention_kit import attention_campaign, judge_one, make_release_with

pytestmark = pytest.mark.django_db

# 48 sentences, four systems with four different outputs each; items show two of them
BASES = ["我很喜欢吃苹果", "他是一个好学生", "今天天气很好", "我们一起去公园"] * 12
QUALITY = {"A": 0, "B": 0, "C": 1, "D": 2}  # A and B tie at the top, then C, then D


def _variant(text: str, system: str, index: int) -> str:
    return f"{text}{'呀吧啊呢'['ABCD'.index(system)]}{index}"


def four_system_campaign(judges: list[User], **extra) -> Campaign:  # type: ignore[no-untyped-def]
    sources = [f"{b}{i}" for i, b in enumerate(BASES)]
    release = make_release_with(sources, sources)
    outputs = {s: [_variant(b, s, i) for i, b in enumerate(BASES)] for s in "ABCD"}
    return services.create_campaign(
        name=extra.pop("name", "dyn"),
        release=release,
        system_outputs=outputs,
        judges=judges,
        judges_per_item=extra.pop("judges_per_item", 1),
        outputs_per_item=2,
        consistency_share=extra.pop("consistency_share", 0.0),
        dynamic=True,
        **extra,
    )


def _answer_by_quality(assignment: Assignment, judge: User) -> None:
    outputs = list(assignment.item.outputs.all())
    quality = [min(QUALITY[s] for s in o.systems) for o in outputs]
    levels = sorted(set(quality))
    ranks = [levels.index(q) + 1 for q in quality]
    services.submit_judgment(assignment_id=assignment.pk, judge=judge, ranks=ranks)


def _pair(item: Item) -> frozenset[str]:
    return frozenset(s for o in item.outputs.all() for s in o.systems)


def _first_number(campaign: Campaign, judge: User) -> int:
    assignment = services.next_assignment(campaign=campaign, judge=judge)
    assert assignment is not None
    return assignment.item.number


def test_a_cold_start_spreads_the_items_and_is_seeded() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(6)]
    firsts = []
    for seed in (0, 1):
        campaign = four_system_campaign(judges, name=f"cold{seed}", seed=seed)
        picked = [_first_number(campaign, j) for j in judges]
        assert len(set(picked)) >= 5  # uniform among 48 items: almost never a repeat
        firsts.append(picked)
    assert firsts[0] != firsts[1]
    again = four_system_campaign(judges, name="cold0-again", seed=0)
    assert [_first_number(again, j) for j in judges] == firsts[0]


def test_later_the_items_showing_the_close_top_systems_come_first() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(3)]
    campaign = four_system_campaign(judges, judges_per_item=3, seed=5)
    pairs = Counter(_pair(item) for item in campaign.items.all())
    top = frozenset("AB")
    assert pairs[top] >= 4  # the constructed campaign has such items
    handed: list[frozenset[str]] = []
    for round_ in range(12):
        judge = judges[round_ % 3]
        assignment = services.next_assignment(campaign=campaign, judge=judge)
        assert assignment is not None
        handed.append(_pair(assignment.item))
        _answer_by_quality(assignment, judge)
    # after the first judgments, the A-B items (a tie nothing decides) are preferred: far
    # more of them are handed out than their share of the items
    later = handed[4:]
    share_of_items = pairs[top] / sum(pairs.values())
    assert later.count(top) / len(later) > 2 * share_of_items, (handed, pairs)
    # and a pair judged far apart (A above D every time) is not preferred
    assert later.count(frozenset("AD")) <= 1


def test_the_campaign_page_says_the_rule_in_words() -> None:
    from django.test import Client

    admin = make_user(Role.ADMIN)
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    campaign = four_system_campaign(judges, created_by=admin)
    client = Client()
    client.force_login(admin)
    page = client.get(f"/judgments/{campaign.pk}/results/").content.decode()
    assert html.escape(dynamic.RULE_IN_WORDS) in page
    detail = client.get(f"/api/judgments/campaigns/{campaign.pk}/").json()
    assert detail["dynamic"] is True and detail["assignment_rule"] == dynamic.RULE_IN_WORDS


def test_no_item_gets_more_judges_than_it_wants_and_agreement_items_get_one_more() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(5)]
    campaign = four_system_campaign(judges, judges_per_item=2, agreement_share=0.3, seed=2)
    for judge in judges:
        while (a := services.next_assignment(campaign=campaign, judge=judge)) is not None:
            _answer_by_quality(a, judge)
    counts = Counter(
        Assignment.objects.filter(campaign=campaign, repeat=False).values_list("item_id", flat=True)
    )
    wanted = dict(campaign.items.values_list("pk", "judges_wanted"))
    assert dict(counts) == wanted  # every slot filled, none exceeded
    agreement = sum(1 for w in wanted.values() if w == 3)
    assert set(wanted.values()) == {2, 3} and 7 <= agreement <= 22  # 0.3 of 48 items
    pairs = Assignment.objects.filter(campaign=campaign, repeat=False).values_list(
        "item_id", "judge_id"
    )
    assert len(set(pairs)) == len(pairs)  # never the same judge twice


def test_consistency_repeats_and_attention_checks_keep_their_shares() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(3)]
    campaign = attention_campaign(
        judges, attention_share=0.25, consistency_share=0.25, judges_per_item=2, dynamic=True
    )
    rng = random.Random(0)
    busy = set(judges)
    while busy:  # the judges take turns, as they would in a campaign
        for judge in list(busy):
            if judge_one(campaign, judge, careful=True, rng=rng) is None:
                busy.discard(judge)
    for judge in judges:
        mine = Assignment.objects.filter(
            campaign=campaign, judge=judge, status=AssignmentStatus.DONE
        )
        ordinary = mine.filter(repeat=False, item__check_kind="").count()
        repeats = mine.filter(repeat=True).count()
        checks = mine.exclude(item__check_kind="").count()
        assert repeats == int(ordinary * 0.25)
        # a check after every 3 ordinary items (0.25 of all), while the judge's checks last
        # (a third of their expected share of the slots: 20 slots over 3 judges, 7 each)
        assert checks == min(ordinary // 3, round(7 * 0.25 / 0.75)) >= 1
        # checks never shown are gone once the judge is done: their progress reads done
        assert not Assignment.objects.filter(
            campaign=campaign, judge=judge, status=AssignmentStatus.PENDING
        ).exists()
    # repeat showings come after the first showing of the same item
    for repeat in Assignment.objects.filter(campaign=campaign, repeat=True):
        first = Assignment.objects.get(item=repeat.item, judge=repeat.judge, repeat=False)
        assert first.order < repeat.order


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_judges_asking_at_once_never_both_take_the_last_slot() -> None:
    assert connection.vendor == "postgresql"
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    for attempt in range(5):
        campaign = four_system_campaign(
            judges, name=f"race{attempt}", judges_per_item=1, seed=attempt
        )
        # leave one open slot: every item but one is taken by a third judge
        keeper = make_user(Role.ANNOTATOR)
        campaign.judges.add(keeper)
        last = random.Random(attempt).choice(list(campaign.items.all()))
        for item in campaign.items.exclude(pk=last.pk):
            Assignment.objects.create(
                campaign=campaign, item=item, judge=keeper, judge_name=keeper.username
            )
        barrier = threading.Barrier(2)
        got: list[int | None] = []

        def ask(
            judge: User,
            campaign: Campaign = campaign,
            barrier: threading.Barrier = barrier,
            got: list[int | None] = got,
        ) -> None:
            barrier.wait()
            try:
                assignment = services.next_assignment(campaign=campaign, judge=judge)
                got.append(assignment.item_id if assignment else None)
            finally:
                connection.close()

        threads = [threading.Thread(target=ask, args=(judge,)) for judge in judges]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(got, key=str) == sorted([last.pk, None], key=str), got
        assert Assignment.objects.filter(item=last, repeat=False).count() == 1


def _abandon(assignment: Assignment) -> list[Assignment]:
    """The judge opened `assignment` two hours ago and left; the stale rule runs."""
    Assignment.objects.filter(pk=assignment.pk).update(
        started_at=timezone.now() - timedelta(hours=2)
    )
    campaign = assignment.campaign
    return services.reassign_stale(campaign=campaign, older_than=timedelta(hours=1))


def test_an_abandoned_item_is_moved_by_the_stale_rule_and_handed_out_when_its_judge_asks() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(3)]
    campaign = four_system_campaign(judges, judges_per_item=2, seed=3)
    taken = services.next_assignment(campaign=campaign, judge=judges[0])
    assert taken is not None
    moved = _abandon(taken)
    # the existing rule: the least-loaded judge of the pool without the item (a tie: the
    # first judge), the clock reset
    assert [(a.pk, a.judge_id, a.started_at) for a in moved] == [(taken.pk, judges[1].pk, None)]
    # the dynamic rule hands the new judge the item they were given before anything new
    handed = services.next_assignment(campaign=campaign, judge=judges[1])
    assert handed is not None
    assert (handed.pk, handed.item_id) == (taken.pk, taken.item_id)
    assert handed.started_at is not None
    _answer_by_quality(handed, judges[1])
    # the judge who left it is given other items from now on, never this one
    for _ in range(campaign.items.count()):
        again = services.next_assignment(campaign=campaign, judge=judges[0])
        if again is None:
            break
        assert again.item_id != taken.item_id
        _answer_by_quality(again, judges[0])
    assert again is None


def test_after_reassignments_no_item_goes_to_a_judge_twice_nor_past_its_judges() -> None:
    judges = [make_user(Role.ANNOTATOR) for _ in range(4)]
    campaign = four_system_campaign(
        judges, judges_per_item=2, agreement_share=0.25, consistency_share=0.2, seed=7
    )
    abandoned: set[tuple[int, int]] = set()
    turn = 0
    busy = True
    while busy:  # the judges take turns until none of them is given anything
        busy = False
        for judge in judges:
            assignment = services.next_assignment(campaign=campaign, judge=judge)
            if assignment is None:
                continue
            busy = True
            turn += 1
            if turn % 5 == 0 and not assignment.repeat:  # every fifth item is left open
                if _abandon(assignment):
                    abandoned.add((assignment.item_id, judge.pk))
                continue
            _answer_by_quality(assignment, judge)
    assert len(abandoned) >= 10  # the walk did move items, from several judges
    assert len({judge for _, judge in abandoned}) == len(judges)
    first = Assignment.objects.filter(campaign=campaign, repeat=False)
    counts = Counter(first.values_list("item_id", flat=True))
    wanted = dict(campaign.items.values_list("pk", "judges_wanted"))
    pairs = list(first.values_list("item_id", "judge_id"))
    assert len(set(pairs)) == len(pairs)  # never the same judge twice
    assert not abandoned & set(pairs)  # nor to the judge who left it
    # every slot filled and none exceeded, but where every judge of the pool holds or left
    # the item (then it has as many judges as the pool can give)
    everyone = {judge.pk for judge in judges}
    assert all(counts[item] <= wanted[item] for item in wanted)
    short = [item for item in wanted if counts[item] < wanted[item]]
    for item in short:
        assert everyone == {j for i, j in pairs + list(abandoned) if i == item}
    assert len(short) <= 3  # those are few: the walk mostly fills its items
    # nothing is stranded: every showing was judged
    left = Assignment.objects.filter(campaign=campaign).exclude(status=AssignmentStatus.DONE)
    assert not left.exists(), list(left.values_list("item_id", "judge_id", "started_at"))


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_judges_asking_at_once_after_a_reassignment_never_both_take_the_slot() -> None:
    assert connection.vendor == "postgresql"
    for attempt in range(5):
        leaver, first, second, keeper = (make_user(Role.ANNOTATOR) for _ in range(4))
        campaign = four_system_campaign(
            [leaver, first, second, keeper], name=f"stale{attempt}", seed=attempt
        )
        # every item but one is the keeper's (opened just now); the leaver takes the last one
        # and leaves
        last = random.Random(attempt).choice(list(campaign.items.all()))
        for item in campaign.items.exclude(pk=last.pk):
            Assignment.objects.create(
                campaign=campaign,
                item=item,
                judge=keeper,
                judge_name=keeper.username,
                started_at=timezone.now(),
            )
        taken = services.next_assignment(campaign=campaign, judge=leaver)
        assert taken is not None and taken.item_id == last.pk
        assert [a.judge_id for a in _abandon(taken)] == [first.pk]
        barrier = threading.Barrier(3)
        got: dict[int, int | None] = {}

        def ask(
            judge: User,
            campaign: Campaign = campaign,
            barrier: threading.Barrier = barrier,
            got: dict[int, int | None] = got,
        ) -> None:
            barrier.wait()
            try:
                assignment = services.next_assignment(campaign=campaign, judge=judge)
                got[judge.pk] = assignment.item_id if assignment else None
            finally:
                connection.close()

        threads = [threading.Thread(target=ask, args=(j,)) for j in (first, second, leaver)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert got == {first.pk: last.pk, second.pk: None, leaver.pk: None}, got
        holders = Assignment.objects.filter(item=last, repeat=False)
        assert list(holders.values_list("judge_id", flat=True)) == [first.pk]
