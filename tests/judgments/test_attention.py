"""Attention checks: the planted-error generator (Chinese characters, English words), check
items built from the release and mixed into each judge's queue, checks hidden from judges,
pass rates, a careless judge flagged and left out of the results (and how many judgments
that removed), loud feedback, admins only change the threshold, and the command line."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from core.exceptions import ServiceError
from core.models import User
from core.roles import Role
from datasets.extraction import edits_between
from judgments import attention, esa, selectors, services
from judgments.models import Assignment, AssignmentStatus, Campaign, CheckKind, Item
from tests.factories import make_user
from tests.judgments.attention_kit import (
    ZH_REFERENCES,
    ZH_SOURCES,
    ZH_SYSTEMS,
    attention_campaign,
    judge_all,
    make_release_with,
)

pytestmark = pytest.mark.django_db

EN_REFERENCES = [
    "She goes to school every day .",
    "I have lived here for three years .",
    "They were happy with the results of the test .",
    "He bought a new car last week .",
]
ZH_MORE = ["我们一起去公园散步", "他昨天去了图书馆看书", "这个问题非常难回答", "天天学习天天向上"]


# --- the generator ----------------------------------------------------------------------------


def _planted_cases(references: list[str], language: str) -> list[attention.PlantedError]:
    planted = []
    for reference in references:
        for seed in range(12):
            error = attention.plant_error(reference, language=language, rng=random.Random(seed))
            assert error is not None
            planted.append(error)
    return planted


@pytest.mark.parametrize(
    ("references", "language"),
    [(ZH_REFERENCES + ZH_MORE, "zh"), (EN_REFERENCES, "en")],
    ids=["zh", "en"],
)
def test_planted_errors_are_real_edits_with_their_span_known(
    references: list[str], language: str
) -> None:
    operations = set()
    for reference in references:
        for seed in range(12):
            planted = attention.plant_error(reference, language=language, rng=random.Random(seed))
            assert planted is not None
            operations.add(planted.operation)
            assert planted.text != reference
            # the extractor finds the error, and where it puts it overlaps the stored span
            assert edits_between(reference, planted.text, language=language)
            marked = esa.prefilled_spans(reference, planted.text, language=language)
            assert any(s["start"] < planted.end and planted.start < s["end"] for s in marked), (
                reference,
                planted,
            )
    assert operations == {"swap", "delete", "repeat"}


def test_planted_spans_in_chinese_are_characters() -> None:
    text = "我很喜欢吃苹果"
    cases = {e.operation: e for e in _planted_cases([text], "zh")}
    swap = cases["swap"]
    # two neighbouring characters exchanged: the span covers exactly those two
    assert swap.end - swap.start == 2
    assert swap.text[swap.start : swap.end] == text[swap.start : swap.end][::-1]
    repeat = cases["repeat"]
    assert repeat.end - repeat.start == 2 and len(set(repeat.text[repeat.start : repeat.end])) == 1
    delete = cases["delete"]
    assert len(delete.text) == len(text) - 1 and delete.end - delete.start == 1
    assert text.replace(delete.unit, "", 1) == delete.text


def test_planted_spans_in_english_are_words() -> None:
    text = "She goes to school every day ."
    cases = {e.operation: e for e in _planted_cases([text], "en")}
    swap = cases["swap"]
    first, second = swap.text[swap.start : swap.end].split(" ")
    assert f"{second} {first}" in text
    repeat = cases["repeat"]
    assert repeat.text[repeat.start : repeat.end] == f"{repeat.unit} {repeat.unit}"
    delete = cases["delete"]
    assert len(delete.text.split()) == len(text.split()) - 1
    assert delete.text[delete.start : delete.end] in text.split()


def test_a_sentence_of_one_unit_gets_no_planted_error() -> None:
    assert attention.plant_error("好", language="zh", rng=random.Random(0)) is None
    assert attention.plant_error("Yes", language="en", rng=random.Random(0)) is None


# --- building checks -----------------------------------------------------------------------


@pytest.fixture
def judges() -> list[User]:
    return [make_user(Role.ANNOTATOR) for _ in range(4)]


def test_checks_are_their_share_of_each_judges_items_and_mixed_in(judges: list[User]) -> None:
    campaign = attention_campaign(judges, attention_share=0.4, seed=3)
    for judge in judges:
        mine = list(Assignment.objects.filter(campaign=campaign, judge=judge).order_by("order"))
        checks = [a for a in mine if a.item.check_kind]
        ordinary = len(mine) - len(checks)
        # 5 ordinary items each (10 items, 2 judges each, 4 judges): 3 checks, 3 of 8 items
        assert (ordinary, len(checks)) == (5, 3)
        assert abs(len(checks) / len(mine) - 0.4) < 0.05
        assert all(not a.repeat for a in checks)
    items = Item.objects.filter(campaign=campaign).exclude(check_kind="")
    assert {i.check_kind for i in items} == {
        CheckKind.REFERENCE_OVER_SOURCE,
        CheckKind.PLANTED_ERROR,
    }
    positions = [
        a.order for a in Assignment.objects.filter(campaign=campaign).exclude(item__check_kind="")
    ]
    assert max(positions) > min(positions)  # not all at one place in the queue
    for item in items:
        outputs = {o.position: o for o in item.outputs.all()}
        expect = item.check_expectation
        reference = ZH_REFERENCES[int(item.src_id) - 1]
        assert outputs[expect["reference"]].text == reference
        other = outputs[expect["other"]].text
        if item.check_kind == CheckKind.REFERENCE_OVER_SOURCE:
            assert other == item.source != reference
        else:
            start, end = expect["span"]
            assert other != reference and 0 <= start < end <= len(other)


def test_checks_need_a_release_with_real_errors(judges: list[User]) -> None:
    release = make_release_with(ZH_SOURCES, ZH_SOURCES)  # references equal the sources
    with pytest.raises(ServiceError, match="golden reference differs"):
        services.create_campaign(
            name="x",
            release=release,
            system_outputs=ZH_SYSTEMS,
            judges=judges,
            attention_share=0.2,
        )
    with pytest.raises(ServiceError, match="attention_share must be between 0 and 0.5"):
        attention_campaign(judges, attention_share=0.6)
    with pytest.raises(ServiceError, match="attention feedback must be one of"):
        attention_campaign(judges, attention_share=0.2, attention_feedback="shout")


# --- judges never learn which items are checks ------------------------------------------------


def test_the_api_does_not_tell_a_judge_which_items_are_checks(judges: list[User]) -> None:
    campaign = attention_campaign(judges, attention_share=0.3)
    client = Client()
    client.force_login(judges[0])
    ordinary_keys = check_keys = None
    texts = []
    while True:
        answer = client.get(f"/api/judgments/campaigns/{campaign.pk}/next/")
        if answer.status_code == 204:
            break
        data = answer.json()
        texts.append(json.dumps(data, ensure_ascii=False))
        assignment = Assignment.objects.get(pk=data["assignment"])
        shape = sorted(data), sorted(data["outputs"][0])
        if assignment.item.check_kind:
            check_keys = shape
        else:
            ordinary_keys = shape
        count = len(data["outputs"])
        posted = client.post(
            f"/api/judgments/assignments/{data['assignment']}/submit/",
            {"ranks": list(range(1, count + 1))},
            content_type="application/json",
        )
        assert posted.status_code == 201
        assert "feedback" not in posted.json()  # a silent campaign
    assert check_keys is not None and ordinary_keys == check_keys
    for text in texts:
        for word in ("attention", "check", "planted", "expect", "reference"):
            assert word not in text
    # the judge's campaign list says nothing about checks either
    listed = json.dumps(client.get("/api/judgments/campaigns/").json())
    assert "attention" not in listed and "check" not in listed


def test_a_loud_campaign_tells_the_judge_after_a_check(judges: list[User]) -> None:
    campaign = attention_campaign(judges, attention_share=0.3, attention_feedback="loud")
    client = Client()
    client.force_login(judges[1])
    feedback = []
    while (
        answer := client.get(f"/api/judgments/campaigns/{campaign.pk}/next/")
    ).status_code == 200:
        data = answer.json()
        posted = client.post(
            f"/api/judgments/assignments/{data['assignment']}/submit/",
            {"ranks": [1] * len(data["outputs"])},
            content_type="application/json",
        ).json()
        is_check = bool(Assignment.objects.get(pk=data["assignment"]).item.check_kind)
        assert ("feedback" in posted) == is_check
        if is_check:
            feedback.append(posted["feedback"])
    assert feedback and all(f.startswith("This was an attention check; expected") for f in feedback)
    # all ranks tied: a reference-over-source check passes, a planted-error check does not
    assert any("did not meet it" in f for f in feedback)


# --- careless judges are flagged and left out ------------------------------------------------


@pytest.mark.parametrize("mode", ["ranking", "edits", "esa"])
def test_a_careless_judge_is_flagged_and_left_out(judges: list[User], mode: str) -> None:
    campaign = attention_campaign(judges, mode=mode, attention_share=0.4, judges_per_item=4, seed=1)
    careless = judges[0]
    answered = {}
    for judge in judges:
        answered[judge.username] = judge_all(campaign, judge, careful=judge != careless, seed=7)
    rates = attention.judge_pass_rates(campaign)
    for judge in judges[1:]:
        assert rates[judge.username]["pass_rate"] == 1.0
        assert rates[judge.username]["checks"] == answered[judge.username]["checks"]
    assert rates[careless.username]["pass_rate"] < 0.7
    before = selectors.campaign_judgment_set(campaign).items
    assert {item.user for item in before} == {j.username for j in judges}
    # check items never count: only the ordinary answers are in the judgment set
    assert len(before) == sum(a["ordinary"] for a in answered.values())

    services.set_attention_threshold(campaign=campaign, threshold=0.8)
    summary = attention.attention_summary(campaign)
    assert summary["excluded_judges"] == [careless.username]
    assert summary["excluded_judgments"] == answered[careless.username]["ordinary"]
    after = selectors.campaign_judgment_set(campaign).items
    assert careless.username not in {item.user for item in after}
    assert len(after) == len(before) - answered[careless.username]["ordinary"]
    if mode == "esa":
        rows = esa.esa_rows(campaign)
        assert rows and careless.username not in {row.judge for row in rows}
        assert all(not s.startswith("attention:") for row in rows for s in row.systems)
    services.set_attention_threshold(campaign=campaign, threshold=None)
    assert attention.attention_summary(campaign)["excluded_judgments"] == 0


def test_results_show_pass_rates_and_only_admins_change_the_threshold(  # type: ignore[no-untyped-def]
    judges: list[User], computed
) -> None:
    admin = make_user(Role.ADMIN)
    other_admin = make_user(Role.ADMIN)
    campaign = attention_campaign(
        judges, attention_share=0.4, judges_per_item=4, created_by=admin, seed=1
    )
    for judge in judges:
        judge_all(campaign, judge, careful=judge != judges[0], seed=7)
    url = f"/api/judgments/campaigns/{campaign.pk}/attention-threshold/"
    for user, status in ((judges[1], 403), (other_admin, 404)):
        client = Client()
        client.force_login(user)
        assert (
            client.post(url, {"threshold": 0.8}, content_type="application/json").status_code
            == status
        )
        assert client.post(
            f"/judgments/{campaign.pk}/attention-threshold/", {"threshold": "80"}
        ).status_code in (302, 403, 404)
    campaign.refresh_from_db()
    assert campaign.attention_threshold is None
    client = Client()
    client.force_login(admin)
    results_url = f"/api/judgments/campaigns/{campaign.pk}/results/"
    everyone = computed(client, results_url).json()
    bad = client.post(url, {"threshold": 2}, content_type="application/json")
    assert bad.status_code == 400 and "threshold" in bad.json()["detail"]
    answer = client.post(url, {"threshold": 0.8}, content_type="application/json").json()
    assert answer["excluded_judges"] == [judges[0].username]
    report = computed(client, results_url).json()
    # the stored results were recomputed without the careless judge's items
    assert report["status"] == "done" and report["items"] < everyone["items"]
    by_judge = {row["judge"]: row for row in report["judges"]}
    assert by_judge[judges[0].username]["excluded"] is True
    assert by_judge[judges[1].username]["pass_rate"] == 1.0
    assert report["attention"]["excluded_judgments"] == answer["excluded_judgments"] > 0
    detail = client.get(f"/api/judgments/campaigns/{campaign.pk}/").json()
    assert detail["attention"]["judges"][0]["pass_rate"] is not None
    page = computed(client, f"/judgments/{campaign.pk}/results/").content.decode()
    assert "Attention checks" in page
    assert f"removing {answer['excluded_judgments']} judgments" in page
    # the web form takes a percentage
    client.post(f"/judgments/{campaign.pk}/attention-threshold/", {"threshold": ""})
    campaign.refresh_from_db()
    assert campaign.attention_threshold is None


def test_check_items_are_left_out_of_the_results_job(judges: list[User], computed) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    campaign = attention_campaign(judges, attention_share=0.4, created_by=admin)
    for judge in judges:
        judge_all(campaign, judge, careful=True)
    client = Client()
    client.force_login(admin)
    report = computed(client, f"/api/judgments/campaigns/{campaign.pk}/results/").json()
    assert set(report["systems"]) == set(ZH_SYSTEMS)


# --- the command line -----------------------------------------------------------------------


def test_create_campaign_command_takes_attention_share(judges: list[User]) -> None:
    release = make_release_with(ZH_SOURCES, ZH_REFERENCES)
    _store_outputs(release)
    out = io.StringIO()
    call_command(
        "create_campaign",
        f"{release.dataset.name}@v{release.number}",
        "--systems",
        "good,keep,half",
        "--judges",
        ",".join(j.username for j in judges),
        "--mode",
        "esa",
        "--attention-share",
        "0.25",
        "--attention",
        "loud",
        "--dynamic",
        "--json",
        stdout=out,
    )
    summary = json.loads(out.getvalue())
    assert summary["mode"] == "esa" and summary["dynamic"] is True
    assert summary["attention_checks"] > 0 and summary["attention_feedback"] == "loud"
    with pytest.raises(CommandError, match="attention_share"):
        call_command(
            "create_campaign",
            f"{release.dataset.name}@v{release.number}",
            "--systems",
            "good,keep",
            "--attention-share",
            "0.9",
            "--name",
            "other",
        )
    with pytest.raises(CommandError, match="no stored outputs of nope"):
        call_command(
            "create_campaign", f"{release.dataset.name}@v{release.number}", "--systems", "nope"
        )


def test_the_campaign_form_takes_the_attention_and_assignment_options(judges: list[User]) -> None:
    admin = make_user(Role.ADMIN)
    release = make_release_with(ZH_SOURCES, ZH_REFERENCES)
    _store_outputs(release)
    client = Client()
    client.force_login(admin)
    form = {
        "step": "create",
        "name": "from-the-form",
        "mode": "esa",
        "release": release.pk,
        "systems": ["good", "keep"],
        "judges": [j.pk for j in judges],
        "judges_per_item": 2,
        "outputs_per_item": 3,
        "agreement_share": 0,
        "consistency_share": 0,
        "attention_share": 0.2,
        "attention_feedback": "loud",
        "dynamic": "on",
        "seed": 0,
    }
    refused = client.post("/judgments/new/", {**form, "attention_share": 0.7})
    assert refused.status_code == 200 and "0.5" in refused.content.decode()
    assert client.post("/judgments/new/", form).status_code == 302
    campaign = Campaign.objects.get(name="from-the-form")
    assert (campaign.attention_share, campaign.attention_feedback, campaign.dynamic) == (
        0.2,
        "loud",
        True,
    )
    assert campaign.items.exclude(check_kind="").exists()


def _store_outputs(release) -> None:  # type: ignore[no-untyped-def]
    from scoring.services.systems import upload_system_output

    admin = make_user(Role.ADMIN)
    for name, lines in ZH_SYSTEMS.items():
        data = "".join(
            f"{i + 1}\t{src}\t{hyp}\n"
            for i, (src, hyp) in enumerate(zip(ZH_SOURCES, lines, strict=True))
        )
        upload_system_output(
            version=release, name=name, data=data.encode(), file_name=f"{name}.txt", user=admin
        )


def test_pending_checks_stay_pending_until_answered(judges: list[User]) -> None:
    campaign = attention_campaign(judges, attention_share=0.3)
    pending = Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.PENDING)
    assert pending.exclude(item__check_kind="").count() > 0
