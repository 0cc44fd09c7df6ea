"""Post-edit annotation through the annotator's REST API: an assignment says what its box
opens with (the page's own decision), a blind control looks like any "no error"
suggestion, an API submission records the same provenance as the page's, and only the
assigned annotator sees the suggestion."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotate.models import Assignment, Submission
from annotate.suggestions import BLIND, draw_blind_items, store_suggestions
from core.models import User
from core.roles import Role
from datasets.models import AnnotationMode
from datasets.services.projects import set_annotation_mode
from tests.annotate.workflow import World, make_world
from tests.factories import make_user

pytestmark = [pytest.mark.django_db]

SOURCE = "我昨天去了图书馆借书了三本。"
NO_ERROR = "这个句子没有错误。"
SUGGESTED = "我昨天去图书馆借了三本书。"
EDITED = "我昨天去了图书馆借了三本书。"
SIGNATURE = "system:demo|release:x@v1|sha:0"
ASSIGNMENT_KEYS = {
    "id",
    "sentence",
    "status",
    "created_at",
    "opened_at",
    "submitted_at",
    "time_spent_seconds",
    "opens_with",
    "suggestion",
}


def _post_edit_world() -> World:
    world = make_world(sentences=[SOURCE, NO_ERROR])
    first, second = world.dataset.sentences.order_by("position")
    store_suggestions(
        dataset=world.dataset,
        source="system:demo",
        signature=SIGNATURE,
        # The second suggestion is the sentence itself: "no error".
        texts={first.pk: SUGGESTED, second.pk: second.text},
    )
    set_annotation_mode(dataset=world.dataset, by=world.admin, mode=AnnotationMode.POST_EDIT)
    return world


def _api(user: User | None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def _detail(user: User, assignment: Assignment) -> dict[str, Any]:
    response = _api(user).get(f"/api/assignments/{assignment.pk}/")
    assert response.status_code == 200, response.content
    return dict(response.json())


def _page_opening(user: User, assignment: Assignment) -> tuple[list[str], Any]:
    """What the annotation page opens the box with: its boxes and the script's suggestion."""
    client = Client()
    client.force_login(user)
    response = client.get(f"/annotate/a/{assignment.pk}/")
    assert response.status_code == 200
    return list(response.context["initial_texts"]), response.context["page_config"]["suggestion"]


def test_a_post_edit_assignment_opens_with_its_suggestion_in_the_api_as_on_the_page() -> None:
    world = _post_edit_world()
    a = world.annotators[0]
    assignment = world.assignment(a)
    response = _api(a).post("/api/assignments/next/")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["id"] == assignment.pk
    assert set(data) == ASSIGNMENT_KEYS
    assert data["opens_with"] == SUGGESTED
    assert data["suggestion"] == {
        "text": SUGGESTED,
        "source": "system:demo",
        "kind": "system",
        "signature": SIGNATURE,
    }
    assert _detail(a, assignment) == data
    assert _page_opening(a, assignment) == ([SUGGESTED], SUGGESTED)


def test_a_blind_item_looks_exactly_like_a_no_error_suggestion() -> None:
    """A blind control opens with the source; in the API it must carry no sign of being
    blind: beside the annotator's prefilled items, a `null` suggestion would give it away."""
    world = _post_edit_world()
    a = world.annotators[0]
    blind = world.assignment(a, 0)
    no_error = world.assignment(a, 1)
    Assignment.objects.filter(pk=blind.pk).update(blind=True)
    blind_data, no_error_data = _detail(a, blind), _detail(a, no_error)
    assert set(blind_data) == set(no_error_data) == ASSIGNMENT_KEYS
    assert (blind_data["opens_with"], blind_data["suggestion"]) == (
        SOURCE,
        {"text": SOURCE, "source": "system:demo", "kind": "system", "signature": SIGNATURE},
    )
    # The same shape, label and signature as a real "no error" suggestion of the source.
    assert (no_error_data["opens_with"], no_error_data["suggestion"]) == (
        NO_ERROR,
        {"text": NO_ERROR, "source": "system:demo", "kind": "system", "signature": SIGNATURE},
    )
    assert _page_opening(a, blind) == ([SOURCE], SOURCE)
    # What was really shown is recorded on the submission and never sent back.
    response = _api(a).post(
        f"/api/assignments/{blind.pk}/submit/", {"texts": [EDITED]}, format="json"
    )
    assert response.status_code == 201, response.content
    assert BLIND not in response.content.decode()
    assert Submission.objects.get(assignment=blind).suggestion_source == BLIND


