"""Review, golden references, self-study and complaints (services)."""

from __future__ import annotations

import pytest

from annotate.models import Submission
from core.exceptions import Conflict, NotFound, ServiceError
from core.models import AuditLog
from datasets.models import (
    GoldenReference,
    Judgement,
    ReferenceKind,
    ReferenceOrigin,
    SentenceStatus,
)
from review.models import ComplaintStatus, ReviewStatus, StudyItem, StudyReason, StudyStatus
from review.selectors import merged_candidates
from review.services import (
    file_complaint,
    post_complaint_message,
    resolve_complaint,
    submit_study_revision,
)
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

SOURCE = "我昨天去了图书馆借书了三本。"
FIX_A = "我昨天去了图书馆，借了三本书。"
FIX_B = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"


def _loop_world():  # type: ignore[no-untyped-def]
    """Annotator 1 gives two corrections, annotator 2 one (shared with 1), annotator 3 ERROR FREE."""
    world = make_world()
    submit_all(world, 0, [([FIX_B, WRONG], ""), ([FIX_B], ""), ([], "error_free")])
    return world


def test_candidates_are_merged_with_their_support() -> None:
    world = _loop_world()
    candidates = merged_candidates(world.task())
    a1, a2, a3 = (u.username for u in world.annotators)
    summary = [(c.kind, c.text, c.support, c.of, sorted(c.annotators)) for c in candidates]
    assert summary == [
        ("correction", FIX_B, 2, 3, sorted([a1, a2])),
        ("correction", WRONG, 1, 3, [a1]),
        ("error_free", "没有错误", 1, 3, [a3]),
    ]
    # Highlighted edits are the extractor's: FIX_B deletes 了 and moves 书 (non-empty).
    assert candidates[0].edits and all(e["start"] >= 0 for e in candidates[0].edits)


def test_review_writes_golden_references_with_their_origin_and_study_items() -> None:
    world = _loop_world()
    task = world.task()
    outcome = submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[
            {"position": 0, "correct": True},
            {"position": 1, "correct": False, "text": FIX_A},
        ],
        added=["我昨天去图书馆借了三本书回来。"],
    )
    refs = [(r.kind, r.text, r.origin) for r in outcome.references]
    assert refs == [
        (ReferenceKind.CORRECTION, FIX_B, ReferenceOrigin.ANNOTATORS),
        (ReferenceKind.CORRECTION, FIX_A, ReferenceOrigin.EDITED),
        (ReferenceKind.CORRECTION, "我昨天去图书馆借了三本书回来。", ReferenceOrigin.ADDED),
    ]
    sentence = world.sentence()
    assert (sentence.status, sentence.judgement) == (SentenceStatus.REVIEWED, Judgement.ANNOTATABLE)
    task.refresh_from_db()
    assert (task.status, task.version, task.submitted_by_id) == (
        ReviewStatus.DONE,
        1,
        world.reviewer.pk,
    )
    reasons = {item.assignment.annotator_id: item.reason for item in StudyItem.objects.all()}
    a1, a2, a3 = world.annotators
    # a1 had a wrong correction, a3 said ERROR FREE on an annotatable sentence; a2 was right.
    assert reasons == {a1.pk: StudyReason.WRONG_CORRECTION, a3.pk: StudyReason.TAG_DISAGREED}
    verdicts = {(v.text, v.is_correct, v.edited_text) for v in task.verdicts.all()}
    assert verdicts == {(FIX_B, True, ""), (WRONG, False, FIX_A), ("没有错误", False, "")}
    assert AuditLog.objects.filter(action="review.submitted", object_id=str(task.pk)).exists()
    assert AuditLog.objects.filter(action="verdict.recorded").count() == 3
    assert sorted(
        AuditLog.objects.filter(action__startswith="reference.").values_list("action", flat=True)
    ) == ["reference.added", "reference.annotators", "reference.edited"]
    assert a1.notifications.filter(text__startswith="Study").exists()


