"""Permission matrix: every workflow page and endpoint, for every role.

Anonymous users are sent to the login page (pages) or refused (API); a wrong role gets 403;
another user's object gets 404, never its data.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from annotate.models import Submission
from review.models import Complaint, StudyItem
from review.services import file_complaint
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

ROLES = ["anon", "owner", "outsider", "reviewer", "other_reviewer", "admin"]


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    world = make_world()
    submit_all(
        world,
        0,
        [
            (["我昨天去图书馆借了三本书。", "我昨天去了图书馆借书三本。"], ""),
            (["我昨天去图书馆借了三本书。"], ""),
            ([], "error_free"),
        ],
    )
    submit_review(
        task_id=world.task().pk,
        user=world.reviewer,
        version=0,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )
    owner = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=owner)
    file_complaint(item_id=item.pk, user=owner, text="please look again")
    return world


def _client(world, role: str) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    user = {
        "anon": None,
        "owner": world.annotators[0],
        "outsider": world.outsider,
        "reviewer": world.reviewer,
        "other_reviewer": world.other_reviewer,
        "admin": world.admin,
    }[role]
    if user is not None:
        client.force_login(user)
    return client


def _ids(world):  # type: ignore[no-untyped-def]
    owner = world.annotators[0]
    return {
        "assignment": world.assignment(owner).pk,
        "open_assignment": world.assignment(owner, 1).pk,
        "submission": Submission.objects.get(assignment=world.assignment(owner), revision=1).pk,
        "task": world.task().pk,
        "item": StudyItem.objects.get(assignment__annotator=owner).pk,
        "complaint": Complaint.objects.get().pk,
    }


# (method, url template, expected status per role in ROLES order). "L" = redirect to login.
PAGES = [
    ("get", "/annotate/", ["L", 200, 200, 403, 403, 403]),
    ("get", "/annotate/a/{assignment}/", ["L", 200, 404, 403, 403, 403]),
    ("get", "/annotate/study/{item}/", ["L", 200, 404, 403, 403, 403]),
    ("get", "/annotate/admin/", ["L", 403, 403, 403, 403, 200]),
    ("get", "/guidelines/", ["L", 200, 200, 200, 200, 200]),
    ("get", "/guidelines/edit/", ["L", 403, 403, 403, 403, 200]),
    ("get", "/review/", ["L", 403, 403, 200, 200, 200]),
    ("get", "/review/t/{task}/", ["L", 403, 403, 200, 404, 200]),
    ("get", "/review/complaints/", ["L", 200, 200, 200, 200, 200]),
    ("get", "/review/complaints/{complaint}/", ["L", 200, 404, 200, 404, 200]),
    ("post", "/review/complaints/new/{item}/", ["L", 302, 404, 403, 403, 403]),
    ("post", "/annotate/admin/assign/", ["L", 403, 403, 403, 403, 302]),
    ("post", "/annotate/admin/reassign/{open_assignment}/", ["L", 403, 403, 403, 403, None]),
    ("post", "/annotate/admin/reassign-review/{task}/", ["L", 403, 403, 403, 403, 302]),
    ("post", "/notifications/read/", ["L", 302, 302, 302, 302, 302]),
]

API = [
    (
        "post",
        "/api/diff/",
        {"source": "我去了。", "target": "我去。"},
        [403, 200, 200, 200, 200, 200],
    ),
    ("get", "/api/assignments/", None, [403, 200, 200, 403, 403, 403]),
    ("get", "/api/assignments/{assignment}/", None, [403, 200, 404, 403, 403, 403]),
    (
        "post",
        "/api/assignments/{open_assignment}/submit/",
        {"texts": ["他对中国的历史非常感兴趣。"]},
        [403, 201, 404, 403, 403, 403],
    ),
    ("get", "/api/submissions/{submission}/", None, [403, 200, 404, 403, 403, 403]),
    ("get", "/api/progress/", None, [403, 200, 200, 403, 403, 403]),
    ("get", "/api/assignments/stale/", None, [403, 403, 403, 403, 403, 200]),
    ("get", "/api/annotation-progress/", None, [403, 403, 403, 403, 403, 200]),
    ("post", "/api/assignments/{open_assignment}/reassign/", {}, [403, 403, 403, 403, 403, None]),
    ("get", "/api/review-tasks/{task}/", None, [403, 403, 403, 200, 404, 200]),
    ("post", "/api/review-tasks/{task}/reassign/", {}, [403, 403, 403, 403, 403, 409]),
    (
        "post",
        "/api/review-tasks/{task}/submit/",
        {"version": 1, "judgement": "error_free", "verdicts": []},
        [403, 403, 403, 409, 404, 409],
    ),
    (
        "post",
        "/api/study-items/{item}/revise/",
        {"texts": ["我昨天去图书馆借了三本书。"]},
        [403, 201, 404, 403, 403, 403],
    ),
    (
        "post",
        "/api/complaints/",
        {"study_item": "{item}", "text": "again"},
        [403, 409, 404, 403, 403, 403],
    ),
    ("get", "/api/study-items/{item}/", None, [403, 200, 404, 403, 403, 403]),
    ("get", "/api/complaints/{complaint}/", None, [403, 200, 404, 200, 404, 200]),
    (
        "post",
        "/api/complaints/{complaint}/messages/",
        {"text": "ok"},
        [403, 201, 404, 201, 404, 201],
    ),
    (
        "post",
        "/api/complaints/{complaint}/resolve/",
        {"accept": False},
        [403, 403, 403, 200, 404, None],
    ),
    ("get", "/api/guideline/", None, [403, 200, 200, 200, 200, 200]),
    (
        "put",
        "/api/guideline/",
        {"title": "T", "body": "B", "version": 1},
        [403, 403, 403, 403, 403, 200],
    ),
]


@pytest.mark.parametrize(("method", "url", "expected"), PAGES, ids=[p[1] for p in PAGES])
def test_pages_permission_matrix(world, method, url, expected) -> None:  # type: ignore[no-untyped-def]
    ids = _ids(world)
    for role, want in zip(ROLES, expected, strict=True):
        if want is None:
            continue  # a state-changing success checked by its own test
        response = getattr(_client(world, role), method)(
            url.format(**ids), {"text": "x"} if method == "post" else None
        )
        if want == "L":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"], role
        else:
            assert response.status_code == want, (role, url, response.status_code)


@pytest.mark.parametrize(
    ("method", "url", "data", "expected"), API, ids=[f"{a[0]} {a[1]}" for a in API]
)
def test_api_permission_matrix(world, method, url, data, expected) -> None:  # type: ignore[no-untyped-def]
    for role, want in zip(ROLES, expected, strict=True):
        if want is None:
            continue  # a state-changing success checked by its own test
        ids = _ids(world)
        if data is not None:
            data = {
                k: (int(v.format(**ids)) if isinstance(v, str) and v.startswith("{") else v)
                for k, v in data.items()
            }
        kwargs = (
            {"data": json.dumps(data), "content_type": "application/json"}
            if data is not None
            else {}
        )
        response = getattr(_client(world, role), method)(url.format(**ids), **kwargs)
        assert response.status_code == want, (
            role,
            url,
            response.status_code,
            response.content[:200],
        )
        if want == 404:
            assert set(response.json()) <= {"detail", "field"}


def test_annotator_never_sees_other_submissions_or_references_before_review(world) -> None:  # type: ignore[no-untyped-def]
    owner, second = world.annotators[0], world.annotators[1]
    client = _client(world, "owner")
    own = {row["id"] for row in client.get("/api/submissions/").json()}
    assert own == set(
        Submission.objects.filter(assignment__annotator=owner).values_list("pk", flat=True)
    )
    other = Submission.objects.filter(assignment__annotator=second).first()
    assert client.get(f"/api/submissions/{other.pk}/").status_code == 404
    # The annotation page of a sentence not yet reviewed shows no one else's text.
    page = client.get(f"/annotate/a/{world.assignment(owner, 1).pk}/").content.decode()
    assert "我昨天去图书馆借了三本书" not in page
    # Golden references reach an annotator only through their own study item.
    assert client.get("/api/review-tasks/").status_code == 403
    second_client = Client()
    second_client.force_login(second)
    assert second_client.get("/api/study-items/").json() == []


def test_reviewer_lists_only_their_own_tasks(world) -> None:  # type: ignore[no-untyped-def]
    rows = _client(world, "other_reviewer").get("/api/review-tasks/").json()
    assert rows == []
    rows = _client(world, "reviewer").get("/api/review-tasks/").json()
    assert len(rows) == 3 and {r["reviewer"] for r in rows} == {world.reviewer.username}
