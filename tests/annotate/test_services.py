"""Assignment, submission and reassignment services."""

from __future__ import annotations

from collections import Counter

import pytest

from annotate.models import Assignment, AssignmentStatus, Submission, SubmissionTag
from annotate.services import (
    MAX_CORRECTION_CHARS,
    next_assignment,
    reassign_assignment,
    submit_correction,
)
from core.exceptions import Conflict, NotFound, ServiceError
from core.models import AuditLog
from core.roles import Role
from datasets.models import SentenceStatus
from review import workflow
from review.models import ReviewStatus, ReviewTask
from review.workflow import assign_dataset
from tests.annotate.workflow import make_world, submit_all
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

SOURCE = "我昨天去了图书馆借书了三本。"


def _pools(n_annotators: int, n_reviewers: int = 2):  # type: ignore[no-untyped-def]
    annotators = [make_user(Role.ANNOTATOR) for _ in range(n_annotators)]
    reviewers = [make_user(Role.REVIEWER) for _ in range(n_reviewers)]
    return annotators, reviewers


def _mapping(dataset) -> dict[int, set[int]]:  # type: ignore[no-untyped-def]
    result: dict[int, set[int]] = {}
    for a in Assignment.objects.filter(sentence__dataset=dataset):
        result.setdefault(a.sentence.position, set()).add(a.annotator_id)
    return result


def test_each_sentence_gets_k_distinct_annotators_balanced_across_the_pool() -> None:
    annotators, reviewers = _pools(5)
    dataset = make_dataset(sentences=[f"句子{i}。" for i in range(10)], k=3)
    dataset.annotators.set(annotators)
    dataset.reviewers.set(reviewers)
    summary = assign_dataset(dataset=dataset, seed=1, by=None)
    assert (summary.sentences, summary.assignments, summary.review_tasks) == (10, 30, 10)
    mapping = _mapping(dataset)
    assert all(len(users) == 3 for users in mapping.values())
    load = Counter(
        Assignment.objects.filter(sentence__dataset=dataset).values_list("annotator_id", flat=True)
    )
    # 30 assignments over 5 annotators: balanced means exactly 6 each.
    assert sorted(load.values()) == [6, 6, 6, 6, 6]
    reviewer_load = Counter(
        ReviewTask.objects.filter(sentence__dataset=dataset).values_list("reviewer_id", flat=True)
    )
    assert sorted(reviewer_load.values()) == [5, 5]
    assert set(dataset.sentences.values_list("status", flat=True)) == {SentenceStatus.ANNOTATING}


def test_assignment_is_reproducible_with_the_same_seed_and_differs_with_another() -> None:
    annotators, reviewers = _pools(6)

    def run(seed: int) -> dict[int, set[int]]:
        dataset = make_dataset(sentences=[f"句子{i}。" for i in range(12)], k=3)
        dataset.annotators.set(annotators)
        dataset.reviewers.set(reviewers)
        assign_dataset(dataset=dataset, seed=seed, by=None)
        return _mapping(dataset)

    assert run(42) == run(42)
    assert run(42) != run(43)


def test_assigning_chunk_by_chunk_gives_the_assignment_of_one_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    annotators, reviewers = _pools(5, 3)

    def run() -> tuple[dict[int, set[int]], dict[int, int], int]:
        dataset = make_dataset(sentences=[f"句子{i}。" for i in range(11)], k=3)
        dataset.annotators.set(annotators)
        dataset.reviewers.set(reviewers)
        summary = assign_dataset(dataset=dataset, seed=5, by=None)
        tasks = ReviewTask.objects.filter(sentence__dataset=dataset)
        assert set(dataset.sentences.values_list("status", flat=True)) == {
            SentenceStatus.ANNOTATING
        }
        return (
            _mapping(dataset),
            {t.sentence.position: t.reviewer_id for t in tasks},
            summary.assignments,
        )

    whole = run()
    monkeypatch.setattr(workflow, "ASSIGN_CHUNK_SENTENCES", 4)  # three chunks: 4 + 4 + 3
    assert run() == whole
    assert len(whole[0]) == len(whole[1]) == 11 and whole[2] == 33


