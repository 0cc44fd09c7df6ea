"""ESA campaign results through the stored-results job, worked out by hand; the Appraise XML
round trip of spans and scores; the WMT human-score file; the meta-evaluation's ESA method;
and who may see what (judges never see system names, nor results)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from gecscore.meta.scorefiles import read_system_scores
from rest_framework.test import APIClient

from core.exceptions import ServiceError
from core.models import User
from core.roles import Role
from judgments import esa, selectors, services
from judgments.models import Campaign
from scoring.services.meta.runs import _check_human_source
from tests.factories import PASSWORD, make_user
from tests.judgments.factories import SYSTEMS, make_campaign

pytestmark = pytest.mark.django_db

CORRECT = set(SYSTEMS["sysA"])  # sysA's outputs are the right ones


def judge_all(campaign: Campaign, judge: User) -> None:
    """90 for a right output, 40 and one major span on its first character otherwise; every
    prefilled span dismissed."""
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        view = esa.esa_view(assignment)
        answer = []
        for output in view["outputs"]:
            right = output["text"] in CORRECT
            answer.append(
                {
                    "output": output["position"],
                    "score": 90 if right else 40,
                    "spans": []
                    if right
                    else [{"start": 0, "end": 1, "severity": "major", "origin": "added"}],
                    "dismissed": [
                        {"start": p["start"], "end": p["end"]}
                        for p in output["prefilled"]
                        if right or p["start"] > 0
                    ],
                }
            )
            if not right and any(p["start"] == 0 for p in output["prefilled"]):
                raise AssertionError("fixture: a proposal at character 0 would overlap")
        services.submit_judgment(
            assignment_id=assignment.pk, judge=judge, esa=answer, active_seconds=12
        )


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    judges = [make_user(Role.ANNOTATOR) for _ in range(3)]
    owner = make_user(Role.ADMIN)
    campaign = make_campaign(judges=judges, mode="esa", k=3, created_by=owner, name="esa-camp")
    for judge in judges:
        judge_all(campaign, judge)
    return {"campaign": campaign, "judges": judges, "owner": owner}


def _api(user: User) -> APIClient:
    client = APIClient()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_results_by_hand_through_the_stored_results(world, computed) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    response = computed(_api(world["owner"]), reverse("api-judgment-results", args=[campaign.pk]))
    assert response.status_code == 200, response.content
    report = response.json()["esa"]
    systems = report["systems"]
    # sysA: 4 right outputs x 3 judges -> 90. sysB wrong on sentences 1 and 3, sysC on 2 and
    # 4: (40 + 90 + 40 + 90) / 4 = 65 each, the tie broken by name.
    assert list(systems) == ["sysA", "sysB", "sysC"]
    assert [systems[s]["mean_score"] for s in systems] == [90.0, 65.0, 65.0]
    # major spans per 100 characters: sysB 6 spans over (7+7+6+7)*3 = 81 characters,
    # sysC 6 over (7+6+6+7)*3 = 78
    assert systems["sysB"]["major_per_100"] == pytest.approx(600 / 81, abs=1e-4)
    assert systems["sysC"]["major_per_100"] == pytest.approx(600 / 78, abs=1e-4)
    assert systems["sysA"]["major_per_100"] == 0 and systems["sysA"]["minor_per_100"] == 0
    assert report["unit"] == "characters" and report["bootstrap"] == 200
    low, high = systems["sysB"]["score_interval"]
    assert 40 <= low <= 65 <= high <= 90
    assert systems["sysA"]["rank_range"] == [1, 1]
    # identical answers: span F1 1, score correlation 1
    assert report["agreement"]["span_f1"] == 1.0
    assert report["agreement"]["score_pearson"] == 1.0
    # 4 items x 2 outputs x 3 judge pairs
    assert report["agreement"]["span_pairs"] == 24
    assert report["judges"] == {
        judge.username: {
            "outputs": 8,
            "mean_score": 65.0,
            "major_per_100": pytest.approx(round(400 / 53, 4)),
            "minor_per_100": 0.0,
        }
        for judge in world["judges"]
    }
    page = computed(_api(world["owner"]), reverse("judgments:results", args=[campaign.pk]))
    assert b'data-testid="esa-ranking"' in page.content


def test_meta_evaluation_takes_the_esa_mean_score(world) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    scores = selectors.human_system_scores(campaign, method="esa")
    assert scores == {"sysA": 90.0, "sysB": 65.0, "sysC": 65.0}
    ranking = make_campaign(
        judges=world["judges"], k=1, created_by=world["owner"], name="ranks", mode="ranking"
    )
    check = _check_human_source  # the run request's check of its human side
    check(
        ranking.release, human_scores=None, campaign_id=ranking.pk, method="ew", user=world["owner"]
    )
    with pytest.raises(ServiceError, match="not an ESA campaign"):
        check(
            ranking.release,
            human_scores=None,
            campaign_id=ranking.pk,
            method="esa",
            user=world["owner"],
        )
    check(
        campaign.release,
        human_scores=None,
        campaign_id=campaign.pk,
        method="esa",
        user=world["owner"],
    )


def test_esa_scores_file_reads_as_gecscore_human_scores(world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "esa.txt"
    call_command("export_judgments", campaign="esa-camp", output=str(path), format="esa-scores")
    human = read_system_scores(path)
    assert human.scores == {"sysA": 90.0, "sysB": 65.0, "sysC": 65.0}


def test_appraise_xml_round_trip_keeps_scores_spans_and_decisions(world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    text = services.export_judgments(campaign=campaign)
    assert "<esa-span" in text and 'score="40"' in text
    path = tmp_path / "esa.xml"
    path.write_text(text, encoding="utf-8")
    imported = services.import_judgments(campaign_name="esa-copy", source=str(path))
    assert imported.mode == "esa"
    assert services.export_judgments(campaign=imported) == text
    assert selectors.human_system_scores(imported, method="esa") == selectors.human_system_scores(
        campaign, method="esa"
    )
    original = sorted((r.judge, r.text, r.score, r.spans) for r in esa.esa_rows(campaign))
    copied = sorted((r.judge, r.text, r.score, r.spans) for r in esa.esa_rows(imported))
    assert copied == original
    # a span past its output's text is refused, nothing written
    bad = tmp_path / "bad.xml"
    bad.write_text(text.replace('end_i="0"', 'end_i="40"', 1), encoding="utf-8")
    with pytest.raises(ServiceError, match="ESA span ends at character 41"):
        services.import_judgments(campaign_name="esa-bad", source=str(bad))
    assert not Campaign.objects.filter(name="esa-bad").exists()


def test_judges_never_see_system_names_nor_results(world) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    judge = world["judges"][0]
    outsider = make_user(Role.ANNOTATOR)
    another = make_campaign(judges=[judge, outsider], mode="esa", k=1, name="esa-2")
    assignment = services.next_assignment(
        campaign=another, judge=judge
    ) or services.next_assignment(campaign=another, judge=outsider)
    assert assignment is not None
    holder = assignment.judge
    response = _api(holder).get(reverse("api-judgment-assignment", args=[assignment.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    for name in SYSTEMS:
        assert name not in body
    assert response.json()["outputs"][0]["prefilled"] is not None
    # not a campaign admin: the results, exports and campaign API are refused
    for name in ("api-judgment-results", "api-judgment-export", "api-judgment-campaign"):
        assert _api(judge).get(reverse(name, args=[campaign.pk])).status_code == 403, name
    assert (
        _api(judge)
        .get(reverse("api-judgment-export", args=[campaign.pk]), {"as": "esa-scores"})
        .status_code
        == 403
    )
    # someone who is not the assignment's judge: as if it did not exist
    other = outsider if holder == judge else judge
    assert (
        _api(other).get(reverse("api-judgment-assignment", args=[assignment.pk])).status_code == 404
    )
    submit = reverse("api-judgment-submit", args=[assignment.pk])
    assert _api(other).post(submit, {"esa": []}, format="json").status_code == 404
    stranger = make_user(Role.ANNOTATOR)
    assert _api(stranger).get(reverse("api-judgment-next", args=[campaign.pk])).status_code == 404


def test_api_submit_answers_400_naming_the_problem(world) -> None:  # type: ignore[no-untyped-def]
    judge = world["judges"][0]
    fresh = make_campaign(judges=[judge], mode="esa", k=1, name="esa-3")
    assignment = services.next_assignment(campaign=fresh, judge=judge)
    view = esa.esa_view(assignment)
    answer = [
        {
            "output": o["position"],
            "score": 120,
            "spans": [],
            "dismissed": [{"start": p["start"], "end": p["end"]} for p in o["prefilled"]],
        }
        for o in view["outputs"]
    ]
    url = reverse("api-judgment-submit", args=[assignment.pk])
    response = _api(judge).post(url, {"esa": answer}, format="json")
    assert response.status_code == 400
    assert (
        response.json()["field"] == "esa" and "from 0 to 100 (got 120)" in response.json()["detail"]
    )


def test_judging_page_without_script_posts_scores_and_decisions(world) -> None:  # type: ignore[no-untyped-def]
    from django.test import Client

    judge = world["judges"][0]
    fresh = make_campaign(judges=[judge], mode="esa", k=1, name="esa-page")
    assignment = services.next_assignment(campaign=fresh, judge=judge)
    client = Client()
    assert client.login(username=judge.username, password=PASSWORD)
    url = reverse("judgments:judge", args=[assignment.pk])
    page = client.get(url)
    assert page.status_code == 200 and b'data-testid="esa-form"' in page.content
    assert not any(name.encode() in page.content for name in SYSTEMS)
    view = esa.esa_view(assignment)
    form = {f"score-{o['position']}": "30" for o in view["outputs"]}
    for output in view["outputs"]:
        for span in output["prefilled"]:
            form[f"decision-{output['position']}-{span['index']}"] = "remove"
    # a typed score of 300 is refused as typed, the item stays to judge
    bad = {**form, f"score-{view['outputs'][0]['position']}": "300"}
    answer = client.post(url, bad, follow=True)
    assert "from 0 to 100 (got 300)" in answer.content.decode()
    # 30 with no span: the guard asks for the confirmation box
    answer = client.post(url, form, follow=True)
    assert "a score of 30 with no error span" in answer.content.decode()
    assignment.refresh_from_db()
    assert assignment.status == "pending"
    client.post(url, {**form, "low_score_confirmed": "1"})
    assignment.refresh_from_db()
    assert assignment.status == "done"
    assert [a["score"] for a in assignment.judgment.esa] == [30] * len(view["outputs"])
