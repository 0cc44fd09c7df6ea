"""A notification is read once the work it announces is done or gone: after 20
reviews the reviewer had 20 unread "ready for review". Review saved, study item revised,
complaint resolved, review reassigned."""

from __future__ import annotations

import pytest
from django.test import Client

from core.roles import Role
from review.models import StudyItem
from review.services import (
    file_complaint,
    reassign_review,
    resolve_complaint,
    submit_study_revision,
)
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all
from tests.factories import make_user

pytestmark = pytest.mark.django_db

FIX = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"


def _unread(user, text: str) -> int:  # type: ignore[no-untyped-def]
    return user.notifications.filter(read_at__isnull=True, text__contains=text).count()


def _review(world):  # type: ignore[no-untyped-def]
    task = world.task()
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    world = make_world()
    submit_all(world, 0, [([FIX, WRONG], ""), ([FIX], ""), ([FIX], "")])
    return world


def test_saving_the_review_reads_its_ready_for_review_notification(world) -> None:  # type: ignore[no-untyped-def]
    assert _unread(world.reviewer, "ready for review") == 1
    client = Client()
    client.force_login(world.reviewer)
    assert 'title="unread notifications">1<' in client.get("/review/").content.decode()
    _review(world)
    assert _unread(world.reviewer, "ready for review") == 0
    assert world.reviewer.notifications.count() == 1  # kept, only marked read
    assert 'title="unread notifications"' not in client.get("/review/").content.decode()


def test_revising_a_study_item_reads_its_notification(world) -> None:  # type: ignore[no-untyped-def]
    _review(world)
    annotator = world.annotators[0]
    assert _unread(annotator, "Study:") == 1
    item = StudyItem.objects.get(assignment__annotator=annotator)
    submit_study_revision(item_id=item.pk, user=annotator, texts=[FIX])
    assert _unread(annotator, "Study:") == 0


def test_resolving_a_complaint_reads_what_announced_it_and_tells_the_author(world) -> None:  # type: ignore[no-untyped-def]
    _review(world)
    annotator = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=annotator)
    complaint = file_complaint(item_id=item.pk, user=annotator, text="WRONG reads fine to me.")
    assert _unread(world.reviewer, "complained") == 1
    resolve_complaint(complaint_id=complaint.pk, user=world.reviewer, accept=False, note="No.")
    assert _unread(world.reviewer, "complained") == 0
    assert _unread(annotator, "rejected") == 1  # the answer itself is news


def test_reassigning_a_review_reads_the_previous_reviewers_notification(world) -> None:  # type: ignore[no-untyped-def]
    spare = make_user(Role.REVIEWER)
    world.dataset.reviewers.add(spare)
    reassign_review(task_id=world.task().pk, by=world.admin)
    assert _unread(world.reviewer, "ready for review") == 0
    assert _unread(spare, "reassigned to you") == 1