def test_a_sentence_without_a_possible_reviewer_names_itself_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Three users in both pools and k = 3: no sentence can have a reviewer.
    users = [make_user(Role.ANNOTATOR, Role.REVIEWER) for _ in range(3)]
    dataset = make_dataset(sentences=[f"句子{i}。" for i in range(5)], k=3)
    dataset.annotators.set(users)
    dataset.reviewers.set(users)
    monkeypatch.setattr(workflow, "ASSIGN_CHUNK_SENTENCES", 1)
    with pytest.raises(
        ServiceError, match="sentence [1-5]: every reviewer in the pool is also one of its"
    ):
        assign_dataset(dataset=dataset, seed=0, by=None)
    assert not Assignment.objects.exists() and not ReviewTask.objects.exists()
    assert set(dataset.sentences.values_list("status", flat=True)) == {SentenceStatus.PENDING}


def test_reviewer_never_reviews_a_sentence_they_annotated() -> None:
    # Everyone is in both pools: the reviewer must still be someone else.
    users = [make_user(Role.ANNOTATOR, Role.REVIEWER) for _ in range(4)]
    dataset = make_dataset(sentences=[f"句子{i}。" for i in range(8)], k=3)
    dataset.annotators.set(users)
    dataset.reviewers.set(users)
    assign_dataset(dataset=dataset, seed=3, by=None)
    for task in ReviewTask.objects.filter(sentence__dataset=dataset):
        annotators = set(task.sentence.assignments.values_list("annotator_id", flat=True))
        assert task.reviewer_id not in annotators


def test_assigning_with_too_small_a_pool_names_the_problem() -> None:
    annotators, reviewers = _pools(2)
    dataset = make_dataset(sentences=["句子。"], k=3)
    dataset.annotators.set(annotators)
    dataset.reviewers.set(reviewers)
    with pytest.raises(ServiceError, match="needs 3 distinct annotators.*has 2"):
        assign_dataset(dataset=dataset, seed=0, by=None)
    assert not Assignment.objects.exists()


def test_assigning_twice_does_not_duplicate() -> None:
    world = make_world()
    summary = assign_dataset(dataset=world.dataset, seed=99, by=world.admin)
    assert summary.assignments == 0
    assert Assignment.objects.filter(sentence__dataset=world.dataset).count() == 9


def test_submission_is_recorded_and_review_opens_after_the_kth() -> None:
    world = make_world()
    a1, a2, a3 = world.annotators
    submit_correction(
        assignment_id=world.assignment(a1).pk, user=a1, texts=["我昨天去了图书馆借了三本书。"]
    )
    submit_correction(assignment_id=world.assignment(a2).pk, user=a2, texts=[SOURCE])
    assert world.task().status == ReviewStatus.WAITING
    submit_correction(
        assignment_id=world.assignment(a3).pk, user=a3, texts=[], tag="not_annotatable"
    )
    assert world.task().status == ReviewStatus.OPEN
    assert world.sentence().status == SentenceStatus.IN_REVIEW
    first = Submission.objects.get(assignment=world.assignment(a1))
    assert first.revision == 1 and [c.text for c in first.corrections.all()] == [
        "我昨天去了图书馆借了三本书。"
    ]
    # A single box equal to the source is ERROR FREE.
    assert Submission.objects.get(assignment=world.assignment(a2)).tag == SubmissionTag.ERROR_FREE
    assert AuditLog.objects.filter(action="submission.created").count() == 3
    assert world.reviewer.notifications.filter(text__contains="ready for review").exists()


def test_duplicate_boxes_are_merged_with_a_note() -> None:
    world = make_world()
    a1 = world.annotators[0]
    result = submit_correction(
        assignment_id=world.assignment(a1).pk,
        user=a1,
        texts=[
            "我昨天去图书馆借了三本书。",
            " 我昨天去图书馆借了三本书。 ",
            "我昨天去图书馆借书三本。",
        ],
    )
    assert [c.text for c in result.submission.corrections.all()] == [
        "我昨天去图书馆借了三本书。",
        "我昨天去图书馆借书三本。",
    ]
    assert result.notes == ["correction 2 duplicated correction 1 and was merged"]


