"""What the annotate app answers to the datasets app's signals (connected in apps.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.dispatch import receiver

from annotate.models import Correction, Submission
from datasets.signals import collect_annotations


@receiver(collect_annotations, dispatch_uid="annotate.submissions_for_export")
def submissions_for_export(
    sender: Any, sentence_ids: Sequence[int], **_: Any
) -> dict[int, dict[str, Any]]:
    """Raw submissions of these sentences: every revision, every correction box."""
    texts: dict[int, list[str]] = {}
    for submission_id, text in (
        Correction.objects.filter(submission__assignment__sentence_id__in=sentence_ids)
        .order_by("submission_id", "position")
        .values_list("submission_id", "text")
    ):
        texts.setdefault(submission_id, []).append(text)
    data: dict[int, dict[str, Any]] = {}
    for sub in (
        Submission.objects.filter(assignment__sentence_id__in=sentence_ids)
        .order_by("assignment__sentence_id", "assignment_id", "revision")
        .values(
            "id",
            "assignment__sentence_id",
            "assignment__annotator__username",
            "revision",
            "tag",
            "created_at",
            "time_spent_seconds",
        )
    ):
        data.setdefault(sub["assignment__sentence_id"], {"submissions": []})["submissions"].append(
            {
                "annotator": sub["assignment__annotator__username"],
                "revision": sub["revision"],
                "tag": sub["tag"],
                "corrections": texts.get(sub["id"], []),
                "created_at": sub["created_at"].isoformat() if sub["created_at"] else None,
                "time_spent_seconds": sub["time_spent_seconds"],
            }
        )
    return data
