"""Services that write the annotation side of the workflow.

Assignment of sentences to annotators (and of each sentence to a reviewer), pulling the
next sentence, submitting corrections, reassigning stale work. Every function runs in one
transaction, raises `core.exceptions.ServiceError` subclasses with a message a person can
act on, and writes an audit-log entry.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.models import (
    Assignment,
    AssignmentStatus,
    Correction,
    Guideline,
    Submission,
    SubmissionTag,
)
from annotate.selectors import guideline_for, todo_for
from annotate.signals import annotations_complete, staff_of
from annotate.suggestions import distances, is_unchanged, shown_for
from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.roles import Role, has_role
from datasets.models import Sentence
from datasets.textrules import max_sentence_chars, text_problem

# The one maximum sentence length (setting GEC_MAX_SENTENCE_CHARS), read when loaded.
MAX_CORRECTION_CHARS = max_sentence_chars()
MAX_CORRECTIONS = 10
# Active time is measured by the page; a day is an upper bound that catches broken clients.
MAX_TIME_SPENT_SECONDS = 24 * 3600


# --- input checks --------------------------------------------------------------------------


def clean_text(text: Any, *, field: str, source: str | None = None) -> str:
    """One corrected sentence: a string, one line, no control characters, not too long."""
    if not isinstance(text, str):
        raise ServiceError(f"{field}: expected text, got {type(text).__name__}", field=field)
    # Outer spaces come from the text box, never from the learner's sentence.
    text = text.strip()
    # The one text rule (datasets.textrules): the import, the box and the API agree.
    problem = text_problem(text)
    if problem is not None:
        raise ServiceError(
            f"{field}: {problem}; a correction is one line of visible text", field=field
        )
    return text


def clean_time_spent(value: Any) -> int:
    try:
        seconds = int(value or 0)
    except (TypeError, ValueError):
        raise ServiceError(
            "time_spent_seconds must be a whole number", field="time_spent_seconds"
        ) from None
    if seconds < 0:
        raise ServiceError("time_spent_seconds cannot be negative", field="time_spent_seconds")
    return min(seconds, MAX_TIME_SPENT_SECONDS)


@dataclass
class CleanedCorrections:
    tag: str
    texts: list[str]
    notes: list[str] = field(default_factory=list)


UNRELATED_SHARE = 0.25  # below this share of common units a correction looks unrelated
UNRELATED_MIN_UNITS = 4  # too short a source says nothing


def shared_with_source(source: str, text: str) -> float | None:
    """The share of units (words when the source is spaced text, else characters; case and
    spaces ignored) that a correction has in common with its source, of the longer of the
    two; None for a source too short to tell. static/annotate/annotate.js mirrors it."""
    spaced = len(source.split()) >= 3

    def units(value: str) -> Counter[str]:
        value = value.lower()
        return Counter(value.split() if spaced else (c for c in value if not c.isspace()))

    mine, theirs = units(source), units(text)
    total = max(sum(mine.values()), sum(theirs.values()))
    if sum(mine.values()) < UNRELATED_MIN_UNITS or not total:
        return None
    return sum((mine & theirs).values()) / total


def clean_corrections(*, source: str, texts: Any, tag: Any) -> CleanedCorrections:
    """Normalise what the annotator typed into a tag or a list of distinct corrections.

    * a tag (ERROR FREE / NOT ANNOTATABLE) carries no corrections;
    * a single box equal to the source means ERROR FREE;
    * an empty box or a box equal to the source beside other corrections is an error;
    * duplicate boxes are merged (reported in `notes`).
    """
    tag = tag or ""
    if tag not in SubmissionTag.values:
        raise ServiceError(
            f"tag {tag!r} is unknown; use '', 'error_free' or 'not_annotatable'", field="tag"
        )
    if texts is None:
        texts = []
    if not isinstance(texts, list | tuple):
        raise ServiceError("texts must be a list of corrected sentences", field="texts")
    if len(texts) > MAX_CORRECTIONS:
        raise ServiceError(
            f"{len(texts)} corrections given; at most {MAX_CORRECTIONS} are allowed", field="texts"
        )
    cleaned = [clean_text(t, field=f"correction {i + 1}") for i, t in enumerate(texts)]
    if tag:
        if any(text and text != source.strip() for text in cleaned):
            label = SubmissionTag(tag).label
            raise ServiceError(
                f"{label} cannot carry corrections: clear the boxes or remove the tag",
                field="texts",
            )
        return CleanedCorrections(tag=tag, texts=[])
    if not cleaned:
        raise ServiceError(
            "give at least one correction, or tag the sentence ERROR FREE or NOT ANNOTATABLE",
            field="texts",
        )
    for index, text in enumerate(cleaned):
        if not text:
            raise ServiceError(
                f"correction {index + 1} is empty: type the corrected sentence or delete the box",
                field=f"correction {index + 1}",
            )
    if len(cleaned) == 1 and cleaned[0] == source.strip():
        return CleanedCorrections(
            tag=SubmissionTag.ERROR_FREE,
            texts=[],
            notes=["the correction equals the source, so it was recorded as ERROR FREE"],
        )
    unchanged = [i + 1 for i, text in enumerate(cleaned) if text == source.strip()]
    if unchanged:
        raise ServiceError(
            f"correction {unchanged[0]} is identical to the source; delete it, or tag the "
            "sentence ERROR FREE if it has no error",
            field=f"correction {unchanged[0]}",
        )
    distinct: list[str] = []
    notes: list[str] = []
    for index, text in enumerate(cleaned):
        if text in distinct:
            notes.append(
                f"correction {index + 1} duplicated correction {distinct.index(text) + 1} and was merged"
            )
        else:
            distinct.append(text)
    for index, text in enumerate(distinct):
        share = shared_with_source(source, text)
        if share is not None and share < UNRELATED_SHARE:
            # A sentence typed into the wrong item was accepted silently.
            notes.append(
                f"correction {index + 1} shares only {share:.0%} with the source: check that it"
                " belongs to this sentence (a complaint or the reviewer can fix it)"
            )
    return CleanedCorrections(tag="", texts=distinct, notes=notes)


# --- assignment ----------------------------------------------------------------------------


def pick_least_loaded(
    candidates: list[Any], load: Counter[int], count: int, rng: random.Random
) -> list[Any]:
    """`count` distinct users with the lowest load; ties broken by the seeded generator."""
    shuffled = list(candidates)
    rng.shuffle(shuffled)
    # Stable sort on load keeps the random order among equals: balanced and reproducible.
    shuffled.sort(key=lambda user: load[user.pk])
    return shuffled[:count]


@transaction.atomic
def open_assignment(*, assignment: Assignment, user: Any) -> Assignment:
    """Mark the first time the annotator opened the sentence (stale detection uses it)."""
    if assignment.annotator_id != user.pk:
        raise NotFound("no such assignment among yours")
    if assignment.opened_at is None:
        assignment.opened_at = timezone.now()
        Assignment.objects.filter(pk=assignment.pk, opened_at__isnull=True).update(
            opened_at=assignment.opened_at
        )
    return assignment


def next_assignment(*, user: Any, skip_id: int | None = None) -> Assignment | None:
    """The annotator's next open sentence: one already started first, then by position.
    `skip_id` (the page's "next" shortcut) passes over the sentence on screen."""

    mine = todo_for(user)
    if skip_id is not None:
        mine = mine.exclude(pk=skip_id)
    # The to-do list's order: a sentence already started comes back first.
    assignment = mine.first()
    if assignment is not None:
        open_assignment(assignment=assignment, user=user)
    return assignment


@dataclass
class SubmitResult:
    submission: Submission
    notes: list[str]


@transaction.atomic
def submit_correction(
    *, assignment_id: int, user: Any, texts: Any, tag: Any = "", time_spent_seconds: Any = 0
) -> SubmitResult:
    """Record the annotator's first (and final) submission for an assignment.

    Locks the sentence, then the assignment, so a double-clicked submit creates one
    submission (the second gets a Conflict) and the last of the k submissions opens the
    review exactly once even when annotators submit at the same moment.
    """
    if not has_role(user, Role.ANNOTATOR):
        raise NotFound("no such assignment among yours")
    sentence_id = (
        Assignment.objects.filter(pk=assignment_id, annotator_id=user.pk)
        .values_list("sentence_id", flat=True)
        .first()
    )
    if sentence_id is None:
        raise NotFound("no such assignment among yours")
    sentence = Sentence.objects.select_for_update().get(pk=sentence_id)
    assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise Conflict("this sentence was already submitted; a submission is never overwritten")
    if assignment.status != AssignmentStatus.OPEN:
        raise Conflict("this assignment was closed (reassigned to someone else)")
    cleaned = clean_corrections(source=sentence.text, texts=texts, tag=tag)
    seconds = clean_time_spent(time_spent_seconds)
    # Provenance is worked out here, never taken from the page: what the box opened with,
    # whether the submission is that suggestion unchanged, and the edit distances.
    shown = shown_for(assignment)
    now = timezone.now()
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                assignment=assignment,
                revision=1,
                tag=cleaned.tag,
                time_spent_seconds=seconds,
                suggestion_source=shown.source,
                suggestion_signature=shown.signature,
                suggestion_text=shown.text,
                unchanged=is_unchanged(shown, texts, tag),
            )
    except IntegrityError:
        raise Conflict(
            "this sentence was already submitted; a submission is never overwritten"
        ) from None
    Correction.objects.bulk_create(
        [
            Correction(
                submission=submission, position=i, text=t, **distances(shown, sentence.text, t)
            )
            for i, t in enumerate(cleaned.texts)
        ]
    )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = now
    assignment.opened_at = assignment.opened_at or now
    assignment.time_spent_seconds = seconds
    assignment.save(update_fields=["status", "submitted_at", "opened_at", "time_spent_seconds"])
    log_action(
        submission,
        user,
        "submission.created",
        {
            "assignment": assignment.pk,
            "sentence": sentence.pk,
            "tag": cleaned.tag,
            "texts": cleaned.texts,
            "time_spent_seconds": seconds,
            "notes": cleaned.notes,
            "suggestion_source": shown.source,
            "unchanged": submission.unchanged,
        },
    )
    annotations_complete.send(sender=Submission, sentence=sentence)
    return SubmitResult(submission=submission, notes=cleaned.notes)