@pytest.mark.parametrize(
    ("texts", "tag", "message"),
    [
        (["我昨天去图书馆借了三本书。", "  "], "", "correction 2 is empty"),
        ([], "", "give at least one correction"),
        (["x" * (MAX_CORRECTION_CHARS + 1)], "", "above the maximum sentence length"),
        (["我昨天去图书馆\x07借了三本书。"], "", "control character U\\+0007 at position 8"),
        (["我昨天去图书馆\n借了三本书。"], "", "control character U\\+000A"),
        (["我昨天去图书馆\u200b借了三本书。"], "", "control character U\\+200B"),
        (["我昨天去图书馆借了三本书。"], "error_free", "cannot carry corrections"),
        (["我昨天去图书馆借了三本书。", SOURCE], "", "correction 2 is identical to the source"),
        ([], "maybe", "tag 'maybe' is unknown"),
        ("我昨天去图书馆借了三本书。", "", "texts must be a list"),
    ],
)
def test_bad_input_gets_a_clear_error_and_writes_nothing(texts, tag, message) -> None:  # type: ignore[no-untyped-def]
    world = make_world()
    a1 = world.annotators[0]
    with pytest.raises(ServiceError, match=message):
        submit_correction(assignment_id=world.assignment(a1).pk, user=a1, texts=texts, tag=tag)
    assert not Submission.objects.exists()
    assert world.assignment(a1).status == AssignmentStatus.OPEN


def test_double_submit_creates_one_submission() -> None:
    world = make_world()
    a1 = world.annotators[0]
    assignment_id = world.assignment(a1).pk
    submit_correction(assignment_id=assignment_id, user=a1, texts=["我昨天去图书馆借了三本书。"])
    with pytest.raises(Conflict, match="already submitted"):
        submit_correction(assignment_id=assignment_id, user=a1, texts=["我昨天借了三本书。"])
    assert Submission.objects.filter(assignment_id=assignment_id).count() == 1
    assert (
        Submission.objects.get(assignment_id=assignment_id).corrections.get().text
        == "我昨天去图书馆借了三本书。"
    )


def test_submitting_for_someone_elses_assignment_is_not_found() -> None:
    world = make_world()
    a1, a2, _ = world.annotators
    with pytest.raises(NotFound):
        submit_correction(
            assignment_id=world.assignment(a1).pk, user=a2, texts=["我昨天借了三本书。"]
        )
    with pytest.raises(NotFound):
        submit_correction(
            assignment_id=world.assignment(a1).pk, user=world.reviewer, texts=["我昨天借了三本书。"]
        )
    with pytest.raises(NotFound):
        submit_correction(assignment_id=10**9, user=a1, texts=["我昨天借了三本书。"])
    assert not Submission.objects.exists()


def test_reassignment_withdraws_the_old_and_closes_it_for_submission() -> None:
    world = make_world()
    a1 = world.annotators[0]
    extra = make_user(Role.ANNOTATOR)
    world.dataset.annotators.add(extra)
    old = world.assignment(a1)
    replacement = reassign_assignment(assignment_id=old.pk, by=world.admin, seed=0)
    assert replacement.annotator_id == extra.pk  # the only pool member free for this sentence
    old.refresh_from_db()
    assert old.status == AssignmentStatus.WITHDRAWN
    with pytest.raises(Conflict, match="closed"):
        submit_correction(assignment_id=old.pk, user=a1, texts=["我昨天借了三本书。"])
    assert AuditLog.objects.filter(action="assignment.reassigned", object_id=str(old.pk)).exists()
    # Nobody else is free now: a clear error, not a duplicate assignment.
    with pytest.raises(ServiceError, match="no other annotator"):
        reassign_assignment(assignment_id=world.assignment(world.annotators[1]).pk, by=world.admin)


def test_reassignment_refuses_the_reviewer_and_non_admins() -> None:
    world = make_world()
    world.dataset.annotators.add(world.reviewer)
    with pytest.raises(ServiceError, match="already annotates or reviews"):
        reassign_assignment(
            assignment_id=world.assignment(world.annotators[0]).pk,
            by=world.admin,
            to_user=world.reviewer,
        )
    with pytest.raises(NotFound):
        reassign_assignment(
            assignment_id=world.assignment(world.annotators[0]).pk, by=world.annotators[1]
        )


def test_next_sentence_returns_the_started_one_first_then_none_when_done() -> None:
    world = make_world()
    a1 = world.annotators[0]
    first = next_assignment(user=a1)
    assert first is not None and first.sentence.position == 0
    assert next_assignment(user=a1).pk == first.pk  # a reload does not skip it
    for position in range(3):
        submit_correction(
            assignment_id=world.assignment(a1, position).pk, user=a1, texts=[], tag="error_free"
        )
    assert next_assignment(user=a1) is None
    assert next_assignment(user=world.outsider) is None


def test_review_opens_once_when_all_submit() -> None:
    world = make_world()
    submit_all(world, 0, [([], "error_free")] * 3)
    assert ReviewTask.objects.filter(status=ReviewStatus.OPEN).count() == 1
