"""What the review app answers to the datasets app's signals (connected in apps.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.dispatch import receiver

from annotate.signals import annotations_complete, dashboard_context, sentence_staff
from datasets.models import Sentence
from datasets.signals import collect_annotations
from review import selectors
from review.models import ReviewTask, Verdict
from review.services import open_review_if_complete


@receiver(annotations_complete, dispatch_uid="review.open_review")
def open_review(sender: Any, sentence: Sentence, **_: Any) -> None:
    open_review_if_complete(sentence=sentence)


@receiver(sentence_staff, dispatch_uid="review.reviewer_of_sentence")
def reviewer_of_sentence(sender: Any, sentence: Sentence, **_: Any) -> set[int]:
    return set(ReviewTask.objects.filter(sentence=sentence).values_list("reviewer_id", flat=True))


@receiver(dashboard_context, dispatch_uid="review.annotator_dashboard")
def annotator_dashboard(sender: Any, user: Any, **_: Any) -> dict[str, Any]:
    return {
        "study_items": selectors.study_items_for(user)[:50],
        "complaints": selectors.complaints_for(user).filter(author_id=user.pk)[:50],
    }


@receiver(collect_annotations, dispatch_uid="review.verdicts_for_export")
def verdicts_for_export(
    sender: Any, sentence_ids: Sequence[int], **_: Any
) -> dict[int, dict[str, Any]]:
    """The reviewer's verdict on each merged candidate, with the annotators who proposed it."""
    verdicts = (
        Verdict.objects.filter(task__sentence_id__in=sentence_ids)
        .select_related("task__reviewer")
        .prefetch_related("submissions__assignment__annotator")
        .order_by("task__sentence_id", "position")
    )
    data: dict[int, dict[str, Any]] = {}
    for verdict in verdicts:
        data.setdefault(verdict.task.sentence_id, {"verdicts": []})["verdicts"].append(
            {
                "position": verdict.position,
                "kind": verdict.kind,
                "text": verdict.text,
                "is_correct": verdict.is_correct,
                "edited_text": verdict.edited_text,
                "reviewer": verdict.task.reviewer.username,
                "review_submitted_at": verdict.task.submitted_at.isoformat()
                if verdict.task.submitted_at
                else None,
                "proposed_by": sorted(
                    {s.assignment.annotator.username for s in verdict.submissions.all()}
                ),
            }
        )
    return data
