"""Pages and API of the scoring app: who may see what, uploads through the page and the API,
pay CSV for admins only, clear errors for bad uploads."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from scoring.models import ScoreStatus, SystemOutput
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db

SENTENCES = ["我很喜欢吃平果", "他是一个好学升"]
REFERENCES = ["我很喜欢吃苹果", "他是一个好学生"]
OUTPUT = "1\t我很喜欢吃平果\t我很喜欢吃苹果\n2\t他是一个好学升\t他是一个好学升\n"


@pytest.fixture
def release():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=SENTENCES)
    for sentence, ref in zip(dataset.sentences.order_by("position"), REFERENCES, strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    return release_dataset(dataset=dataset)


def _client(*roles: Role):  # type: ignore[no-untyped-def]
    from django.test import Client

    client = Client()
    user = make_user(*roles)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_anonymous_users_are_sent_to_login(client, release) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("scoring:leaderboard", args=[release.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_annotators_cannot_open_scoring_pages(release) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.ANNOTATOR)
    assert client.get(reverse("scoring:leaderboard", args=[release.pk])).status_code == 403
    assert client.get(reverse("scoring:pay")).status_code == 403


def test_reviewers_see_leaderboards_but_cannot_upload_or_see_pay(release) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.REVIEWER)
    assert client.get(reverse("scoring:leaderboard", args=[release.pk])).status_code == 200
    upload = client.post(
        reverse("scoring:upload", args=[release.pk]),
        {"name": "x", "file": SimpleUploadedFile("o.txt", OUTPUT.encode())},
    )
    assert upload.status_code == 403
    assert client.get(reverse("scoring:pay")).status_code == 403
    assert client.get(reverse("scoring:annotators", args=[release.dataset_id])).status_code == 403


def test_admin_uploads_through_the_page_and_sees_the_highlighted_system_page(
    release, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.ADMIN)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("scoring:upload", args=[release.pk]),
            {"name": "mine", "file": SimpleUploadedFile("o.txt", OUTPUT.encode())},
        )
    system = SystemOutput.objects.get(name="mine")
    assert response.status_code == 302 and response["Location"] == reverse(
        "scoring:system", args=[system.pk]
    )
    system.score.refresh_from_db()
    assert system.score.status == ScoreStatus.DONE  # tasks run in-process without a broker
    page = client.get(response["Location"]).content.decode()
    assert 'data-label="TP"' in page and 'data-label="FN"' in page
    assert "<svg" in page
    board = client.get(reverse("scoring:leaderboard", args=[release.pk])).content.decode()
    assert "mine" in board and "metric=cherrant-f0.5" in board


def test_bad_upload_on_the_page_shows_the_line(release) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.ADMIN)
    response = client.post(
        reverse("scoring:upload", args=[release.pk]),
        {"name": "bad", "file": SimpleUploadedFile("o.txt", b"1\tx\ty\n")},
        follow=True,
    )
    assert "o.txt, line 1: the source of id &#x27;1&#x27; differs" in response.content.decode()
    assert not SystemOutput.objects.filter(name="bad").exists()


def test_api_upload_with_wait_returns_the_contract_json(release) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(
        reverse("scoring:api-systems"),
        {
            "dataset": release.dataset.name,
            "name": "api-sys",
            "wait": "true",
            "file": SimpleUploadedFile("o.txt", OUTPUT.encode()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["tp"], body["fp"], body["fn"], body["status"]) == (1, 0, 1, "done")
    assert {"p", "r", "f05", "ref_count_curve", "categories", "by_source"} <= set(body)
    board = api.get(reverse("scoring:api-leaderboard", args=[release.pk])).json()
    assert [s["system"] for s in board["systems"]] == ["api-sys"]


def test_api_rejects_bad_uploads_with_the_line_and_non_admins(release) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(make_user(Role.ADMIN))
    response = api.post(
        reverse("scoring:api-systems"),
        {
            "dataset": release.dataset.name,
            "name": "x",
            "file": SimpleUploadedFile("o.txt", "只有一行\n".encode()),
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "1 lines, but the release has 2 sentences" in response.json()["detail"]
    # Page and API agree: reviewers read the leaderboard in both, annotators in none.
    reviewer = APIClient()
    reviewer.force_authenticate(make_user(Role.REVIEWER))
    assert reviewer.get(reverse("scoring:api-leaderboard", args=[release.pk])).status_code == 200
    annotator = APIClient()
    annotator.force_authenticate(make_user(Role.ANNOTATOR))
    assert annotator.get(reverse("scoring:api-leaderboard", args=[release.pk])).status_code == 403


def test_pay_csv_is_for_admins(release) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.ADMIN)
    response = client.get(reverse("scoring:pay") + "?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "user_id,name,submissions,reviews,f05" in response.content.decode()
