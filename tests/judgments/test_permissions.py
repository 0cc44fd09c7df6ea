"""Who sees what: a judge sees only their own items, never system names nor others'
judgments; only the campaign's admins see systems, results and exports; anonymous users are
sent to log in (pages) or refused (API). Pages and API alike."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.models import BackgroundJob
from core.roles import Role
from judgments import services
from judgments.models import Assignment, Campaign, CampaignResults
from tests.factories import PASSWORD, make_user
from tests.judgments.factories import SYSTEMS, make_campaign

pytestmark = pytest.mark.django_db

SYSTEM_NAMES = list(SYSTEMS)


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    outsider = make_user(Role.ANNOTATOR)
    owner = make_user(Role.ADMIN)
    other_admin = make_user(Role.ADMIN)
    campaign = make_campaign(judges=judges, k=2, created_by=owner)
    # the first judge answers one item, so there is a judgment the second must not see
    first = services.next_assignment(campaign=campaign, judge=judges[0])
    assert first is not None
    services.submit_judgment(
        assignment_id=first.pk, judge=judges[0], ranks=[1] * first.item.outputs.count()
    )
    return {
        "campaign": campaign,
        "judges": judges,
        "outsider": outsider,
        "owner": owner,
        "other_admin": other_admin,
        "judged": first,
    }


def _client(user, api: bool = False):  # type: ignore[no-untyped-def]
    client = APIClient() if api else Client()
    if user is not None:
        assert client.login(username=user.username, password=PASSWORD)
    return client


def _no_system_names(text: str) -> None:
    for name in SYSTEM_NAMES:
        assert name not in text, f"system name {name} leaked"


def test_judge_api_shows_own_item_without_system_names_or_others_judgments(world) -> None:  # type: ignore[no-untyped-def]
    campaign, second = world["campaign"], world["judges"][1]
    client = _client(second, api=True)
    response = client.get(reverse("api-judgment-next", args=[campaign.pk]))
    assert response.status_code == 200
    body = response.json()
    _no_system_names(json.dumps(body))
    assert "repeat" not in body and "ranks" not in json.dumps(body)
    assert body["progress"] == {"done": 0, "total": 4}
    # the same item the first judge answered is in the second judge's list, without the answer
    theirs = Assignment.objects.get(item=world["judged"].item, judge=second)
    detail = client.get(reverse("api-judgment-assignment", args=[theirs.pk])).json()
    _no_system_names(json.dumps(detail))
    assert detail["status"] == "pending"


def test_judge_cannot_open_or_answer_another_judges_assignment(world) -> None:  # type: ignore[no-untyped-def]
    second = world["judges"][1]
    client = _client(second, api=True)
    judged = world["judged"]
    assert client.get(reverse("api-judgment-assignment", args=[judged.pk])).status_code == 404
    response = client.post(
        reverse("api-judgment-submit", args=[judged.pk]), {"ranks": [1, 2]}, format="json"
    )
    assert response.status_code == 404
    assert client.post(reverse("api-judgment-skip", args=[judged.pk])).status_code == 404
    page = _client(second).get(reverse("judgments:judge", args=[judged.pk]))
    assert page.status_code == 404


def test_outsider_gets_no_item_of_the_campaign(world) -> None:  # type: ignore[no-untyped-def]
    client = _client(world["outsider"], api=True)
    assert client.get(reverse("api-judgment-next", args=[world["campaign"].pk])).status_code == 404
    listing = client.get(reverse("api-judgment-campaigns")).json()
    assert listing == {"administered": [], "judging": []}
    assert (
        _client(world["outsider"])
        .get(reverse("judgments:next", args=[world["campaign"].pk]))
        .status_code
        == 404
    )


@pytest.mark.parametrize("who", ["judge", "outsider", "other_admin", "anon"])
def test_only_campaign_admins_see_systems_results_and_exports(world, who) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    user = {
        "judge": world["judges"][0],
        "outsider": world["outsider"],
        "other_admin": world["other_admin"],
        "anon": None,
    }[who]
    api = _client(user, api=True)
    expected = {"judge": 403, "outsider": 403, "other_admin": 404, "anon": 403}[who]
    for name in ("api-judgment-campaign", "api-judgment-results", "api-judgment-export"):
        assert api.get(reverse(name, args=[campaign.pk])).status_code == expected, name
    # computing the results again (POST, page and API) is theirs alone too: nothing queued
    assert api.post(reverse("api-judgment-results", args=[campaign.pk])).status_code == expected
    posted = _client(user).post(reverse("judgments:results", args=[campaign.pk]))
    if who == "anon":
        assert posted.status_code == 302 and "/accounts/login/" in posted["Location"]
    else:
        assert posted.status_code == expected
    assert not CampaignResults.objects.filter(campaign=campaign).exists()
    assert not BackgroundJob.objects.filter(kind="judgments.results").exists()
    page = _client(user)
    for url in (
        reverse("judgments:results", args=[campaign.pk]),
        reverse("judgments:export", args=[campaign.pk, "xml"]),
    ):
        response = page.get(url)
        if who == "anon":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        else:
            assert response.status_code == expected, url
    # the judge's own pages never name a system
    if who == "judge":
        listing = api.get(reverse("api-judgment-campaigns")).json()
        _no_system_names(json.dumps(listing))
        _no_system_names(page.get(reverse("judgments:index")).content.decode())


def test_campaign_admin_sees_systems_results_and_exports(world, computed) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    api = _client(world["owner"], api=True)
    detail = api.get(reverse("api-judgment-campaign", args=[campaign.pk])).json()
    assert detail["systems"] == SYSTEM_NAMES
    results = computed(
        api, reverse("api-judgment-results", args=[campaign.pk]) + "?method=ew&bootstrap=10"
    )
    assert results.status_code == 200 and set(results.json()["systems"]) <= set(SYSTEM_NAMES)
    xml = api.get(reverse("api-judgment-export", args=[campaign.pk]))
    assert xml.status_code == 200 and b"<ranking-item" in xml.content
    csv = api.get(reverse("api-judgment-export", args=[campaign.pk]) + "?as=csv")
    assert csv.content.decode().startswith("srclang,trglang,srcIndex")
    unexpanded = api.get(reverse("api-judgment-export", args=[campaign.pk]) + "?as=csv-unexpanded")
    assert unexpanded.content.decode().startswith("srclang,trglang,srcIndex")
    assert unexpanded.content.count(b"\n") <= csv.content.count(b"\n")  # outputs, not systems
    page = computed(_client(world["owner"]), reverse("judgments:results", args=[campaign.pk]))
    assert page.status_code == 200 and b"human-ranking" in page.content
    assert f"?campaign={campaign.pk}".encode() in page.content  # meta-evaluation link


def test_judging_page_hides_system_names_and_takes_the_form(world) -> None:  # type: ignore[no-untyped-def]
    second = world["judges"][1]
    client = _client(second)
    response = client.get(reverse("judgments:next", args=[world["campaign"].pk]))
    assert response.status_code == 302
    page = client.get(response["Location"])
    html = page.content.decode()
    _no_system_names(html)
    assert "<script>" not in html and 'style="' not in html  # CSP: no inline code or style
    assignment = Assignment.objects.filter(judge=second, started_at__isnull=False).get()
    count = assignment.item.outputs.count()
    posted = client.post(
        response["Location"], {f"rank-{i}": str(i + 1) for i in range(count)} | {"action": "submit"}
    )
    assert posted.status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == "done" and assignment.judgment.ranks == list(range(1, count + 1))


def test_api_import_is_for_admins_and_all_or_nothing(
    world, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    xml = (
        b'<?xml version="1.0"?><appraise-results><error-correction-ranking-result id="x">'
        b'<ranking-item src-id="1" id="1" user="j"><translation rank="1" system="A"/>'
        b'<translation rank="2" system="B"/></ranking-item></error-correction-ranking-result>'
        b"</appraise-results>"
    )
    url = reverse("api-judgment-import")
    judge_api = _client(world["judges"][0], api=True)
    upload = SimpleUploadedFile("j.xml", xml, content_type="application/xml")
    assert judge_api.post(url, {"campaign": "new", "file": upload}).status_code == 403
    admin_api = _client(world["owner"], api=True)
    broken = SimpleUploadedFile("bad.xml", xml[:-20], content_type="application/xml")
    response = admin_api.post(url, {"campaign": "new", "file": broken})
    assert response.status_code == 400 and "malformed XML" in response.json()["detail"]
    assert not Campaign.objects.filter(name="new").exists()
    upload = SimpleUploadedFile("j.xml", xml, content_type="application/xml")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_api.post(url, {"campaign": "new", "file": upload})
    # a background job (run at once in-process here): 202 with the job, then the campaign
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["kind"] == "judgments.import", job
    assert admin_api.get(reverse("job-detail", args=[job["id"]])).json()["status"] == "done"
    campaign = Campaign.objects.get(name="new")
    polled = admin_api.get(reverse("job-detail", args=[job["id"]])).json()
    assert polled["result"]["campaign"] == campaign.pk and polled["result"]["items"] == 1
    assert list(campaign.systems.values_list("name", flat=True)) == ["A", "B"]
    assert judge_api.get(reverse("job-detail", args=[job["id"]])).status_code in (403, 404)
    # another admin cannot import into this admin's campaign
    other = _client(world["other_admin"], api=True)
    upload = SimpleUploadedFile("j.xml", xml, content_type="application/xml")
    assert other.post(url, {"campaign": "new", "file": upload}).status_code == 404


def test_admin_creates_a_campaign_through_the_api_from_the_releases_outputs(world) -> None:  # type: ignore[no-untyped-def]
    api = _client(world["owner"], api=True)
    release = world["campaign"].release
    body = {
        "name": "via-api",
        "release": release.pk,
        "system_outputs": SYSTEMS,
        "judges": [j.username for j in world["judges"]],
        "judges_per_item": 2,
    }
    response = api.post(reverse("api-judgment-campaigns"), body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["items"] == 4
    judge_api = _client(world["judges"][0], api=True)
    assert judge_api.post(reverse("api-judgment-campaigns"), body, format="json").status_code == 403


def test_only_the_campaign_admin_reassigns_stale_items(world) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from django.utils import timezone

    campaign = world["campaign"]
    judges = world["judges"]
    third = make_user(Role.ANNOTATOR)
    campaign.judges.add(third)
    stale = services.next_assignment(campaign=campaign, judge=judges[1])
    assert stale is not None
    Assignment.objects.filter(pk=stale.pk).update(started_at=timezone.now() - timedelta(hours=3))
    url = reverse("api-judgment-reassign-stale", args=[campaign.pk])
    assert _client(judges[0], api=True).post(url, {"minutes": 60}).status_code == 403
    assert _client(world["other_admin"], api=True).post(url, {"minutes": 60}).status_code == 404
    page = _client(world["owner"]).post(
        reverse("judgments:reassign-stale", args=[campaign.pk]), {"minutes": "60"}
    )
    assert page.status_code == 302
    stale.refresh_from_db()
    assert stale.judge == third and stale.judge_name == third.username