def test_error_free_review_gives_the_marker_reference() -> None:
    world = make_world()
    submit_all(
        world, 1, [([], "error_free"), ([], "error_free"), (["他对中国的历史非常感兴趣。"], "")]
    )
    task = world.task(1)
    outcome = submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=0,
        judgement="error_free",
        verdicts=[{"position": 0, "correct": False}],
    )
    assert [(r.kind, r.text, r.origin) for r in outcome.references] == [
        (ReferenceKind.ERROR_FREE, "没有错误", ReferenceOrigin.ANNOTATORS)
    ]
    assert [i.assignment.annotator_id for i in outcome.study_items] == [world.annotators[2].pk]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"judgement": "annotatable", "verdicts": [{"position": 0, "correct": True}]},
            "correction 2 has no verdict",
        ),
        (
            {
                "judgement": "annotatable",
                "verdicts": [{"position": 0, "correct": False}, {"position": 1, "correct": False}],
            },
            "has no reference",
        ),
        (
            {
                "judgement": "error_free",
                "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": False}],
            },
            "no correction can be a reference",
        ),
        ({"judgement": "maybe", "verdicts": []}, "choose the sentence status"),
        (
            {"judgement": "annotatable", "verdicts": [{"position": 2, "correct": True}]},
            "not a correction",
        ),
        (
            {"judgement": "annotatable", "verdicts": [{"position": 0, "correct": "yes"}]},
            "true or false",
        ),
        (
            {
                "judgement": "annotatable",
                "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": False}],
                "added": [SOURCE],
            },
            "added reference 1 equals the source",
        ),
        (
            {
                "judgement": "annotatable",
                "verdicts": [{"position": 0, "correct": True}, {"position": 1, "correct": False}],
                "added": ["好\x00"],
            },
            "control character U\\+0000",
        ),
    ],
)
def test_bad_review_input_is_refused_and_nothing_is_written(kwargs, message) -> None:  # type: ignore[no-untyped-def]
    world = _loop_world()
    task = world.task()
    with pytest.raises(ServiceError, match=message):
        submit_review(task_id=task.pk, user=world.reviewer, version=0, **kwargs)
    task.refresh_from_db()
    assert task.status == ReviewStatus.OPEN and task.version == 0
    assert not GoldenReference.objects.exists() and not StudyItem.objects.exists()


def test_two_reviewers_saving_the_same_sentence_one_gets_a_conflict() -> None:
    world = _loop_world()
    task = world.task()
    verdicts = [{"position": 0, "correct": True}, {"position": 1, "correct": False}]
    # Both pages were built on version 0: the assigned reviewer and an admin.
    submit_review(
        task_id=task.pk, user=world.admin, version=0, judgement="annotatable", verdicts=verdicts
    )
    with pytest.raises(Conflict, match="already saved the review"):
        submit_review(
            task_id=task.pk,
            user=world.reviewer,
            version=0,
            judgement="error_free",
            verdicts=[{"position": 0, "correct": False}, {"position": 1, "correct": False}],
        )
    assert GoldenReference.objects.filter(is_current=True).get().text == FIX_B
    assert world.sentence().judgement == Judgement.ANNOTATABLE


def test_other_reviewers_and_annotators_cannot_review() -> None:
    world = _loop_world()
    task = world.task()
    for user in (world.other_reviewer, world.annotators[0]):
        with pytest.raises(NotFound):
            submit_review(
                task_id=task.pk,
                user=user,
                version=0,
                judgement="annotatable",
                verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
            )


def test_a_sentence_still_being_annotated_cannot_be_reviewed() -> None:
    world = make_world()
    with pytest.raises(Conflict, match="not all submitted"):
        submit_review(
            task_id=world.task(2).pk,
            user=world.reviewer,
            version=0,
            judgement="error_free",
            verdicts=[],
        )


def _reviewed_world():  # type: ignore[no-untyped-def]
    world = _loop_world()
    submit_review(
        task_id=world.task().pk,
        user=world.reviewer,
        version=0,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )
    return world


def test_study_revision_is_a_new_revision_and_the_first_is_kept() -> None:
    world = _reviewed_world()
    a1 = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=a1)
    revision = submit_study_revision(item_id=item.pk, user=a1, texts=[FIX_B])
    assert revision.revision == 2
    first = Submission.objects.get(assignment=item.assignment, revision=1)
    assert [c.text for c in first.corrections.all()] == [FIX_B, WRONG]
    item.refresh_from_db()
    assert (item.status, item.revision_id) == (StudyStatus.DONE, revision.pk)
    with pytest.raises(Conflict, match="already revised"):
        submit_study_revision(item_id=item.pk, user=a1, texts=[FIX_A])
    with pytest.raises(NotFound):
        submit_study_revision(
            item_id=StudyItem.objects.get(assignment__annotator=world.annotators[2]).pk,
            user=a1,
            texts=[FIX_A],
        )


