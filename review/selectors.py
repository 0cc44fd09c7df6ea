"""Read-only queries for review, self-study and complaints.

Visibility: a reviewer sees only their own review tasks (admins see all); an annotator sees
golden references only through their own study items; a complaint is visible to its author,
the reviewer of its sentence and admins. Anything else is NotFound (404), never data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet

from annotate.models import Assignment, AssignmentStatus, Submission, SubmissionTag
from annotate.suggestions import Provenance
from core.exceptions import NotFound
from core.models import User
from core.roles import Role, has_role
from datasets.extraction import (
    ReviewGrid,
    Segment,
    chunk_grid_between,
    diff_segments,
    edits_between,
)
from datasets.models import Dataset, GoldenReference, Judgement, ReferenceKind
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
    # One row per supporting submission: what its annotator was shown and how far they moved
    # from it (post-edit annotation), and their active seconds.
    provenance: list[Provenance] = field(default_factory=list)

    @property
    def provenance_shown(self) -> list[Provenance]:
        """The provenance rows, when some annotator was in post-edit mode (else nothing to
        say: everyone typed from the source)."""
        return self.provenance if any(p.shown for p in self.provenance) else []

    @property
    def is_correction(self) -> bool:
        return self.kind == ReferenceKind.CORRECTION

    @property
    def label(self) -> str:
        """What a person reads for a tag: the annotators' button ("ERROR FREE"), never the
        stored value ("error_free") or the marker beside it."""
        return str(SubmissionTag(self.kind).label) if not self.is_correction else self.text


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
        corrections: dict[str, Any] = {}
        if submission.tag:
            kind = TAG_KIND[SubmissionTag(submission.tag)]
            keys = [(str(kind), MARKER_TEXT[kind])]
        else:
            corrections = {c.text: c for c in submission.corrections.all()}
            keys = [(str(ReferenceKind.CORRECTION), text) for text in corrections]
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
            candidate.provenance.append(
                Provenance.of(submission, corrections.get(key[1]), annotator=username)
            )
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
        "author",
        "reference",
        "study_item__task__sentence__dataset",
        "study_item__task__reviewer",
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


# --- annotation projects (admin): who is assigned what --------------------------------------


def project_list() -> QuerySet[Dataset]:
    """Every dataset with its pool sizes (active members) and sentence count."""
    return Dataset.objects.order_by("name").annotate(
        annotator_count=Count("annotators", filter=Q(annotators__is_active=True), distinct=True),
        reviewer_count=Count("reviewers", filter=Q(reviewers__is_active=True), distinct=True),
        sentence_count=Count("sentences", distinct=True),
    )


@dataclass
class MemberLoad:
    """One person's share of a dataset's work, in either pool (or holding work while out)."""

    user: Any
    in_annotator_pool: bool
    in_reviewer_pool: bool
    open: int = 0
    submitted: int = 0
    withdrawn: int = 0
    reviews_waiting: int = 0
    reviews_open: int = 0
    reviews_done: int = 0


def project_members(dataset: Any) -> list[MemberLoad]:
    """Pool members and anyone else holding work of `dataset`, with their counts."""
    annotator_ids = set(dataset.annotators.values_list("pk", flat=True))
    reviewer_ids = set(dataset.reviewers.values_list("pk", flat=True))
    assignment_counts = (
        Assignment.objects.filter(sentence__dataset=dataset)
        .values("annotator_id")
        .annotate(
            open=Count("id", filter=Q(status=AssignmentStatus.OPEN)),
            submitted=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
            withdrawn=Count("id", filter=Q(status=AssignmentStatus.WITHDRAWN)),
        )
    )
    review_counts = (
        ReviewTask.objects.filter(sentence__dataset=dataset)
        .values("reviewer_id")
        .annotate(
            waiting=Count("id", filter=Q(status=ReviewStatus.WAITING)),
            open=Count("id", filter=Q(status=ReviewStatus.OPEN)),
            done=Count("id", filter=Q(status=ReviewStatus.DONE)),
        )
    )
    by_annotator: dict[int, dict[str, Any]] = {
        row["annotator_id"]: dict(row) for row in assignment_counts
    }
    by_reviewer: dict[int, dict[str, Any]] = {
        row["reviewer_id"]: dict(row) for row in review_counts
    }
    ids = annotator_ids | reviewer_ids | set(by_annotator) | set(by_reviewer)
    members = []
    for user in User.objects.filter(pk__in=ids).order_by("username"):
        work = by_annotator.get(user.pk, {})
        reviews = by_reviewer.get(user.pk, {})
        members.append(
            MemberLoad(
                user=user,
                in_annotator_pool=user.pk in annotator_ids,
                in_reviewer_pool=user.pk in reviewer_ids,
                open=work.get("open", 0),
                submitted=work.get("submitted", 0),
                withdrawn=work.get("withdrawn", 0),
                reviews_waiting=reviews.get("waiting", 0),
                reviews_open=reviews.get("open", 0),
                reviews_done=reviews.get("done", 0),
            )
        )
    return members


@dataclass(frozen=True)
class SentenceHolders:
    sentence: Any
    annotators: list[tuple[str, str]]  # (username, assignment status), withdrawn left out
    reviewer: str
    review_status: str


def sentence_holders(dataset: Any, *, limit: int = 100) -> list[SentenceHolders]:
    """The first `limit` assigned sentences of `dataset` with who annotates and reviews them."""
    sentences = list(
        dataset.sentences.filter(assignments__isnull=False)
        .distinct()
        .order_by("position")
        .select_related("review_task__reviewer")
        .prefetch_related("assignments__annotator")[:limit]
    )
    rows = []
    for sentence in sentences:
        holders = [
            (a.annotator.username, a.status)
            for a in sorted(sentence.assignments.all(), key=lambda a: a.pk)
            if a.status != AssignmentStatus.WITHDRAWN
        ]
        task = getattr(sentence, "review_task", None)
        rows.append(
            SentenceHolders(
                sentence=sentence,
                annotators=holders,
                reviewer=task.reviewer.username if task else "",
                review_status=task.status if task else "",
            )
        )
    return rows


def overdue_review_tasks(*, now: Any) -> QuerySet[ReviewTask]:
    """Reviews ready for longer than their dataset's deadline (`stale_after_hours`)."""
    condition = Q(pk__in=[])
    for dataset_id, hours in Dataset.objects.values_list("pk", "stale_after_hours"):
        condition |= Q(sentence__dataset_id=dataset_id, opened_at__lt=now - timedelta(hours=hours))
    return (
        ReviewTask.objects.filter(status=ReviewStatus.OPEN)
        .filter(condition)
        .select_related("sentence", "sentence__dataset", "reviewer")
        .order_by("opened_at", "id")
    )


