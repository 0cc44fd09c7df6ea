"""Pages and API end to end through the test client: forms, admin actions, guideline,
token-authenticated API loop, demo seed."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token

from annotate.models import Assignment, AssignmentStatus, Guideline, Submission
from core.models import AuditLog, User
from core.roles import Role
from datasets.models import GoldenReference
from review.models import ComplaintStatus, ReviewTask, StudyItem
from review.workflow import assign_dataset
from tests.annotate.workflow import make_world
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db

FIX = "我昨天去图书馆借了三本书。"


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def test_annotation_form_submits_and_moves_to_the_next_sentence() -> None:
    world = make_world()
    a1 = world.annotators[0]
    client = _client(a1)
    first = client.get("/annotate/next/")
    assert first.status_code == 302
    url = first["Location"]
    response = client.post(
        url, {"text": [FIX, FIX], "tag": "", "time_spent_seconds": "42"}, follow=True
    )
    page = response.content.decode()
    assert "duplicated correction 1 and was merged" in page and "Saved sentence 1 of " in page
    assert response.redirect_chain[-1][0] == f"/annotate/a/{world.assignment(a1, 1).pk}/"
    assignment = world.assignment(a1)
    assert (assignment.status, assignment.time_spent_seconds) == (AssignmentStatus.SUBMITTED, 42)
    # The submitted page is read-only and shows the text.
    assert "You submitted this sentence" in client.get(url).content.decode()


def test_annotation_form_with_bad_input_shows_the_error_and_keeps_the_text() -> None:
    world = make_world()
    a1 = world.annotators[0]
    url = f"/annotate/a/{world.assignment(a1).pk}/"
    response = _client(a1).post(url, {"text": [FIX, ""], "tag": ""})
    page = response.content.decode()
    assert response.status_code == 200
    assert "correction 2 is empty" in page and FIX in page
    assert not Submission.objects.exists()


def test_next_shortcut_skips_the_sentence_on_screen() -> None:
    world = make_world()
    a1 = world.annotators[0]
    client = _client(a1)
    current = world.assignment(a1)
    client.get(f"/annotate/a/{current.pk}/")
    assert client.get("/annotate/next/")["Location"] == f"/annotate/a/{current.pk}/"
    assert (
        client.get(f"/annotate/next/?skip={current.pk}")["Location"]
        == f"/annotate/a/{world.assignment(a1, 1).pk}/"
    )


def test_admin_assigns_lists_stale_work_and_reassigns_from_the_progress_page() -> None:
    world = make_world()
    extra = User.objects.create(username="extra")
    extra.groups.set(world.annotators[0].groups.all())
    world.dataset.annotators.add(extra)
    client = _client(world.admin)
    page = client.get("/annotate/admin/?stale_hours=0").content.decode()
    assert "Stale assignments" in page and page.count("Reassign</button>") == 9
    assert (
        "<title>Annotation progress · GEC platform</title>" in page
        and page.count('data-testid="stale-reviews"') == 1
    )
    old = world.assignment(world.annotators[0])
    response = client.post(f"/annotate/admin/reassign/{old.pk}/", follow=True)
    assert f"reassigned to {extra.username}" in response.content.decode()
    old.refresh_from_db()
    assert old.status == AssignmentStatus.WITHDRAWN
    assert (
        Assignment.objects.get(sentence=old.sentence, annotator=extra).status
        == AssignmentStatus.OPEN
    )
    response = client.post(
        "/annotate/admin/assign/", {"dataset": world.dataset.pk, "seed": "5"}, follow=True
    )
    assert "Assigned 0 sentence(s)" in response.content.decode()


def test_guideline_is_markdown_sanitised_and_edited_with_a_version_check() -> None:
    world = make_world()
    page = _client(world.annotators[0]).get("/guidelines/").content.decode()
    # The seeded guideline: 5 major types with their 14 minor ones.
    for heading in ("1. 标点", "2. 错别字", "3. 词语", "4. 句法", "5. 语用"):
        assert f"<h3>{heading}</h3>" in page
    admin = _client(world.admin)
    version = admin.get("/api/guideline/").json()["version"]
    response = admin.post(
        "/guidelines/edit/",
        {"title": "Guide", "body": "# Hi\n<script>alert(1)</script>", "version": version},
        follow=True,
    )
    assert "Guideline saved" in response.content.decode()
    page = _client(world.annotators[0]).get("/guidelines/").content.decode()
    assert "<h1>Hi</h1>" in page and "<script>alert(1)" not in page
    stale = admin.put(
        "/api/guideline/",
        json.dumps({"title": "T", "body": "B", "version": version}),
        content_type="application/json",
    )
    assert stale.status_code == 409 and "reload" in stale.json()["detail"]
    assert Guideline.objects.get().version == version + 1
    assert AuditLog.objects.filter(action="guideline.updated").count() == 1


def test_the_whole_loop_through_the_api_with_token_auth() -> None:
    world = make_world()

    def api(user):  # type: ignore[no-untyped-def]
        # A script gets its token with the user's password, then sends it on every call.
        response = Client().post(
            "/api/auth/token/", {"username": user.username, "password": PASSWORD}
        )
        assert response.status_code == 200, response.content
        assert Token.objects.get(user=user).key == response.json()["token"]
        return Client(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")

    def post(client, url, data):  # type: ignore[no-untyped-def]
        return client.post(url, json.dumps(data), content_type="application/json")

    a1, a2, a3 = world.annotators
    answers = {
        a1: {"texts": [FIX, "我昨天去了图书馆借书三本。"]},
        a2: {"texts": [FIX]},
        a3: {"tag": "error_free"},
    }
    for user, body in answers.items():
        client = api(user)
        assignment = client.post("/api/assignments/next/").json()
        assert assignment["sentence"]["text"] == world.sentence().text
        response = post(client, f"/api/assignments/{assignment['id']}/submit/", body)
        assert response.status_code == 201, response.json()
        again = post(client, f"/api/assignments/{assignment['id']}/submit/", body)
        assert again.status_code == 409 and "already submitted" in again.json()["detail"]
    reviewer = api(world.reviewer)
    task = reviewer.get("/api/review-tasks/?status=open").json()[0]
    detail = reviewer.get(f"/api/review-tasks/{task['id']}/").json()
    assert [(c["text"], c["support"]) for c in detail["candidates"]] == [
        (FIX, 2),
        ("我昨天去了图书馆借书三本。", 1),
        ("没有错误", 1),
    ]
    bad = post(
        reviewer,
        f"/api/review-tasks/{task['id']}/submit/",
        {
            "version": task["version"],
            "judgement": "annotatable",
            "verdicts": [{"position": 0, "correct": True}],
        },
    )
    assert bad.status_code == 400 and bad.json()["field"] == "verdicts"
    outcome = post(
        reviewer,
        f"/api/review-tasks/{task['id']}/submit/",
        {
            "version": task["version"],
            "judgement": "annotatable",
            "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": False}],
        },
    )
    assert outcome.status_code == 201
    assert [r["text"] for r in outcome.json()["references"]] == [FIX]
    stale = post(
        reviewer,
        f"/api/review-tasks/{task['id']}/submit/",
        {
            "version": task["version"],
            "judgement": "annotatable",
            "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": True}],
        },
    )
    assert stale.status_code == 409
    a1_client = api(a1)
    item = a1_client.get("/api/study-items/").json()[0]
    shown = a1_client.get(f"/api/study-items/{item['id']}/").json()
    assert [r["text"] for r in shown["references"]] == [FIX] and shown["references"][0]["edits"]
    revised = post(a1_client, f"/api/study-items/{item['id']}/revise/", {"texts": [FIX]})
    assert revised.status_code == 201 and revised.json()["revision"] == 2
    complaint = post(
        a1_client, "/api/complaints/", {"study_item": item["id"], "text": "Why not mine?"}
    )
    assert complaint.status_code == 201
    cid = complaint.json()["id"]
    resolved = post(
        reviewer,
        f"/api/complaints/{cid}/resolve/",
        {"accept": True, "references": [FIX, "我昨天去了图书馆借了三本书。"]},
    )
    assert resolved.status_code == 200 and resolved.json()["status"] == ComplaintStatus.ACCEPTED
    assert GoldenReference.objects.filter(is_current=True).count() == 2
    assert StudyItem.objects.count() == 2 and ReviewTask.objects.filter(status="done").count() == 1


def test_demo_seed_lets_annotators_and_the_reviewer_work(capsys, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = True  # the quick start, where the demo is seeded
    call_command("seed_demo")
    call_command("seed_demo")  # idempotent: nothing assigned twice
    for name in ("annotator1", "annotator2", "annotator3"):
        user = User.objects.get(username=name)
        assert Assignment.objects.filter(annotator=user, status="open").count() == 12
    assert ReviewTask.objects.filter(reviewer__username="reviewer").count() == 12
    assert Assignment.objects.count() == 36


def test_annotation_subtitle_has_no_dangling_separator_without_source_or_split() -> None:
    """A sentence imported without a source name or a split is titled by its dataset alone
    ("ds ·" with nothing after the dot read as a missing value)."""
    annotator = make_user(Role.ANNOTATOR)
    dataset = make_dataset(name="plain-ds", sentences=["他对中国的历史很感兴趣。"], k=1, split="")
    dataset.sentences.update(source=None)
    dataset.annotators.set([annotator])
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=0, by=make_user(Role.ADMIN))
    assignment = Assignment.objects.get(annotator=annotator)
    page = _client(annotator).get(f"/annotate/a/{assignment.pk}/").content.decode()
    subtitle = page.split('<span class="muted subtitle">', 1)[1].split("</span>", 1)[0]
    assert subtitle == "plain-ds"