@transaction.atomic
def reassign_assignment(
    *, assignment_id: int, by: Any, to_user: Any | None = None, seed: int | None = None
) -> Assignment:
    """Withdraw an open assignment and give the sentence to another pool annotator.

    The new annotator must not already hold the sentence nor be its reviewer; without
    `to_user` the least-loaded eligible annotator is chosen (ties at random, `seed`).
    """
    if not has_role(by, Role.ADMIN):
        raise NotFound("no such assignment")
    row = Assignment.objects.filter(pk=assignment_id).values_list("sentence_id", flat=True).first()
    if row is None:
        raise NotFound("no such assignment")
    sentence = Sentence.objects.select_for_update().select_related("dataset").get(pk=row)
    assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
    if assignment.status != AssignmentStatus.OPEN:
        raise Conflict(f"only open assignments can be reassigned; this one is {assignment.status}")
    # Anyone who ever held the sentence is out: giving stale work back to its holder helps
    # nobody, and a live holder would annotate it twice.
    taken = set(sentence.assignments.values_list("annotator_id", flat=True))
    taken |= staff_of(sentence)
    pool = list(sentence.dataset.annotators.filter(is_active=True).order_by("pk"))
    if to_user is not None:
        if to_user.pk not in {u.pk for u in pool}:
            raise ServiceError(
                f"{to_user} is not in the annotator pool of {sentence.dataset}", field="annotator"
            )
        if to_user.pk in taken:
            raise ServiceError(
                f"{to_user} already annotates or reviews this sentence; pick someone else",
                field="annotator",
            )
        new_user = to_user
    else:
        eligible = [u for u in pool if u.pk not in taken]
        if not eligible:
            raise ServiceError(
                "no other annotator in the pool is free for this sentence", field="annotator"
            )
        load: Counter[int] = Counter(
            Assignment.objects.filter(
                status=AssignmentStatus.OPEN, annotator__in=eligible
            ).values_list("annotator_id", flat=True)
        )
        new_user = pick_least_loaded(eligible, load, 1, random.Random(seed))[0]
    assignment.status = AssignmentStatus.WITHDRAWN
    assignment.save(update_fields=["status"])
    replacement = Assignment.objects.create(sentence=sentence, annotator=new_user)
    log_action(
        assignment,
        by,
        "assignment.reassigned",
        {
            "sentence": sentence.pk,
            "from": assignment.annotator_id,
            "to": new_user.pk,
            "new_assignment": replacement.pk,
        },
    )
    return replacement


