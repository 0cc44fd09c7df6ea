"""Campaign services on a real release: items with collapsed outputs, k distinct judges,
repeats for consistency, judging, one winner on a double submit, skips, stale items
reassigned, edits mode, and the campaign's judgments read back through Appraise XML."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from gecscore.meta.judgments import read_judgments_xml

from core.exceptions import Conflict, PermissionDenied, ServiceError
from core.models import User
from core.roles import Role
from judgments import selectors, services
from judgments.models import Assignment, AssignmentStatus, Campaign, Judgment
from tests.factories import make_user
from tests.judgments.factories import SOURCES, SYSTEMS, make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def judges():  # type: ignore[no-untyped-def]
    return [make_user(Role.ANNOTATOR) for _ in range(3)]


def _judge_everything(campaign: Campaign, judge: User) -> int:
    done = 0
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        outputs = list(assignment.item.outputs.all())
        ranks = [1 if "sysA" in o.systems else 2 for o in outputs]
        services.submit_judgment(assignment_id=assignment.pk, judge=judge, ranks=ranks)
        done += 1
    return done


def test_items_collapse_identical_outputs_and_keep_system_names_out_of_the_judges_view(
    judges: list[User],
) -> None:
    campaign = make_campaign(judges=judges)
    items = list(campaign.items.order_by("number"))
    assert [i.source for i in items] == SOURCES
    third = items[2].outputs.all()
    assert sorted(sorted(o.systems) for o in third) == [["sysA", "sysC"], ["sysB"]]
    view = selectors.judge_view_of_item(items[2], language="zh")
    assert "sysA" not in str(view) and "sysB" not in str(view)
    assert {o["text"] for o in view["outputs"]} == {"今天天气很好", "今天天汽很好"}
    changed = next(o for o in view["outputs"] if o["text"] == "今天天气很好")
    assert [(e["source_text"], e["target_text"]) for e in changed["edits"]] == [("汽", "气")]


def test_each_item_goes_to_k_distinct_judges_and_repeats_come_last(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges, k=2, consistency=0.5)
    for item in campaign.items.all():
        firsts = item.assignments.filter(repeat=False)
        assert firsts.count() == 2
        assert len({a.judge_id for a in firsts}) == 2
    for judge in judges:
        mine = list(Assignment.objects.filter(campaign=campaign, judge=judge).order_by("order"))
        repeats = [a for a in mine if a.repeat]
        assert len(repeats) == round(sum(not a.repeat for a in mine) * 0.5)
        assert all(a.repeat for a in mine[len(mine) - len(repeats) :])
        first_items = {a.item_id for a in mine if not a.repeat}
        assert {a.item_id for a in repeats} <= first_items


def test_too_few_judges_for_k_is_refused_and_nothing_is_created(judges) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError, match="4 judges per item need at least that many"):
        make_campaign(judges=judges, k=4)
    assert not Campaign.objects.exists()


def test_judging_records_ranks_time_and_progress(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges, k=3)
    judge = judges[0]
    assignment = services.next_assignment(campaign=campaign, judge=judge)
    assert assignment is not None and assignment.started_at is not None
    Assignment.objects.filter(pk=assignment.pk).update(
        started_at=timezone.now() - timedelta(seconds=42)
    )
    count = assignment.item.outputs.count()
    services.submit_judgment(
        assignment_id=assignment.pk, judge=judge, ranks=list(range(1, count + 1))
    )
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.DONE
    assert 42 <= assignment.seconds_spent < 60
    assert selectors.judge_progress(campaign, judge) == (1, 4)


def test_bad_ranks_are_refused_with_the_output(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    count = assignment.item.outputs.count()
    with pytest.raises(ServiceError, match="one rank per output"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], ranks=[1])
    with pytest.raises(ServiceError, match="output 1: rank must be a whole number from 1"):
        services.submit_judgment(
            assignment_id=assignment.pk, judge=judges[0], ranks=[0] + [1] * (count - 1)
        )
    assert not Judgment.objects.exists()


def test_a_judge_cannot_answer_another_judges_item_or_a_foreign_campaign(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges[:2])
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    with pytest.raises(ServiceError, match="no assignment"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[1], ranks=[1, 2])
    with pytest.raises(PermissionDenied):
        services.next_assignment(campaign=campaign, judge=judges[2])


def test_second_submit_of_the_same_item_is_a_conflict(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    ranks = [1] * assignment.item.outputs.count()
    services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], ranks=ranks)
    with pytest.raises(Conflict, match="judged or skipped already"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], ranks=ranks)
    assert Judgment.objects.filter(assignment=assignment).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_double_submit_has_one_winner(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    ranks = [1] * assignment.item.outputs.count()
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def submit() -> None:
        barrier.wait()
        try:
            services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], ranks=ranks)
            outcomes.append("ok")
        except Conflict:
            outcomes.append("conflict")
        except Exception as error:  # SQLite answers a concurrent writer "database is locked"
            outcomes.append(f"refused: {type(error).__name__}")
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1, outcomes
    assert Judgment.objects.filter(assignment=assignment).count() == 1


def test_skipped_items_are_exported_as_appraise_skips(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    services.skip_assignment(assignment_id=assignment.pk, judge=judges[0])
    judged = read_judgments_xml(
        __import__("io").BytesIO(services.export_judgments(campaign=campaign).encode())
    )
    (item,) = judged.items
    assert item.skipped and item.entries == () and item.user == judges[0].username


def test_stale_items_go_to_a_judge_without_that_item(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges, k=2, consistency=1.0)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    assert assignment is not None
    Assignment.objects.filter(pk=assignment.pk).update(
        started_at=timezone.now() - timedelta(hours=2)
    )
    moved = services.reassign_stale(campaign=campaign, older_than=timedelta(hours=1))
    assert [a.pk for a in moved] == [assignment.pk]
    assignment.refresh_from_db()
    holders = list(assignment.item.assignments.filter(repeat=False).values_list("judge", flat=True))
    assert judges[0].pk not in holders and len(set(holders)) == 2
    repeat = assignment.item.assignments.get(repeat=True, judge=assignment.judge)
    assert repeat.judge_id == assignment.judge_id  # the repeat showing moved with it
    assert assignment.started_at is None


def test_a_stale_item_never_goes_back_to_the_judge_who_left_it() -> None:
    first, second = (make_user(Role.ANNOTATOR) for _ in range(2))
    campaign = make_campaign(judges=[first, second], k=1)
    left = services.next_assignment(campaign=campaign, judge=first)
    assert left is not None
    hours_ago = timezone.now() - timedelta(hours=2)
    Assignment.objects.filter(pk=left.pk).update(started_at=hours_ago)
    moved = services.reassign_stale(campaign=campaign, older_than=timedelta(hours=1))
    assert [(a.pk, a.judge_id) for a in moved] == [(left.pk, second.pk)]
    again = services.next_assignment(campaign=campaign, judge=second)
    while again is not None and again.pk != left.pk:  # the second judge reaches the item
        ranks = [1] * again.item.outputs.count()
        services.submit_judgment(assignment_id=again.pk, judge=second, ranks=ranks)
        again = services.next_assignment(campaign=campaign, judge=second)
    assert again is not None
    # the second judge leaves it too: the first is the only other judge, and left it first
    Assignment.objects.filter(pk=left.pk).update(started_at=hours_ago)
    assert services.reassign_stale(campaign=campaign, older_than=timedelta(hours=1)) == []
    assert Assignment.objects.get(pk=left.pk).judge_id == second.pk
    assert list(left.item.left_by.all()) == [first]


def test_edits_mode_needs_a_verdict_for_every_edit(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges, mode="edits", k=3)
    judge = judges[0]
    assignment = services.next_assignment(campaign=campaign, judge=judge)
    assert assignment is not None
    view = selectors.judge_view_of_item(assignment.item, language="zh")
    ranks = [1] * len(view["outputs"])
    with pytest.raises(ServiceError, match="mark every edit correct or incorrect"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judge, ranks=ranks)
    verdicts = [
        {"output": o["position"], "edit": e["index"], "correct": True}
        for o in view["outputs"]
        for e in o["edits"]
    ]
    judgment = services.submit_judgment(
        assignment_id=assignment.pk, judge=judge, ranks=ranks, edit_verdicts=verdicts
    )
    assert len(judgment.edit_verdicts) == len(verdicts) > 0


def test_edits_mode_page_writes_an_empty_side_of_an_edit_as_the_empty_set(judges, client) -> None:  # type: ignore[no-untyped-def]
    """Regression: an insertion read "[−] → [+了]" and a deletion "[−一] → [+]"; an empty
    side is written ∅ and carries no (empty) del/ins mark."""
    campaign = make_campaign(judges=judges, mode="edits", k=3)
    judge = judges[0]
    client.force_login(judge)
    pages = []
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        pages.append(client.get(f"/judgments/item/{assignment.pk}/").content.decode())
        view = selectors.judge_view_of_item(assignment.item, language="zh")
        verdicts = [
            {"output": o["position"], "edit": e["index"], "correct": True}
            for o in view["outputs"]
            for e in o["edits"]
        ]
        services.submit_judgment(
            assignment_id=assignment.pk,
            judge=judge,
            ranks=[1] * len(view["outputs"]),
            edit_verdicts=verdicts,
        )
    html = "".join(pages)
    # sysC's 他是个好学生 deletes the 一 of 他是一个好学升.
    assert '<span class="edit-del">一</span> → <span class="edit-none"' in html
    assert '<span class="edit-ins"></span>' not in html
    assert '<span class="edit-del"></span>' not in html


def test_judged_campaign_ranks_the_system_the_judges_preferred_first(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = make_campaign(judges=judges, k=2, consistency=0.5)
    for judge in judges:
        _judge_everything(campaign, judge)
    scores = selectors.human_system_scores(campaign, "ew")
    assert set(scores) == set(SYSTEMS)
    assert max(scores, key=scores.get) == "sysA"  # type: ignore[arg-type]
    report = selectors.campaign_results(campaign, method="both", bootstrap=20, runs=20)
    assert list(report["systems"])[0] == "sysA"
    stats = {row["judge"]: row for row in report["judges"]}
    assert all(stats[j.username]["done"] == stats[j.username]["assigned"] for j in judges)
    # the same judges agree with themselves and each other perfectly
    assert all(stats[j.username]["intra_kappa"] in (1.0, None) for j in judges)
    exported = services.export_judgments(campaign=campaign)
    assert read_judgments_xml(__import__("io").BytesIO(exported.encode())) == (
        selectors.campaign_judgment_set(campaign)
    )
    assert list(selectors.campaigns_for_release(campaign.release)) == [campaign]  # type: ignore[arg-type]


def test_references_join_as_a_hidden_control_system(judges: list[User]) -> None:
    campaign = make_campaign(judges=judges, include_references=True)
    names = list(campaign.systems.values_list("name", flat=True))
    assert names == [*SYSTEMS, "REF"]
    reference = campaign.systems.get(name="REF")
    assert reference.outputs == SOURCES  # make_release's references are the sources
    item = campaign.items.get(number=0)
    assert any("REF" in output.systems for output in item.outputs.all())
    view = selectors.judge_view_of_item(item, language="zh")
    assert "REF" not in str(view)
