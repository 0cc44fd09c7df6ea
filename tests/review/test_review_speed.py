"""The review page at annotator speed: the sentence status preselected by the
annotators' majority with the reason shown, "n of m" in the reviewer's queue, the header."""

from __future__ import annotations

import pytest
from django.test import Client

from review import selectors
from review.models import ReviewTask
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

SOURCE_FIX = "我昨天去图书馆借了三本书。"


def _checked_status(page: str) -> list[str]:
    status = page.split('data-testid="status-choice"')[1].split("</div>")[0]
    return [
        part.split('value="')[1].split('"')[0]
        for part in status.split("<input")[1:]
        if " checked" in part
    ]


@pytest.mark.parametrize(
    ("answers", "judgement", "reason"),
    [
        (
            [([], "error_free"), ([], "error_free"), ([SOURCE_FIX], "")],
            "error_free",
            "2 of 3 annotators tagged ERROR FREE",
        ),
        (
            [([SOURCE_FIX], ""), (["我昨天去了图书馆借三本书。"], ""), ([], "error_free")],
            "annotatable",
            "2 of 3 annotators corrected the sentence",
        ),
        (
            [([], "not_annotatable"), ([], "not_annotatable"), ([], "not_annotatable")],
            "not_annotatable",
            "3 of 3 annotators tagged NOT ANNOTATABLE",
        ),
        (
            [([SOURCE_FIX], ""), ([], "error_free"), ([], "not_annotatable")],
            "",
            "no majority among 3 annotators: 1 corrected the sentence, 1 tagged ERROR FREE, "
            "1 tagged NOT ANNOTATABLE",
        ),
    ],
)
def test_status_is_preselected_by_the_annotators_majority(
    answers: list[tuple[list[str], str]], judgement: str, reason: str
) -> None:
    world = make_world()
    submit_all(world, 0, answers)
    task = world.task()
    suggestion = selectors.suggested_status(selectors.merged_candidates(task, with_edits=False))
    assert (suggestion.judgement, suggestion.reason) == (judgement, reason)

    client = Client()
    client.login(username=world.reviewer.username, password=PASSWORD)
    page = client.get(f"/review/t/{task.pk}/").content.decode()
    assert _checked_status(page) == ([judgement] if judgement else [])
    assert reason in page


def test_a_refused_save_keeps_the_reviewers_status_choice() -> None:
    world = make_world()
    submit_all(world, 0, [([], "error_free"), ([], "error_free"), ([SOURCE_FIX], "")])
    task = world.task()
    client = Client()
    client.login(username=world.reviewer.username, password=PASSWORD)
    # No verdict on the correction: refused, and the page comes back with "annotatable" kept.
    response = client.post(
        f"/review/t/{task.pk}/",
        {"version": task.version, "judgement": "annotatable", "edit-0": SOURCE_FIX},
    )
    page = response.content.decode()
    assert "has no verdict" in page
    assert _checked_status(page) == ["annotatable"]


def test_queue_progress_counts_the_reviewers_own_tasks() -> None:
    world = make_world()
    for position in range(3):
        submit_all(world, position, [([SOURCE_FIX], "")] * 3)
    queue = list(selectors.review_queue_for(world.reviewer))
    assert len(queue) == 3
    progress = [selectors.queue_progress(world.reviewer, task) for task in queue]
    assert [(p.number, p.total, p.done) for p in progress if p] == [(1, 3, 0), (2, 3, 0), (3, 3, 0)]

    submit_review(
        task_id=queue[0].pk,
        user=world.reviewer,
        version=queue[0].version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}],
    )
    after = selectors.queue_progress(world.reviewer, ReviewTask.objects.get(pk=queue[1].pk))
    assert after is not None and (after.number, after.total, after.done) == (2, 3, 1)
    done = selectors.queue_progress(world.reviewer, ReviewTask.objects.get(pk=queue[0].pk))
    assert done is not None and (done.number, done.total, done.done) == (1, 3, 1)
    # An admin looking at someone's task sees no queue position of their own.
    assert selectors.queue_progress(world.admin, queue[1]) is None

    client = Client()
    client.login(username=world.reviewer.username, password=PASSWORD)
    page = client.get(f"/review/t/{queue[2].pk}/").content.decode()
    assert "3 of 3</strong> in your review queue · 1 reviewed" in page
    queue_page = client.get("/review/").content.decode()
    assert '<span data-testid="queue-done">1 of 3</span> reviewed' in queue_page


def test_header_names_what_it_shows_and_skips_empty_parts() -> None:
    world = make_world()
    submit_all(world, 0, [([SOURCE_FIX], "")] * 3)
    task = world.task()
    sentence = task.sentence
    sentence.source = None
    sentence.split = ""
    sentence.save()
    client = Client()
    client.login(username=world.reviewer.username, password=PASSWORD)
    page = client.get(f"/review/t/{task.pk}/").content.decode()
    heading = page.split('data-testid="review-heading"')[1].split("</h1>")[0]
    assert f"dataset {world.dataset.name}" in heading
    assert "· ·" not in heading and "source" not in heading and "split" not in heading
    assert "assigned to" not in heading  # the reviewer's own task
    assert 'data-testid="shortcut-legend"' in page

    admin = Client()
    admin.login(username=world.admin.username, password=PASSWORD)
    heading = admin.get(f"/review/t/{task.pk}/").content.decode().split("</h1>")[0].split("<h1")[-1]
    assert f"assigned to {world.reviewer.username}" in heading