# Ten years: any longer "stale after" is a typo, and timedelta overflows past ~10^8 days.
MAX_STALE_HOURS = 24 * 365 * 10


def stale_cutoff(hours: int) -> Any:
    if not 0 <= hours <= MAX_STALE_HOURS:
        raise ServiceError(
            f"hours must be between 0 and {MAX_STALE_HOURS} (ten years), got {hours}",
            field="hours",
        )
    return timezone.now() - timedelta(hours=hours)


def _free_guideline_slug(slug: str) -> str:
    """An archived guideline (migration 0007) may hold the slug a new one would take."""
    candidate, n = slug, 1
    while Guideline.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{slug}-{n}"
    return candidate


@transaction.atomic
def update_guideline(
    *,
    user: Any,
    title: Any,
    body: Any,
    version: Any,
    task: str = "annotation",
    language: str = "zh",
) -> Guideline:
    """Save the guideline of `task` in `language` as its next version (`version` is the one
    the editor read; a stale edit is a Conflict)."""
    if not has_role(user, Role.ADMIN):
        raise NotFound("no such page")
    if not isinstance(title, str) or not title.strip():
        raise ServiceError("the title is empty", field="title")
    if not isinstance(body, str) or not body.strip():
        raise ServiceError("the guideline text is empty", field="body")
    if len(body) > 100_000:
        raise ServiceError("the guideline is longer than 100,000 characters", field="body")
    title = title.strip()
    max_title = Guideline._meta.get_field("title").max_length or 200
    if len(title) > max_title:
        raise ServiceError(
            f"the title is {len(title):,} characters; at most {max_title}", field="title"
        )
    guideline = guideline_for(task, language)
    if guideline.pk is not None:
        guideline = Guideline.objects.select_for_update().get(pk=guideline.pk)
    else:
        guideline.slug = _free_guideline_slug(guideline.slug)
    if str(version) != str(guideline.version):
        raise Conflict(
            "someone else edited the guideline meanwhile; reload and apply your change again"
        )
    guideline.title = title
    guideline.body = body
    guideline.version += 1
    guideline.updated_by = user
    guideline.save()
    log_action(
        guideline,
        user,
        "guideline.updated",
        {"version": guideline.version, "task": guideline.task, "language": guideline.language},
    )
    return guideline