def test_complaint_thread_and_accepted_resolution_revise_the_references_keeping_the_old() -> None:
    world = _reviewed_world()
    a1 = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=a1)
    reference = GoldenReference.objects.get(is_current=True)
    complaint = file_complaint(
        item_id=item.pk,
        user=a1,
        reference_id=reference.pk,
        text="“借书了三本” also needs the comma version.",
    )
    assert world.reviewer.notifications.filter(text__contains="complained").exists()
    with pytest.raises(Conflict, match="open complaint"):
        file_complaint(item_id=item.pk, user=a1, text="again")
    post_complaint_message(complaint_id=complaint.pk, user=world.reviewer, text="Which comma?")
    post_complaint_message(complaint_id=complaint.pk, user=a1, text="After 图书馆.")
    with pytest.raises(NotFound):
        post_complaint_message(complaint_id=complaint.pk, user=world.annotators[1], text="me too")
    with pytest.raises(NotFound):  # an annotator cannot resolve their own complaint
        resolve_complaint(complaint_id=complaint.pk, user=a1, accept=True, references=[FIX_A])
    resolved = resolve_complaint(
        complaint_id=complaint.pk,
        user=world.reviewer,
        accept=True,
        references=[FIX_B, FIX_A],
        note="Added.",
    )
    assert resolved.status == ComplaintStatus.ACCEPTED
    current = list(GoldenReference.objects.filter(is_current=True).order_by("position"))
    assert [(r.revision, r.text, r.origin) for r in current] == [
        (2, FIX_B, ReferenceOrigin.ANNOTATORS),
        (2, FIX_A, ReferenceOrigin.COMPLAINT),
    ]
    old = GoldenReference.objects.get(revision=1)
    assert (old.text, old.is_current) == (FIX_B, False)
    assert a1.notifications.filter(text__contains="accepted").exists()
    assert complaint.messages.count() == 3
    with pytest.raises(Conflict):
        post_complaint_message(complaint_id=complaint.pk, user=a1, text="thanks")
    assert AuditLog.objects.filter(action="complaint.resolved").count() == 1


def test_rejected_complaint_leaves_the_references() -> None:
    world = _reviewed_world()
    a3 = world.annotators[2]
    item = StudyItem.objects.get(assignment__annotator=a3)
    complaint = file_complaint(item_id=item.pk, user=a3, text="It has no error.")
    resolve_complaint(
        complaint_id=complaint.pk, user=world.admin, accept=False, note="了 is misplaced."
    )
    assert GoldenReference.objects.filter(is_current=True).count() == 1
    assert a3.notifications.filter(text__contains="rejected").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("  ", "empty"), ("x" * 5000, "at most 4000"), ("bad\x1b[31m", "U\\+001B")],
)
def test_bad_complaint_text_is_refused(text, message) -> None:  # type: ignore[no-untyped-def]
    world = _reviewed_world()
    a1 = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=a1)
    with pytest.raises(ServiceError, match=message):
        file_complaint(item_id=item.pk, user=a1, text=text)


def test_admin_reassigns_an_unsaved_review_and_the_old_page_cannot_save() -> None:
    from core.roles import Role
    from review.services import reassign_review
    from tests.factories import make_user

    world = _loop_world()
    spare = make_user(Role.REVIEWER)
    world.dataset.reviewers.add(spare)
    task = reassign_review(task_id=world.task().pk, by=world.admin)
    assert task.reviewer_id == spare.pk and task.version == 1
    with pytest.raises(NotFound):  # the previous reviewer no longer sees it
        submit_review(
            task_id=task.pk,
            user=world.reviewer,
            version=0,
            judgement="annotatable",
            verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
        )
    with pytest.raises(NotFound):
        reassign_review(task_id=task.pk, by=world.reviewer)
    world.dataset.reviewers.remove(world.reviewer)
    with pytest.raises(ServiceError, match="no other reviewer"):
        reassign_review(task_id=task.pk, by=world.admin)
    assert AuditLog.objects.filter(action="review.reassigned").count() == 1
    assert spare.notifications.filter(text__contains="reassigned to you").exists()
