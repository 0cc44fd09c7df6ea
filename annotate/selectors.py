"""Read-only queries for the annotation side. Every `*_for(user)` returns only what that
user may see; a lookup of someone else's object raises NotFound (HTTP 404, never data)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Count, F, Q, QuerySet, Sum

from annotate.guideline_seed import GUIDELINE_SLUG, default_guideline
from annotate.models import Assignment, AssignmentStatus, Guideline, GuidelineTask, Submission
from core.exceptions import NotFound
from core.roles import Role, has_role
from datasets.models import Dataset, Language, Sentence, SentenceStatus


def assignments_for(user: Any) -> QuerySet[Assignment]:
    """The annotator's live (not withdrawn) assignments."""
    if not has_role(user, Role.ANNOTATOR):
        return Assignment.objects.none()
    return (
        Assignment.objects.filter(annotator_id=user.pk)
        .exclude(status=AssignmentStatus.WITHDRAWN)
        .select_related("sentence", "sentence__dataset", "sentence__source")
    )


def open_assignments_for(user: Any) -> QuerySet[Assignment]:
    return assignments_for(user).filter(status=AssignmentStatus.OPEN)


def todo_for(user: Any) -> QuerySet[Assignment]:
    """The annotator's open assignments in the one order the to-do list shows and "Next
    sentence" takes (the two used to disagree): a sentence already opened first (a reload
    must not skip it; the earliest opened), then by dataset name and sentence position."""
    return open_assignments_for(user).order_by(
        F("opened_at").asc(nulls_last=True), "sentence__dataset__name", "sentence__position", "id"
    )


def get_assignment_for(user: Any, assignment_id: Any) -> Assignment:
    try:
        return assignments_for(user).get(pk=int(assignment_id))
    except (Assignment.DoesNotExist, TypeError, ValueError):
        raise NotFound("no such assignment among yours") from None


def submissions_for(user: Any) -> QuerySet[Submission]:
    """The annotator's own submissions (all revisions)."""
    if not has_role(user, Role.ANNOTATOR):
        return Submission.objects.none()
    return (
        Submission.objects.filter(assignment__annotator_id=user.pk)
        .select_related("assignment", "assignment__sentence")
        .prefetch_related("corrections")
    )


def get_submission_for(user: Any, submission_id: Any) -> Submission:
    try:
        return submissions_for(user).get(pk=int(submission_id))
    except (Submission.DoesNotExist, TypeError, ValueError):
        raise NotFound("no such submission among yours") from None


def first_submission(assignment: Assignment) -> Submission | None:
    return assignment.submissions.filter(revision=1).prefetch_related("corrections").first()


@dataclass(frozen=True)
class Progress:
    done: int
    assigned: int
    time_spent_seconds: int

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.assigned) if self.assigned else 0


def progress_for(user: Any) -> Progress:
    row = assignments_for(user).aggregate(
        assigned=Count("id"),
        done=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        seconds=Sum("time_spent_seconds"),
    )
    return Progress(
        done=row["done"], assigned=row["assigned"], time_spent_seconds=row["seconds"] or 0
    )


# --- admin views -------------------------------------------------------------------------------


def stale_assignments(*, opened_before: Any) -> QuerySet[Assignment]:
    """Open assignments untouched since `opened_before` (never opened: counted from creation)."""
    return (
        Assignment.objects.filter(status=AssignmentStatus.OPEN)
        .filter(
            Q(opened_at__lt=opened_before) | Q(opened_at__isnull=True, created_at__lt=opened_before)
        )
        .select_related("sentence", "sentence__dataset", "annotator")
        .order_by("created_at", "id")
    )


def overdue_assignments(*, now: Any) -> QuerySet[Assignment]:
    """Open assignments untouched for longer than their dataset's deadline
    (`Dataset.stale_after_hours`, set on the annotation-project page)."""
    condition = Q(pk__in=[])
    for dataset_id, hours in Dataset.objects.values_list("pk", "stale_after_hours"):
        cutoff = now - timedelta(hours=hours)
        condition |= Q(sentence__dataset_id=dataset_id) & (
            Q(opened_at__lt=cutoff) | Q(opened_at__isnull=True, created_at__lt=cutoff)
        )
    return (
        Assignment.objects.filter(status=AssignmentStatus.OPEN)
        .filter(condition)
        .select_related("sentence", "sentence__dataset", "annotator")
        .order_by("created_at", "id")
    )


@dataclass(frozen=True)
class DatasetProgress:
    dataset: Dataset
    by_status: dict[str, int]
    by_source: list[dict[str, Any]]
    total: int


def dataset_progress() -> list[DatasetProgress]:
    """Sentences per status, overall and per source, for every dataset."""
    result = []
    for dataset in Dataset.objects.order_by("name"):
        counts = dict(
            Sentence.objects.filter(dataset=dataset)
            .values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        by_status = {status: counts.get(status, 0) for status in SentenceStatus.values}
        by_source: list[dict[str, Any]] = [
            dict(row)
            for row in Sentence.objects.filter(dataset=dataset)
            .values("source__name")
            .annotate(
                total=Count("id"),
                reviewed=Count("id", filter=Q(status=SentenceStatus.REVIEWED)),
                in_review=Count("id", filter=Q(status=SentenceStatus.IN_REVIEW)),
            )
            .order_by("source__name")
        ]
        result.append(DatasetProgress(dataset, by_status, by_source, sum(by_status.values())))
    return result


def annotator_stats() -> list[dict[str, Any]]:
    """Per annotator: assigned, submitted, open, and active seconds spent."""
    rows = (
        Assignment.objects.exclude(status=AssignmentStatus.WITHDRAWN)
        .values("annotator_id", "annotator__username")
        .annotate(
            assigned=Count("id"),
            submitted=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
            open=Count("id", filter=Q(status=AssignmentStatus.OPEN)),
            seconds=Sum("time_spent_seconds"),
        )
        .order_by("annotator__username")
    )
    return [dict(row) for row in rows]


def current_guideline() -> Guideline:
    """The Chinese annotation guideline (the only one before there were guidelines per task
    and language)."""
    return guideline_for(GuidelineTask.ANNOTATION, "zh")


def guideline_slug(task: str, language: str) -> str:
    return GUIDELINE_SLUG if (task, language) == ("annotation", "zh") else f"{task}-{language}"


def guideline_for(task: str, language: str) -> Guideline:
    """The guideline of `task` in `language` (a dataset or campaign language): the saved row,
    else the platform's default text as an unsaved row of version 0."""
    if task not in GuidelineTask.values:
        raise NotFound(
            f"no guideline task {task!r}; one of {', '.join(GuidelineTask.values)}", field="task"
        )
    if language not in Language.values:
        raise NotFound(
            f"no guideline language {language!r}; one of {', '.join(Language.values)}",
            field="language",
        )
    guideline = Guideline.objects.filter(task=task, language=language, archived=False).first()
    if guideline is None:
        # Not saved yet (or a database flushed after migrating, as tests do).
        title, body = default_guideline(task, language)
        guideline = Guideline(
            slug=guideline_slug(task, language),
            task=task,
            language=language,
            title=title,
            body=body,
            version=0,
        )
    return guideline


def all_guidelines() -> list[Guideline]:
    """Every (task, language) guideline, saved or default, in task then language order."""
    return [
        guideline_for(task, language)
        for task in GuidelineTask.values
        for language in Language.values
    ]
