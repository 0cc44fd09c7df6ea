"""Read-only queries for review, self-study and complaints.

Visibility: a reviewer sees only their own review tasks (admins see all); an annotator sees
golden references only through their own study items; a complaint is visible to its author,
the reviewer of its sentence and admins. Anything else is NotFound (404), never data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from annotate.models import AssignmentStatus, Submission, SubmissionTag
from core.exceptions import NotFound
from core.roles import Role, has_role
from datasets.extraction import (
    ReviewGrid,
    Segment,
    chunk_grid_between,
    diff_segments,
    edits_between,
)
from datasets.models import GoldenReference, ReferenceKind
from review.models import Complaint, ReviewStatus, ReviewTask, StudyItem

NO_ERROR_TEXT = "没有错误"
NOT_ANNOTATABLE_TEXT = "无法标注"
MARKER_TEXT = {
    ReferenceKind.ERROR_FREE: NO_ERROR_TEXT,
    ReferenceKind.NOT_ANNOTATABLE: NOT_ANNOTATABLE_TEXT,
}
TAG_KIND = {
    SubmissionTag.ERROR_FREE: ReferenceKind.ERROR_FREE,
    SubmissionTag.NOT_ANNOTATABLE: ReferenceKind.NOT_ANNOTATABLE,
}


def _as_id(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise NotFound("no such object") from None


# --- review tasks ------------------------------------------------------------------------


def review_tasks_for(user: Any) -> QuerySet[ReviewTask]:
    """Admins see every task; a reviewer their own; anyone else nothing."""
    tasks = ReviewTask.objects.select_related(
        "sentence", "sentence__dataset", "sentence__source", "reviewer"
    )
    if has_role(user, Role.ADMIN):
        return tasks
    if has_role(user, Role.REVIEWER):
        return tasks.filter(reviewer_id=user.pk)
    return ReviewTask.objects.none()


def review_queue_for(user: Any) -> QuerySet[ReviewTask]:
    """Tasks ready for review, for the user as the assigned reviewer."""
    return (
        ReviewTask.objects.filter(reviewer_id=user.pk, status=ReviewStatus.OPEN)
        .select_related("sentence", "sentence__dataset")
        .order_by("opened_at", "id")
        if has_role(user, Role.REVIEWER)
        else ReviewTask.objects.none()
    )


def stale_review_tasks(*, opened_before: Any) -> QuerySet[ReviewTask]:
    """Reviews ready since before `opened_before` and still not saved."""
    return (
        ReviewTask.objects.filter(status=ReviewStatus.OPEN, opened_at__lt=opened_before)
        .select_related("sentence", "sentence__dataset", "reviewer")
        .order_by("opened_at", "id")
    )


def get_review_task_for(user: Any, task_id: Any) -> ReviewTask:
    try:
        return review_tasks_for(user).get(pk=_as_id(task_id))
    except ReviewTask.DoesNotExist:
        raise NotFound("no such review task among yours") from None


@dataclass
class Candidate:
    """One distinct correction (or tag) of a sentence with the annotators who gave it."""

    position: int
    kind: str
    text: str
    annotators: list[str]
    submission_ids: list[int]
    support: int
    of: int
    edits: list[dict[str, Any]] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)

    @property
    def is_correction(self) -> bool:
        return self.kind == ReferenceKind.CORRECTION


def first_submissions(task: ReviewTask) -> list[Submission]:
    """The original (revision 1) submission of every live assignment of the sentence."""
    return list(
        Submission.objects.filter(
            assignment__sentence_id=task.sentence_id,
            revision=1,
        )
        .exclude(assignment__status=AssignmentStatus.WITHDRAWN)
        .select_related("assignment__annotator")
        .prefetch_related("corrections")
        .order_by("assignment_id")
    )


def merged_candidates(task: ReviewTask, *, with_edits: bool = True) -> list[Candidate]:
    """All corrections of the sentence merged and deduplicated, most supported first.

    Identical texts from different annotators become one candidate whose support counts
    distinct annotators; the order (support, then first appearance) is deterministic, so a
    candidate's position names the same candidate on the page and in the saved verdicts.
    """
    source = task.sentence.text
    language = task.sentence.dataset.language
    submissions = first_submissions(task)
    merged: dict[tuple[str, str], Candidate] = {}
    order: list[tuple[str, str]] = []
    for submission in submissions:
        if submission.tag:
            kind = TAG_KIND[SubmissionTag(submission.tag)]
            keys = [(str(kind), MARKER_TEXT[kind])]
        else:
            keys = [(str(ReferenceKind.CORRECTION), c.text) for c in submission.corrections.all()]
        for key in keys:
            if key not in merged:
                merged[key] = Candidate(0, key[0], key[1], [], [], 0, len(submissions))
                order.append(key)
            candidate = merged[key]
            username = submission.assignment.annotator.username
            if username not in candidate.annotators:
                candidate.annotators.append(username)
                candidate.support += 1
            candidate.submission_ids.append(submission.pk)
    # Corrections before tags; within each, most supported first, then first given.
    ranked = sorted(
        order,
        key=lambda key: (
            key[0] != ReferenceKind.CORRECTION,
            -merged[key].support,
            order.index(key),
        ),
    )
    result = []
    for position, key in enumerate(ranked):
        candidate = merged[key]
        candidate.position = position
        if with_edits and candidate.is_correction:
            candidate.edits = edits_between(source, candidate.text, language=language)
            candidate.segments = diff_segments(source, candidate.edits, language=language)
        result.append(candidate)
    return result


def chunk_grid_for(
    source: str, candidates: list[Candidate], *, language: str = "zh"
) -> ReviewGrid | None:
    """The review grid: every merged correction as a row, aligned on shared chunks."""
    corrections = [c for c in candidates if c.is_correction]
    if len(corrections) < 2:
        return None  # one correction has nothing to be compared with
    return chunk_grid_between(
        source,
        [(f"#{c.position + 1} ({c.support}/{c.of})", c.text) for c in corrections],
        language=language,
    )


# --- golden references -------------------------------------------------------------------


def current_references(sentence_id: int) -> list[GoldenReference]:
    return list(
        GoldenReference.objects.filter(sentence_id=sentence_id, is_current=True).order_by(
            "position"
        )
    )


@dataclass
class ShownReference:
    reference: GoldenReference
    edits: list[dict[str, Any]]
    segments: list[Segment]


def references_with_edits(sentence: Any) -> list[ShownReference]:
    shown = []
    for reference in current_references(sentence.pk):
        if reference.kind == ReferenceKind.CORRECTION:
            language = sentence.dataset.language
            edits = edits_between(sentence.text, reference.text, language=language)
            shown.append(
                ShownReference(
                    reference, edits, diff_segments(sentence.text, edits, language=language)
                )
            )
        else:
            shown.append(ShownReference(reference, [], []))
    return shown


# --- self-study ----------------------------------------------------------------------------


def study_items_for(user: Any) -> QuerySet[StudyItem]:
    if not has_role(user, Role.ANNOTATOR):
        return StudyItem.objects.none()
    return StudyItem.objects.filter(assignment__annotator_id=user.pk).select_related(
        "assignment", "assignment__sentence", "assignment__sentence__dataset", "task"
    )


def get_study_item_for(user: Any, item_id: Any) -> StudyItem:
    try:
        return study_items_for(user).get(pk=_as_id(item_id))
    except StudyItem.DoesNotExist:
        raise NotFound("no such study item among yours") from None


# --- complaints ----------------------------------------------------------------------------


def complaints_for(user: Any) -> QuerySet[Complaint]:
    complaints = Complaint.objects.select_related(
        "author", "reference", "study_item__task__sentence", "study_item__task__reviewer"
    )
    if has_role(user, Role.ADMIN):
        return complaints
    if not getattr(user, "is_authenticated", False):
        return Complaint.objects.none()
    visible = Q(pk__in=[])
    if has_role(user, Role.ANNOTATOR):
        visible |= Q(author_id=user.pk)
    if has_role(user, Role.REVIEWER):
        visible |= Q(study_item__task__reviewer_id=user.pk)
    return complaints.filter(visible)


def get_complaint_for(user: Any, complaint_id: Any) -> Complaint:
    try:
        return complaints_for(user).get(pk=_as_id(complaint_id))
    except Complaint.DoesNotExist:
        raise NotFound("no such complaint among yours") from None


def can_resolve(user: Any, complaint: Complaint) -> bool:
    return has_role(user, Role.ADMIN) or (
        has_role(user, Role.REVIEWER) and complaint.study_item.task.reviewer_id == user.pk
    )