# --- the review page at annotator speed -------------------------------------------------------


@dataclass(frozen=True)
class QueueProgress:
    """ "n of m": this task's place among the reviewer's tasks that are ready or done."""

    number: int
    total: int
    done: int


def queue_progress(user: Any, task: ReviewTask) -> QueueProgress | None:
    """Where `task` stands in the reviewer's own queue (done first, then the open ones in
    queue order); None when it is not the user's task (an admin looking in)."""
    if task.reviewer_id != getattr(user, "pk", None):
        return None
    mine = ReviewTask.objects.filter(reviewer_id=user.pk)
    done = mine.filter(status=ReviewStatus.DONE).count()
    open_ids = list(review_queue_for(user).values_list("pk", flat=True))
    total = done + len(open_ids)
    if task.pk in open_ids:
        number = done + open_ids.index(task.pk) + 1
    else:
        # In queue order, like the open ones: an amendment saves the task again (a new
        # submitted_at), and its number must not change ("13 of 28", then "28 of 28").
        done_ids = list(
            mine.filter(status=ReviewStatus.DONE)
            .order_by("opened_at", "id")
            .values_list("pk", flat=True)
        )
        number = done_ids.index(task.pk) + 1 if task.pk in done_ids else 0
    return QueueProgress(number=number, total=total, done=done)


@dataclass(frozen=True)
class SuggestedStatus:
    """The sentence status the annotators' answers point to, and why."""

    judgement: str  # a Judgement value, "" when there is no majority
    reason: str


def suggested_status(candidates: list[Candidate]) -> SuggestedStatus:
    """The sentence status most annotators chose: a strict majority of the k annotators who
    answered (ERROR FREE, NOT ANNOTATABLE, or corrected = annotatable); without one,
    nothing is preselected and the split is shown."""
    if not candidates:
        return SuggestedStatus("", "")
    answered = candidates[0].of
    correctors = {name for c in candidates if c.is_correction for name in c.annotators}
    votes: list[tuple[str, int, str]] = [
        (Judgement.ANNOTATABLE, len(correctors), "corrected the sentence"),
    ]
    for candidate in candidates:
        if candidate.kind == ReferenceKind.ERROR_FREE:
            votes.append((Judgement.ERROR_FREE, candidate.support, "tagged ERROR FREE"))
        elif candidate.kind == ReferenceKind.NOT_ANNOTATABLE:
            votes.append((Judgement.NOT_ANNOTATABLE, candidate.support, "tagged NOT ANNOTATABLE"))
    plural = "s" if answered != 1 else ""
    for judgement, count, what in votes:
        if count * 2 > answered:
            return SuggestedStatus(
                str(judgement), f"{count} of {answered} annotator{plural} {what}"
            )
    split = ", ".join(f"{count} {what}" for _, count, what in votes if count)
    return SuggestedStatus("", f"no majority among {answered} annotator{plural}: {split}")
