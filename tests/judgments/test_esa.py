"""ESA mode: spans prefilled from the extractor's edits (Chinese and English), the judge's
order of the outputs, the server's checks of an answer (nothing trimmed), the low-score
guard, the capped time, and ranks that follow the scores."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from gecscore.meta.esa import system_results

from core.exceptions import ServiceError
from core.models import User
from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from judgments import esa, services
from judgments.models import Assignment, Campaign
from tests.factories import make_dataset, make_user
from tests.judgments.factories import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def judges() -> list[User]:
    return [make_user(Role.ANNOTATOR) for _ in range(3)]


def esa_campaign(judges: list[User], **extra) -> Campaign:  # type: ignore[no-untyped-def]
    return make_campaign(judges=judges, mode="esa", k=2, **extra)


def test_prefilled_spans_cover_what_the_output_changed_in_chinese() -> None:
    # 一 deleted before 个 (the deletion marks the character after it), 升 -> 生
    spans = esa.prefilled_spans("他是一个好学升", "他是个好学生", language="zh")
    assert [(s["start"], s["end"]) for s in spans] == [(2, 3), (5, 6)]
    assert spans[1]["edit"] == "升 → 生"
    # offsets are characters of the text as stored, spaces included
    spans = esa.prefilled_spans("我很喜欢吃平果", "我很 喜欢吃苹果", language="zh")
    assert [(s["start"], s["end"]) for s in spans] == [(6, 7)]
    assert esa.prefilled_spans("我很喜欢吃平果", "我很喜欢吃平果", language="zh") == []


def test_prefilled_spans_cover_words_in_english() -> None:
    text = "He went  to school ."
    spans = esa.prefilled_spans("He go to school yesterday .", text, language="en")
    # go -> went is "went"; "yesterday" deleted before "." marks "."
    assert [text[s["start"] : s["end"]] for s in spans] == ["went", "."]


def test_each_judge_sees_the_outputs_in_their_own_stable_order(judges: list[User]) -> None:
    orders = {
        judge: esa.display_order(seed=0, judge_id=judge, item_id=7, count=5) for judge in range(8)
    }
    assert len({tuple(o) for o in orders.values()}) > 1
    assert esa.display_order(seed=0, judge_id=3, item_id=7, count=5) == orders[3]
    campaign = esa_campaign(judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    view = esa.esa_view(assignment)
    assert esa.esa_view(assignment) == view  # stable on reload
    assert "sys" not in str(view)


def _answer_all(view: dict, score: int = 80, *, keep: bool = True) -> list[dict]:  # type: ignore[type-arg]
    return [
        {
            "output": o["position"],
            "score": score,
            "spans": [
                {"start": p["start"], "end": p["end"], "severity": "minor", "origin": "prefilled"}
                for p in o["prefilled"]
            ]
            if keep
            else [],
            "dismissed": []
            if keep
            else [{"start": p["start"], "end": p["end"]} for p in o["prefilled"]],
        }
        for o in view["outputs"]
    ]


def _item_with_prefill(campaign: Campaign, judge: User) -> Assignment:
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        if any(o["prefilled"] for o in esa.esa_view(assignment)["outputs"]):
            return assignment
        view = esa.esa_view(assignment)
        services.submit_judgment(assignment_id=assignment.pk, judge=judge, esa=_answer_all(view))
    raise AssertionError("no item with a prefilled span")


def test_a_valid_answer_is_stored_with_origins_and_ranks_follow_scores(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = _item_with_prefill(campaign, judges[0])
    view = esa.esa_view(assignment)
    answer = _answer_all(view)
    answer[0]["score"] = 30
    covered = {i for s in answer[0]["spans"] for i in range(s["start"], s["end"])}
    free = min(set(range(len(view["outputs"][0]["text"]))) - covered)
    answer[0]["spans"].append(
        {"start": free, "end": free + 1, "severity": "major", "origin": "added"}
    )
    judgment = services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=answer)
    stored = {a["output"]: a for a in judgment.esa}
    first = view["outputs"][0]["position"]
    assert stored[first]["score"] == 30
    outputs = list(assignment.item.outputs.all())
    # the output scored 30 ranks below all the others (scored 80, tied at 1)
    assert judgment.ranks == [2 if o.position == first else 1 for o in outputs]
    assert {s["origin"] for a in judgment.esa for s in a["spans"]} == {"prefilled", "added"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a, t: a[0].update(score=101), "from 0 to 100"),
        (lambda a, t: a[0].update(score=55.5), "whole number"),
        (lambda a, t: a[0].update(score=True), "whole number"),
        (
            lambda a, t: a[0]["spans"].append(
                {"start": 0, "end": len(t) + 1, "severity": "minor", "origin": "added"}
            ),
            "end",
        ),
        (
            lambda a, t: a[0]["spans"].append(
                {"start": 1, "end": 1, "severity": "minor", "origin": "added"}
            ),
            "empty",
        ),
        (
            lambda a, t: a[0]["spans"].extend(
                [
                    {"start": 0, "end": 2, "severity": "minor", "origin": "added"},
                    {"start": 1, "end": 3, "severity": "minor", "origin": "added"},
                ]
            ),
            "overlap",
        ),
        (
            lambda a, t: a[0]["spans"].append(
                {"start": 0, "end": 1, "severity": "critical", "origin": "added"}
            ),
            "severity",
        ),
        (lambda a, t: a.pop(), "answer every shown output"),
    ],
)
def test_bad_answers_are_refused_not_trimmed(judges, change, message) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = _item_with_prefill(campaign, judges[0])
    view = esa.esa_view(assignment)
    answer = _answer_all(view, keep=False)
    change(answer, view["outputs"][0]["text"])
    with pytest.raises(ServiceError, match=message) as error:
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=answer)
    assert error.value.field == "esa"
    assert not hasattr(Assignment.objects.get(pk=assignment.pk), "judgment")


def test_every_prefilled_span_must_be_decided(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = _item_with_prefill(campaign, judges[0])
    view = esa.esa_view(assignment)
    answer = _answer_all(view, keep=False)
    for entry in answer:
        entry["dismissed"] = []
    with pytest.raises(ServiceError, match="decide the changed text"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=answer)
    # a resized span overlapping the proposal decides it
    answer = _answer_all(view, keep=False)
    output = next(o for o in view["outputs"] if o["prefilled"])
    entry = next(a for a in answer if a["output"] == output["position"])
    proposal = output["prefilled"][0]
    entry["dismissed"] = [d for d in entry["dismissed"] if d["start"] != proposal["start"]]
    entry["spans"] = [
        {
            "start": max(0, proposal["start"] - 1),
            "end": proposal["end"],
            "severity": "major",
            "origin": "resized",
        }
    ]
    if proposal["start"] == 0:
        entry["spans"][0]["end"] = proposal["end"] + 1
    judgment = services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=answer)
    assert any(s["origin"] == "resized" for a in judgment.esa for s in a["spans"])


def test_a_low_score_without_a_span_needs_confirming(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    view = esa.esa_view(assignment)
    answer = _answer_all(view, score=49, keep=False)
    with pytest.raises(ServiceError, match="a score of 49 with no error span"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=answer)
    judgment = services.submit_judgment(
        assignment_id=assignment.pk, judge=judges[0], esa=answer, low_score_confirmed=True
    )
    assert {a["score"] for a in judgment.esa} == {49}


def test_ranks_are_refused_in_esa_mode(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    with pytest.raises(ServiceError, match="ranks follow the scores"):
        services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], ranks=[1, 2])


@override_settings(GEC_ESA_IDLE_SECONDS=60)
def test_time_per_item_is_capped_by_the_idle_bound(judges) -> None:  # type: ignore[no-untyped-def]
    campaign = esa_campaign(judges)
    assignment = services.next_assignment(campaign=campaign, judge=judges[0])
    Assignment.objects.filter(pk=assignment.pk).update(
        started_at=timezone.now() - timedelta(hours=2)
    )
    view = esa.esa_view(assignment)
    services.submit_judgment(assignment_id=assignment.pk, judge=judges[0], esa=_answer_all(view))
    assert Assignment.objects.get(pk=assignment.pk).seconds_spent == 60  # no script: one pause
    second = services.next_assignment(campaign=campaign, judge=judges[0])
    Assignment.objects.filter(pk=second.pk).update(started_at=timezone.now() - timedelta(hours=2))
    services.submit_judgment(
        assignment_id=second.pk,
        judge=judges[0],
        esa=_answer_all(esa.esa_view(second)),
        active_seconds=95.5,  # the page's sum of pauses, each capped at the bound
    )
    assert Assignment.objects.get(pk=second.pk).seconds_spent == 95.5
    assert esa.ranks_from_scores([80, 30, 80, 90]) == [2, 4, 2, 1]


def test_an_english_esa_campaign_prefills_words_and_counts_words(judges) -> None:  # type: ignore[no-untyped-def]

    sources = ["He go to school yesterday .", "She like apples ."]
    dataset = make_dataset(sentences=sources, language="en")
    for sentence in dataset.sentences.all():
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=sentence.text,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    campaign = services.create_campaign(
        name="esa-en",
        release=release_dataset(dataset=dataset),
        system_outputs={
            "good": ["He went to school yesterday .", "She likes apples ."],
            "bad": ["He goes to school .", "She like apples ."],
        },
        mode="esa",
        judges=judges[:1],
        judges_per_item=1,
        consistency_share=0,
    )
    assert campaign.language == "en"
    judge = judges[0]
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        view = esa.esa_view(assignment)
        for output in view["outputs"]:
            for span in output["prefilled"]:
                # whole words of the output
                word = output["text"][span["start"] : span["end"]]
                assert word in output["text"].split()
        answer = _answer_all(view, score=70)  # every change kept as a minor error
        services.submit_judgment(assignment_id=assignment.pk, judge=judge, esa=answer)
    by_system = {r.system: r for r in system_results(esa.esa_rows(campaign))}
    # good: went, likes -> 2 minor spans over 6 + 4 words; bad: goes, "." after the deleted
    # "yesterday" -> 2 over 5 + 4 words (its unchanged second output has no span)
    assert (by_system["good"].minor, by_system["good"].units) == (2, 10)
    assert (by_system["bad"].minor, by_system["bad"].units) == (2, 9)
    assert by_system["good"].minor_per_100 == pytest.approx(20.0)
