"""Amending a saved review: the task's reviewer or an admin replaces the
verdicts, references and sentence status of a reviewed sentence.

The amendment is a new review save (review/verdicts.py `save_review`, the same checks): the
golden references get a new revision (the old rows stay, not current), the old verdict rows
are replaced, and a ReviewAmendment keeps who, when, why and the review before and after.
Downstream: everything that reads the *live* golden references (exports of live references,
annotator quality and pay, the study pages) sees the amended references at once; a frozen
release (datasets/services/releases.py copies the texts) is never changed: cut a new release
to publish the amendment. Study items the amended review no longer justifies are withdrawn
(unless a complaint was filed on them); new ones are created and announced.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse

from core.audit import log_action
from core.exceptions import Conflict, PermissionDenied, ServiceError
from core.roles import Role, has_role
from core.services import mark_notifications_done
from review.models import ReviewAmendment, ReviewStatus, ReviewTask, StudyItem, StudyStatus
from review.selectors import get_review_task_for
from review.verdicts import ReviewOutcome, check_version_and_status, save_review

MAX_REASON_CHARS = 2000


def may_amend(user: Any, task: ReviewTask) -> bool:
    """A saved review may be amended by its reviewer and by admins."""
    if task.status != ReviewStatus.DONE or not getattr(user, "is_authenticated", False):
        return False
    if has_role(user, Role.ADMIN):
        return True
    return task.reviewer_id == user.pk and has_role(user, Role.REVIEWER)


def review_snapshot(task: ReviewTask) -> dict[str, Any]:
    """The saved review as plain data: sentence status, verdicts, current references."""
    sentence = task.sentence
    sentence.refresh_from_db(fields=["judgement"])
    return {
        "judgement": sentence.judgement,
        "saved_by": task.submitted_by.username if task.submitted_by else None,
        "saved_at": task.submitted_at.isoformat() if task.submitted_at else None,
        "verdicts": [
            {
                "position": v.position,
                "kind": v.kind,
                "text": v.text,
                "correct": v.is_correct,
                "edited_text": v.edited_text,
            }
            for v in task.verdicts.order_by("position")
        ],
        "references": [
            {"text": r.text, "kind": r.kind, "origin": r.origin, "revision": r.revision}
            for r in sentence.golden_references.filter(is_current=True).order_by("position")
        ],
    }


@transaction.atomic
def amend_review(
    *,
    task_id: Any,
    user: Any,
    version: Any,
    verdicts: Any,
    added: Any = (),
    judgement: Any,
    time_spent_seconds: Any = 0,
    reason: Any = "",
) -> ReviewOutcome:
    """Replace the saved review of a task with a new one (see the module docstring).
    `version` is the task version the amending page was built on: of two amendments
    built on one version, one wins and the other gets a Conflict."""
    task = get_review_task_for(user, task_id)
    if task.status != ReviewStatus.DONE:
        raise Conflict("this sentence has no saved review to amend; save the review first")
    if not may_amend(user, task):
        raise PermissionDenied("only the task's reviewer or an admin can amend a saved review")
    if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS:
        raise ServiceError(
            f"the reason is text of at most {MAX_REASON_CHARS} characters", field="reason"
        )
    if not reason.strip():
        # The history is how others learn why references changed under them.
        raise ServiceError(
            "give a reason for the amendment: it is shown in the review's history",
            field="reason",
        )
    number = check_version_and_status(version, judgement)
    task = ReviewTask.objects.select_related("sentence", "submitted_by").get(pk=task.pk)
    before = review_snapshot(task)
    outcome = save_review(
        task,
        user=user,
        version=number,
        verdicts=verdicts,
        added=added,
        judgement=judgement,
        time_spent_seconds=time_spent_seconds,
        amending=True,
    )
    withdrawn = _withdraw_stale_study_items(task, keep=outcome.study_items)
    after = review_snapshot(
        ReviewTask.objects.select_related("sentence", "submitted_by").get(pk=task.pk)
    )
    amendment = ReviewAmendment.objects.create(
        task=task, amended_by=user, reason=reason.strip(), before=before, after=after
    )
    log_action(
        task,
        user,
        "review.amendment",
        {
            "amendment": amendment.pk,
            "reason": amendment.reason,
            "before": before,
            "after": after,
            "withdrawn_study_items": withdrawn,
        },
    )
    return outcome


def _withdraw_stale_study_items(task: ReviewTask, *, keep: list[StudyItem]) -> list[int]:
    """Delete the open study items of `task` the amended review no longer gives (an
    annotator whose correction is now judged right), unless a complaint hangs on one; their
    notifications are marked read. The ids withdrawn."""
    stale = StudyItem.objects.filter(task=task, status=StudyStatus.OPEN, complaints__isnull=True)
    stale = stale.exclude(pk__in=[item.pk for item in keep])
    withdrawn = []
    for item in stale:
        mark_notifications_done(url=reverse("review:study", args=[item.pk]))
        withdrawn.append(item.pk)
    StudyItem.objects.filter(pk__in=withdrawn).delete()
    return withdrawn
