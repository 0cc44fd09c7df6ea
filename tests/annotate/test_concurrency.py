"""Concurrent writers: many annotators at once, double-clicked submits, racing reviewers.

Runs on PostgreSQL (row locks and the conditional version UPDATE) when DATABASE_URL points at
one, and on a file SQLite test database (IMMEDIATE transactions serialise writers).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from annotate.models import AssignmentStatus, Correction, Submission
from annotate.services import submit_correction
from core.exceptions import Conflict
from core.models import AuditLog
from datasets.models import GoldenReference
from review.models import ReviewStatus, ReviewTask
from review.verdicts import submit_review
from tests.annotate.workflow import make_world


def _in_memory_sqlite() -> bool:
    return connection.vendor == "sqlite" and connection.is_in_memory_db()


pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _real_database(transactional_db: None) -> None:
    # The in-memory SQLite test database shares one cache between threads and answers a second
    # writer with "table is locked" at once (no busy wait), so real concurrency cannot be shown
    # there; a file database (WAL + IMMEDIATE, as the product runs) or PostgreSQL can. Checked
    # after the test database exists (before, the settings still name the file database).
    if _in_memory_sqlite():
        pytest.skip("needs PostgreSQL (DATABASE_URL) or a file SQLite test database")


def _race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Start all calls together; return each result or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except Exception as error:  # noqa: BLE001 - the test inspects what each thread got
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_many_annotators_submitting_at_once_lose_nothing() -> None:
    sentences = [f"这是第{i}个句子有错误。" for i in range(6)]
    world = make_world(sentences=sentences, k=3)
    calls = []
    for position in range(len(sentences)):
        for user in world.annotators:
            assignment_id = world.assignment(user, position).pk

            def call(
                assignment_id: int = assignment_id, user: Any = user, position: int = position
            ) -> Any:
                return submit_correction(
                    assignment_id=assignment_id,
                    user=user,
                    texts=[f"这是第{position}个句子，{user.username}改的。"],
                )

            calls.append(call)
    results = _race(calls)
    assert [r for r in results if isinstance(r, Exception)] == []
    assert Submission.objects.count() == 18
    assert Correction.objects.count() == 18
    assert AuditLog.objects.filter(action="submission.created").count() == 18
    assert set(world.dataset.sentences.values_list("status", flat=True)) == {"in_review"}
    assert ReviewTask.objects.filter(status=ReviewStatus.OPEN).count() == 6
    assert world.reviewer.notifications.count() == 6  # each review opened exactly once


def test_double_clicked_submit_creates_one_submission() -> None:
    world = make_world()
    user = world.annotators[0]
    assignment_id = world.assignment(user).pk
    results = _race(
        [
            lambda: submit_correction(
                assignment_id=assignment_id, user=user, texts=["我昨天去图书馆借了三本书。"]
            ),
            lambda: submit_correction(
                assignment_id=assignment_id, user=user, texts=["我昨天去图书馆借了三本书。"]
            ),
            lambda: submit_correction(
                assignment_id=assignment_id, user=user, texts=["我昨天去图书馆借了三本书。"]
            ),
        ]
    )
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(conflicts) == 2 and "already submitted" in conflicts[0].message
    assert Submission.objects.filter(assignment_id=assignment_id).count() == 1
    assert world.assignment(user).status == AssignmentStatus.SUBMITTED


def test_two_reviewers_racing_on_one_sentence_one_wins_one_gets_a_conflict() -> None:
    world = make_world()
    for user in world.annotators:
        submit_correction(
            assignment_id=world.assignment(user).pk, user=user, texts=["我昨天去图书馆借了三本书。"]
        )
    task_id = world.task().pk
    results = _race(
        [
            lambda: submit_review(
                task_id=task_id,
                user=world.reviewer,
                version=0,
                judgement="annotatable",
                verdicts=[{"position": 0, "correct": True}],
            ),
            lambda: submit_review(
                task_id=task_id,
                user=world.admin,
                version=0,
                judgement="annotatable",
                verdicts=[
                    {"position": 0, "correct": False, "text": "我昨天去图书馆借了三本书回来。"}
                ],
            ),
        ]
    )
    conflicts = [r for r in results if isinstance(r, Conflict)]
    winners = [r for r in results if not isinstance(r, Exception)]
    assert len(conflicts) == 1 and len(winners) == 1, results
    assert "reload" in conflicts[0].message.lower()
    assert GoldenReference.objects.filter(is_current=True).count() == 1
    assert GoldenReference.objects.get().text == winners[0].references[0].text
    assert world.task().version == 1
