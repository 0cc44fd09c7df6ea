"""A saved review is amended by its reviewer (or an admin) as a new revision,
with history (who, when, why, before/after); the old references stay, a frozen release is not
changed; study items follow the amended review; others cannot amend (pages and API)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.exceptions import Conflict, NotFound, PermissionDenied
from core.models import AuditLog
from datasets.models import GoldenReference, Judgement, ReferenceOrigin
from datasets.services.releases import release_dataset
from review.amendments import amend_review
from review.models import ReviewAmendment, StudyItem
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

FIX_B = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"
ADDED = "我昨天去图书馆借了三本书回来。"


@pytest.fixture
def reviewed():  # type: ignore[no-untyped-def]
    """Sentence 0 reviewed: FIX_B correct, WRONG wrong (annotator 1 must study it)."""
    world = make_world()
    submit_all(world, 0, [([FIX_B, WRONG], ""), ([FIX_B], ""), ([FIX_B], "")])
    task = world.task()
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )
    return world


def _amend(world, user, **extra):  # type: ignore[no-untyped-def]
    task = world.task()
    return amend_review(
        task_id=task.pk,
        user=user,
        version=extra.pop("version", task.version),
        judgement="annotatable",
        verdicts=extra.pop(
            "verdicts", [{"position": 0, "correct": True}, {"position": 1, "correct": True}]
        ),
        added=extra.pop("added", [ADDED]),
        reason=extra.pop("reason", "WRONG is fine after all"),
    )


def _current(world) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.text for r in world.sentence().golden_references.filter(is_current=True)]


def test_reviewer_amends_as_a_new_revision_and_the_history_keeps_before_and_after(reviewed) -> None:  # type: ignore[no-untyped-def]
    world = reviewed
    release = release_dataset(dataset=world.dataset)
    frozen = list(release.sentences.values_list("references", flat=True))
    study = StudyItem.objects.get()
    assert study.assignment.annotator_id == world.annotators[0].pk
    _amend(world, world.reviewer)
    assert _current(world) == [FIX_B, WRONG, ADDED]
    old = GoldenReference.objects.filter(sentence=world.sentence(), is_current=False)
    assert [r.text for r in old] == [FIX_B]  # the first revision is kept
    amendment = ReviewAmendment.objects.get()
    assert amendment.amended_by == world.reviewer and amendment.reason == "WRONG is fine after all"
    assert [r["text"] for r in amendment.before["references"]] == [FIX_B]
    assert [r["text"] for r in amendment.after["references"]] == [FIX_B, WRONG, ADDED]
    assert [v["correct"] for v in amendment.before["verdicts"]] == [True, False]
    assert [v["correct"] for v in amendment.after["verdicts"]] == [True, True]
    assert AuditLog.objects.filter(action="review.amendment").count() == 1
    # annotator 1 is no longer wrong: the study item is withdrawn
    assert not StudyItem.objects.exists()
    # the frozen release keeps what it was cut with
    assert list(release.sentences.values_list("references", flat=True)) == frozen
    origins = {r.text: r.origin for r in world.sentence().golden_references.filter(is_current=True)}
    assert origins[ADDED] == ReferenceOrigin.ADDED


def test_amending_back_to_wrong_creates_the_study_item_again(reviewed) -> None:  # type: ignore[no-untyped-def]
    world = reviewed
    _amend(world, world.reviewer)
    _amend(
        world,
        world.admin,
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
        added=[],
        reason="the second reading was wrong",
    )
    assert StudyItem.objects.get().assignment.annotator_id == world.annotators[0].pk
    assert ReviewAmendment.objects.count() == 2
    assert world.sentence().judgement == Judgement.ANNOTATABLE


def test_a_stale_amendment_loses_and_others_cannot_amend(reviewed) -> None:  # type: ignore[no-untyped-def]
    world = reviewed
    version = world.task().version
    _amend(world, world.reviewer)
    with pytest.raises(Conflict):
        _amend(world, world.admin, version=version)
    with pytest.raises(NotFound):  # another reviewer does not even see the task
        _amend(world, world.other_reviewer)
    with pytest.raises(NotFound):
        _amend(world, world.annotators[0])
    assert ReviewAmendment.objects.count() == 1


def test_an_open_task_cannot_be_amended() -> None:
    world = make_world()
    submit_all(world, 0, [([FIX_B], ""), ([FIX_B], ""), ([FIX_B], "")])
    with pytest.raises(Conflict, match="no saved review to amend"):
        _amend(world, world.reviewer, verdicts=[{"position": 0, "correct": True}])


def test_reviewer_without_the_role_cannot_amend(reviewed) -> None:  # type: ignore[no-untyped-def]
    from core.roles import Role
    from core.services import set_roles

    world = reviewed
    set_roles(user=world.reviewer, roles=[Role.ANNOTATOR])
    with pytest.raises((NotFound, PermissionDenied)):
        _amend(world, world.reviewer)


def test_amend_page_starts_from_the_saved_review_and_shows_the_history(reviewed) -> None:  # type: ignore[no-untyped-def]
    world = reviewed
    task = world.task()
    client = Client()
    client.force_login(world.reviewer)
    done = client.get(f"/review/t/{task.pk}/").content.decode()
    assert 'data-testid="amend-link"' in done
    form = client.get(f"/review/t/{task.pk}/?amend=1").content.decode()
    assert 'name="action" value="amend"' in form
    assert 'name="verdict-0" value="correct" data-testid="correct" checked' in form
    assert 'name="verdict-1" value="wrong" data-testid="wrong" checked' in form
    response = client.post(
        f"/review/t/{task.pk}/",
        {
            "action": "amend",
            "version": task.version,
            "verdict-0": "correct",
            "verdict-1": "correct",
            "edit-0": FIX_B,
            "edit-1": WRONG,
            "judgement": "annotatable",
            "reason": "second look",
        },
    )
    assert response.status_code == 302
    page = client.get(f"/review/t/{task.pk}/").content.decode()
    assert 'data-testid="amendment-history"' in page and "second look" in page
    assert _current(world) == [FIX_B, WRONG]
    # another reviewer: no link, no form, and a POST is refused
    other = Client()
    other.force_login(world.other_reviewer)
    assert other.get(f"/review/t/{task.pk}/?amend=1").status_code == 404
    assert other.post(f"/review/t/{task.pk}/", {"action": "amend"}).status_code == 404


def test_amend_api_for_the_reviewer_and_admins_only(reviewed) -> None:  # type: ignore[no-untyped-def]
    world = reviewed
    task = world.task()
    url = f"/api/review-tasks/{task.pk}/amend/"
    body = {
        "version": task.version,
        "judgement": "annotatable",
        "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": True}],
        "reason": "api",
    }
    for user, status in ((world.other_reviewer, 404), (world.annotators[0], 403)):
        api = APIClient()
        api.force_authenticate(user)
        assert api.post(url, body, format="json").status_code == status
    assert APIClient().post(url, body, format="json").status_code in (401, 403)
    api = APIClient()
    api.force_authenticate(world.admin)
    response = api.post(url, body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["amendment"]["before"]["references"][0]["text"] == FIX_B
    history = api.get(url).json()
    assert [h["reason"] for h in history] == ["api"]
    assert api.post(url, body, format="json").status_code == 409  # built on the old version
