"""Services that write the review side: opening and reassigning reviews, golden reference
revisions, self-study revisions, complaints and their resolution (a review's verdicts are
submitted through review/verdicts.py).

Each runs in one transaction, raises `core.exceptions.ServiceError` subclasses and writes
the audit log. Concurrency: a review save names the task version it was built on; the
conditional UPDATE lets exactly one save per version win, the other gets a Conflict.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Correction, Submission
from annotate.services import clean_corrections, clean_text, clean_time_spent
from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.models import Notification
from core.roles import Role, has_role
from core.services import mark_notifications_done
from datasets.models import (
    Dataset,
    GoldenReference,
    Judgement,
    ReferenceEntry,
    ReferenceKind,
    ReferenceOrigin,
    Sentence,
    SentenceStatus,
)
from review.models import (
    Complaint,
    ComplaintMessage,
    ComplaintStatus,
    ReviewStatus,
    ReviewTask,
    StudyItem,
    StudyStatus,
)
from review.selectors import (
    MARKER_TEXT,
    can_resolve,
    current_references,
    get_complaint_for,
    get_study_item_for,
)

MAX_MESSAGE_CHARS = 4000
MAX_ADDED_REFERENCES = 10
JUDGEMENT_KIND = {
    Judgement.ERROR_FREE: ReferenceKind.ERROR_FREE,
    Judgement.NOT_ANNOTATABLE: ReferenceKind.NOT_ANNOTATABLE,
}


def notify(user_id: int, text: str, url: str = "") -> None:
    Notification.objects.create(user_id=user_id, text=text[:500], url=url)


def clean_message(text: Any, *, field: str = "text") -> str:
    """Free text of a complaint or a discussion message (newlines allowed)."""
    if not isinstance(text, str) or not text.strip():
        raise ServiceError(f"{field} is empty: write what is wrong and why", field=field)
    text = text.strip()
    if len(text) > MAX_MESSAGE_CHARS:
        raise ServiceError(
            f"{field} is {len(text)} characters; at most {MAX_MESSAGE_CHARS}", field=field
        )
    for index, char in enumerate(text):
        if char not in "\n\r\t" and unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co"}:
            raise ServiceError(
                f"{field} contains the control character U+{ord(char):04X} at position {index + 1}",
                field=field,
            )
    return text


# --- opening a review ----------------------------------------------------------------------


def open_review_if_complete(*, sentence: Sentence) -> ReviewTask | None:
    """Called (inside the submitting transaction, sentence row locked) after each submission:
    when every live assignment of the sentence is submitted, the review opens."""
    live = sentence.assignments.exclude(status=AssignmentStatus.WITHDRAWN)
    if live.filter(status=AssignmentStatus.OPEN).exists() or not live.exists():
        return None
    task = ReviewTask.objects.filter(sentence=sentence, status=ReviewStatus.WAITING).first()
    if task is None:
        return None
    task.status = ReviewStatus.OPEN
    task.opened_at = timezone.now()
    task.save(update_fields=["status", "opened_at"])
    Sentence.objects.filter(pk=sentence.pk).update(status=SentenceStatus.IN_REVIEW)
    notify(
        task.reviewer_id,
        f"Sentence {sentence.external_id} of {sentence.dataset} is ready for review",
        reverse("review:task", args=[task.pk]),
    )
    return task


@transaction.atomic
def reassign_review(
    *, task_id: Any, by: Any, to_user: Any | None = None, seed: int | None = None
) -> ReviewTask:
    """Give a not-yet-saved review to another pool reviewer who did not annotate the sentence."""

    if not has_role(by, Role.ADMIN):
        raise NotFound("no such review task")
    try:
        task = (
            ReviewTask.objects.select_for_update()
            .select_related("sentence__dataset")
            .get(pk=int(task_id))
        )
    except (ReviewTask.DoesNotExist, TypeError, ValueError):
        raise NotFound("no such review task") from None
    if task.status == ReviewStatus.DONE:
        raise Conflict("this review is already saved; revise its references through a complaint")
    excluded = set(task.sentence.assignments.values_list("annotator_id", flat=True)) | {
        task.reviewer_id
    }
    pool = list(task.sentence.dataset.reviewers.filter(is_active=True).order_by("pk"))
    if to_user is not None:
        if to_user.pk not in {u.pk for u in pool}:
            raise ServiceError(
                f"{to_user} is not in the reviewer pool of {task.sentence.dataset}",
                field="reviewer",
            )
        if to_user.pk in excluded:
            raise ServiceError(
                f"{to_user} annotated this sentence or already reviews it", field="reviewer"
            )
        new_reviewer = to_user
    else:
        eligible = [u for u in pool if u.pk not in excluded]
        if not eligible:
            raise ServiceError(
                "no other reviewer in the pool is free for this sentence", field="reviewer"
            )
        load: Counter[int] = Counter(
            ReviewTask.objects.exclude(status=ReviewStatus.DONE)
            .filter(reviewer__in=eligible)
            .values_list("reviewer_id", flat=True)
        )
        shuffled = list(eligible)
        random.Random(seed).shuffle(shuffled)
        new_reviewer = min(shuffled, key=lambda u: load[u.pk])
    previous = task.reviewer_id
    task.reviewer = new_reviewer
    # Any page built for the previous reviewer must not save over the new one's work.
    task.version += 1
    task.save(update_fields=["reviewer", "version"])
    # The previous reviewer's "ready for review" no longer asks anything of them.
    mark_notifications_done(url=reverse("review:task", args=[task.pk]), user_id=previous)
    if task.status == ReviewStatus.OPEN:
        notify(
            new_reviewer.pk,
            f"Sentence {task.sentence.external_id} of {task.sentence.dataset} was "
            "reassigned to you for review",
            reverse("review:task", args=[task.pk]),
        )
    log_action(task, by, "review.reassigned", {"from": previous, "to": new_reviewer.pk})
    return task


# --- golden reference revisions (reviews and complaints) --------------------------------


def next_revision(sentence_id: int) -> int:
    latest = GoldenReference.objects.filter(sentence_id=sentence_id).aggregate(r=Max("revision"))[
        "r"
    ]
    return (latest or 0) + 1


def write_references(
    *,
    sentence: Sentence,
    rows: list[tuple[str, str, str]],
    user: Any,
    annotators: dict[str, int | None] | None = None,
    entries: dict[str, tuple[str, str]] | None = None,
) -> list[GoldenReference]:
    """A new revision of the sentence's golden references; older rows stay, not current.

    ``annotators`` maps a reference text to the annotator whose correction it is (a review
    knows; None for the reviewer's own). Without it (a complaint's revision) a text that
    was already a current reference keeps its annotator and style. A reference from an
    annotator gets the dataset's annotator-pool style; any other keeps the style of the
    current reference with the same text (an imported one keeps its import's style).
    ``entries`` maps a text to its (entry, suggestion source) (review/provenance.py); a
    text without one keeps the current reference's, else is typed."""
    revision = next_revision(sentence.pk)
    current = {
        ref.text: ref for ref in GoldenReference.objects.filter(sentence=sentence, is_current=True)
    }
    pool_style = (
        Dataset.objects.filter(pk=sentence.dataset_id)
        .values_list("annotator_reference_style", flat=True)
        .first()
        or ""
    )
    written = []
    for position, (kind, text, origin) in enumerate(rows):
        before = current.get(text)
        if annotators is not None and text in annotators:
            annotator_id = annotators[text]
        else:
            annotator_id = before.annotator_id if before is not None else None
        style = pool_style if annotator_id is not None else (before.style if before else "")
        if entries is not None and text in entries:
            entry, suggestion_source = entries[text]
        elif before is not None:
            entry, suggestion_source = before.entry, before.suggestion_source
        else:
            entry, suggestion_source = ReferenceEntry.TYPED, ""
        written.append(
            GoldenReference(
                sentence=sentence,
                revision=revision,
                position=position,
                kind=kind,
                text=text,
                origin=origin,
                style=style,
                annotator_id=annotator_id,
                entry=entry,
                suggestion_source=suggestion_source,
                created_by=user if user.is_authenticated else None,
            )
        )
    GoldenReference.objects.filter(sentence=sentence, is_current=True).update(is_current=False)
    return GoldenReference.objects.bulk_create(written)


# --- self-study ----------------------------------------------------------------------------


@transaction.atomic
def submit_study_revision(
    *, item_id: Any, user: Any, texts: Any, tag: Any = "", time_spent_seconds: Any = 0
) -> Submission:
    """The annotator's revised correction after studying the golden references: a new
    Submission revision (the first submission is never touched)."""
    item = get_study_item_for(user, item_id)
    item = StudyItem.objects.select_for_update().get(pk=item.pk)
    if item.status != StudyStatus.OPEN:
        raise Conflict("this study item was already revised")
    assignment = Assignment.objects.select_related("sentence").get(pk=item.assignment_id)
    cleaned = clean_corrections(source=assignment.sentence.text, texts=texts, tag=tag)
    latest = assignment.submissions.aggregate(r=Max("revision"))["r"] or 1
    submission = Submission.objects.create(
        assignment=assignment,
        revision=latest + 1,
        tag=cleaned.tag,
        time_spent_seconds=clean_time_spent(time_spent_seconds),
    )
    Correction.objects.bulk_create(
        [Correction(submission=submission, position=i, text=t) for i, t in enumerate(cleaned.texts)]
    )
    item.status = StudyStatus.DONE
    item.revision = submission
    item.done_at = timezone.now()
    item.save(update_fields=["status", "revision", "done_at"])
    mark_notifications_done(url=reverse("review:study", args=[item.pk]))
    log_action(
        submission,
        user,
        "study.revised",
        {
            "study_item": item.pk,
            "revision": submission.revision,
            "tag": cleaned.tag,
            "texts": cleaned.texts,
        },
    )
    return submission


# --- complaints ----------------------------------------------------------------------------


@transaction.atomic
def file_complaint(*, item_id: Any, user: Any, text: Any, reference_id: Any = None) -> Complaint:
    """An annotator objects to a golden reference of a sentence they studied."""
    item = get_study_item_for(user, item_id)
    body = clean_message(text)
    reference = None
    if reference_id not in (None, ""):
        try:
            reference = GoldenReference.objects.get(
                pk=int(reference_id), sentence_id=item.task.sentence_id, is_current=True
            )
        except (GoldenReference.DoesNotExist, TypeError, ValueError):
            raise ServiceError(
                "the reference complained about is not a current golden reference of this sentence",
                field="reference",
            ) from None
    if Complaint.objects.filter(study_item=item, status=ComplaintStatus.OPEN).exists():
        raise Conflict("you already have an open complaint on this sentence; add to its discussion")
    complaint = Complaint.objects.create(study_item=item, reference=reference, author=user)
    ComplaintMessage.objects.create(complaint=complaint, author=user, text=body)
    notify(
        item.task.reviewer_id,
        f"{user.username} complained about the references of sentence "
        f"{item.task.sentence.external_id} of {item.task.sentence.dataset}",
        reverse("review:complaint", args=[complaint.pk]),
    )
    log_action(
        complaint,
        user,
        "complaint.filed",
        {
            "study_item": item.pk,
            "reference": reference.pk if reference else None,
            "text": body,
        },
    )
    return complaint


@transaction.atomic
def post_complaint_message(*, complaint_id: Any, user: Any, text: Any) -> ComplaintMessage:
    complaint = get_complaint_for(user, complaint_id)
    if complaint.status != ComplaintStatus.OPEN:
        raise Conflict("this complaint is resolved; its discussion is closed")
    message = ComplaintMessage.objects.create(
        complaint=complaint, author=user, text=clean_message(text)
    )
    url = reverse("review:complaint", args=[complaint.pk])
    for other in {complaint.author_id, complaint.study_item.task.reviewer_id} - {user.pk}:
        notify(other, f"{user.username} wrote in the discussion of complaint #{complaint.pk}", url)
    log_action(complaint, user, "complaint.message", {"message": message.pk})
    return message


@transaction.atomic
def resolve_complaint(
    *,
    complaint_id: Any,
    user: Any,
    accept: bool,
    note: Any = "",
    references: Any = None,
    judgement: Any = None,
) -> Complaint:
    """Accept (write a new revision of the golden references; the old one is kept) or
    reject. Only the sentence's reviewer or an admin may resolve."""

    complaint = get_complaint_for(user, complaint_id)
    if not can_resolve(user, complaint):
        raise NotFound("no such complaint among yours")
    complaint = Complaint.objects.select_for_update().get(pk=complaint.pk)
    if complaint.status != ComplaintStatus.OPEN:
        raise Conflict(f"this complaint was already {complaint.status}")
    note_text = clean_message(note, field="note") if note else ""
    sentence = Sentence.objects.select_for_update().get(pk=complaint.study_item.task.sentence_id)
    data: dict[str, Any] = {"accept": bool(accept), "note": note_text}
    if accept:
        judgement = judgement or sentence.judgement or Judgement.ANNOTATABLE
        if judgement not in (
            Judgement.ANNOTATABLE,
            Judgement.ERROR_FREE,
            Judgement.NOT_ANNOTATABLE,
        ):
            raise ServiceError("unknown sentence status", field="judgement")
        previous = {r.text: r.origin for r in current_references(sentence.pk)}
        if judgement == Judgement.ANNOTATABLE:
            if not isinstance(references, list | tuple) or not references:
                raise ServiceError(
                    "accepting needs the revised references (one or more corrected sentences)",
                    field="references",
                )
            texts: list[str] = []
            for index, raw in enumerate(references):
                text = clean_text(raw, field=f"reference {index + 1}")
                if not text:
                    continue
                if text == sentence.text.strip():
                    raise ServiceError(
                        f"reference {index + 1} equals the source; use the error-free status",
                        field="references",
                    )
                if text not in texts:
                    texts.append(text)
            if not texts:
                raise ServiceError("all revised references are empty", field="references")
            rows = [
                (str(ReferenceKind.CORRECTION), t, previous.get(t, ReferenceOrigin.COMPLAINT))
                for t in texts
            ]
        else:
            kind = JUDGEMENT_KIND[Judgement(judgement)]
            rows = [(str(kind), MARKER_TEXT[kind], ReferenceOrigin.COMPLAINT)]
        written = write_references(sentence=sentence, rows=rows, user=user)
        Sentence.objects.filter(pk=sentence.pk).update(judgement=judgement)
        data.update(
            judgement=judgement, revision=written[0].revision, references=[r.text for r in written]
        )
    complaint.status = ComplaintStatus.ACCEPTED if accept else ComplaintStatus.REJECTED
    complaint.resolved_at = timezone.now()
    complaint.resolved_by = user
    complaint.resolution_note = note_text
    complaint.save(update_fields=["status", "resolved_at", "resolved_by", "resolution_note"])
    # The complaint and its discussion are settled: what announced them is read.
    mark_notifications_done(url=reverse("review:complaint", args=[complaint.pk]))
    notify(
        complaint.author_id,
        f"Your complaint #{complaint.pk} was {complaint.status}"
        + (f": {note_text}" if note_text else ""),
        reverse("review:complaint", args=[complaint.pk]),
    )
    log_action(complaint, user, "complaint.resolved", data)
    return complaint
