"""The review pages as a person reads them: tag pills in words, an amendment needs its reason
(page and API), read notifications look read, and an amendment keeps the task's place in the
queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from core.exceptions import ServiceError
from core.models import Notification
from review import selectors
from review.amendments import amend_review
from review.models import ReviewAmendment, ReviewTask
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

FIX = "我昨天去图书馆借了三本书。"


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _save(world, position: int = 0) -> ReviewTask:  # type: ignore[no-untyped-def]
    task = world.task(position)
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}],
    )
    return world.task(position)


def test_tag_pills_show_the_tag_in_words_only() -> None:
    world = make_world()
    submit_all(world, 0, [([], "error_free"), ([], "not_annotatable"), ([FIX], "")])
    page = _client(world.reviewer).get(f"/review/t/{world.task().pk}/").content.decode()
    pills = [part.split("</span>")[0] for part in page.split('data-testid="tag-label">')[1:]]
    assert sorted(pills) == ["ERROR FREE", "NOT ANNOTATABLE"]
    assert "error_free" not in " ".join(pills) and "没有错误" not in " ".join(pills)


def test_an_amendment_without_a_reason_is_refused_everywhere() -> None:
    world = make_world()
    submit_all(world, 0, [([FIX], "")] * 3)
    task = _save(world)
    body = {
        "version": task.version,
        "judgement": "annotatable",
        "verdicts": [{"position": 0, "correct": False}],
    }
    with pytest.raises(ServiceError) as refused:
        amend_review(task_id=task.pk, user=world.reviewer, reason="  \n ", **body)
    assert refused.value.field == "reason" and "give a reason" in refused.value.message

    api = APIClient()
    api.force_authenticate(world.reviewer)
    response = api.post(f"/api/review-tasks/{task.pk}/amend/", body, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "reason"

    page = _client(world.reviewer).post(
        f"/review/t/{task.pk}/",
        {
            "action": "amend",
            "version": task.version,
            "verdict-0": "wrong",
            "edit-0": FIX,
            "judgement": "annotatable",
            "reason": "",
        },
    )
    text = page.content.decode()
    assert page.status_code == 200 and "give a reason for the amendment" in text
    # The form comes back as amending, with the box marked required for the browser too.
    assert 'name="action" value="amend"' in text
    assert 'required data-testid="amend-reason"' in text
    assert not ReviewAmendment.objects.exists()
    assert world.task().version == task.version  # nothing was saved


def test_read_notifications_look_read_in_the_review_queue() -> None:
    world = make_world()
    Notification.objects.create(user=world.reviewer, text="seen before", read_at=timezone.now())
    Notification.objects.create(user=world.reviewer, text="just came in")
    page = _client(world.reviewer).get("/review/").content.decode()
    items = page.split('data-testid="notification"')
    unread = next(i for i in items[1:] if "just came in" in i)
    read = next(i for i in items[1:] if "seen before" in i)
    assert items[items.index(unread) - 1].endswith('class="unread" ')
    assert items[items.index(read) - 1].endswith('class="read" ')
    assert "new</strong>" in unread.split("just came in")[0]
    assert "new</strong>" not in read.split("seen before")[0]
    assert "Mark all read" in page
    Notification.objects.filter(user=world.reviewer).update(read_at=timezone.now())
    page = _client(world.reviewer).get("/review/").content.decode()
    assert 'class="unread"' not in page and "Mark all read" not in page


def test_an_amendment_keeps_the_tasks_number_in_the_queue() -> None:
    world = make_world()
    for position in range(3):
        submit_all(world, position, [([FIX], "")] * 3)
        # Opened in sentence order, an hour apart.
        ReviewTask.objects.filter(pk=world.task(position).pk).update(
            opened_at=timezone.now() - timedelta(hours=3 - position)
        )
    first = _save(world, 0)
    _save(world, 1)
    before = selectors.queue_progress(world.reviewer, world.task(0))
    assert before is not None and (before.number, before.total, before.done) == (1, 3, 2)
    amend_review(
        task_id=first.pk,
        user=world.reviewer,
        version=first.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}],
        added=["我昨天去图书馆借了三本书回来。"],
        reason="a second reference",
    )
    after = selectors.queue_progress(world.reviewer, world.task(0))
    assert after is not None and (after.number, after.total, after.done) == (1, 3, 2)
    page = _client(world.reviewer).get(f"/review/t/{first.pk}/").content.decode()
    assert "1 of 3</strong> in your review queue" in page