def test_a_rewrite_assignment_has_the_same_keys_and_opens_with_the_source() -> None:
    world = _post_edit_world()
    set_annotation_mode(dataset=world.dataset, by=world.admin, mode=AnnotationMode.REWRITE)
    a = world.annotators[0]
    assignment = world.assignment(a)
    data = _detail(a, assignment)
    assert set(data) == ASSIGNMENT_KEYS
    assert (data["opens_with"], data["suggestion"]) == (SOURCE, None)
    assert _page_opening(a, assignment) == ([SOURCE], None)


def test_a_post_edit_sentence_without_a_suggestion_opens_with_the_source() -> None:
    world = _post_edit_world()
    world.sentence(0).suggestions.all().delete()
    a = world.annotators[0]
    data = _detail(a, world.assignment(a))
    assert (data["opens_with"], data["suggestion"]) == (SOURCE, None)
    assert _page_opening(a, world.assignment(a)) == ([SOURCE], SOURCE)


def test_reading_an_assignment_opens_it_so_a_later_blind_draw_leaves_it() -> None:
    world = _post_edit_world()
    a = world.annotators[0]
    seen = world.assignment(a)
    assert seen.opened_at is None
    _detail(a, seen)
    seen.refresh_from_db()
    assert seen.opened_at is not None
    draw_blind_items(dataset=world.dataset, share=0.99, seed=1)
    seen.refresh_from_db()
    assert seen.blind is False
    # The list shows no suggestion: listing would otherwise reveal unopened items' suggestions.
    (row, *_) = _api(a).get("/api/assignments/").json()
    assert "suggestion" not in row and "opens_with" not in row


def _provenance(submission: Submission) -> tuple[Any, ...]:
    return (
        submission.tag,
        submission.suggestion_source,
        submission.suggestion_signature,
        submission.suggestion_text,
        submission.unchanged,
        [
            (c.text, c.distance_from_suggestion, c.distance_from_source)
            for c in submission.corrections.all()
        ],
    )


@pytest.mark.parametrize(
    ("text", "blind", "expected"),
    [
        (SUGGESTED, False, ("system:demo", SUGGESTED, True)),  # accepted unchanged
        (EDITED, False, ("system:demo", SUGGESTED, False)),  # post-edited
        (SUGGESTED, True, (BLIND, None, False)),  # typed from the source
    ],
    ids=["accepted-unchanged", "post-edited", "blind"],
)
def test_an_api_submission_records_the_same_provenance_as_the_page(
    text: str, blind: bool, expected: tuple[Any, ...]
) -> None:
    world = _post_edit_world()
    by_api, by_page = world.annotators[0], world.annotators[1]
    Assignment.objects.filter(
        pk__in=[world.assignment(by_api).pk, world.assignment(by_page).pk]
    ).update(blind=blind)
    # Each client submits what its box opened with, or the edit, as an annotator would.
    response = _api(by_api).post(
        f"/api/assignments/{world.assignment(by_api).pk}/submit/",
        {"texts": [f" {text} "], "time_spent_seconds": 9},
        format="json",
    )
    assert response.status_code == 201, response.content
    page = Client()
    page.force_login(by_page)
    answer = page.post(
        f"/annotate/a/{world.assignment(by_page).pk}/",
        {"text": [f" {text} "], "tag": "", "time_spent_seconds": "9"},
    )
    assert answer.status_code == 302
    from_api = Submission.objects.get(assignment=world.assignment(by_api))
    from_page = Submission.objects.get(assignment=world.assignment(by_page))
    assert _provenance(from_api) == _provenance(from_page)
    assert (from_api.suggestion_source, from_api.suggestion_text, from_api.unchanged) == expected


@pytest.mark.parametrize("who", ["other annotator", "outsider", "reviewer", "admin", "anonymous"])
def test_only_the_assigned_annotator_sees_the_suggestion(who: str) -> None:
    world = _post_edit_world()
    a = world.annotators[0]
    assignment = world.assignment(a)
    user = {
        "other annotator": world.annotators[1],  # holds the same sentence
        "outsider": world.outsider,
        "reviewer": world.reviewer,
        "admin": make_user(Role.ADMIN),
        "anonymous": None,
    }[who]
    response = _api(user).get(f"/api/assignments/{assignment.pk}/")
    assert response.status_code == (404 if who in ("other annotator", "outsider") else 403)
    assert SUGGESTED not in response.content.decode()
    assignment.refresh_from_db()
    assert assignment.opened_at is None  # a refused read opens nothing


def test_the_schema_documents_what_the_box_opens_with() -> None:
    api = _api(make_user(Role.ANNOTATOR))
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]
    opened = components["OpenedAssignment"]
    assert {"opens_with", "suggestion"} <= set(opened["properties"])
    assert set(components["Suggestion"]["properties"]) == {"text", "source", "kind", "signature"}
    detail = schema["paths"]["/api/assignments/{assignment_id}/"]["get"]["responses"]["200"]
    assert detail["content"]["application/json"]["schema"]["$ref"].endswith("/OpenedAssignment")
