"""Submitting a review: a verdict on every merged correction, the sentence status, the new
revision of the golden references and the study items of annotators who got it wrong.

`submit_review` runs as named steps: check the request -> read the verdicts -> decide the
reference rows -> claim the task (optimistic concurrency: the save names the task version it
was built on, and the conditional UPDATE lets exactly one save per version win) -> persist
-> audit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from annotate.models import Submission, SubmissionTag
from annotate.services import clean_text, clean_time_spent
from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.services import mark_notifications_done
from datasets.models import (
    GoldenReference,
    Judgement,
    ReferenceKind,
    ReferenceOrigin,
    Sentence,
    SentenceStatus,
)
from review.models import ReviewStatus, ReviewTask, StudyItem, StudyReason, Verdict
from review.provenance import reference_entries
from review.selectors import (
    MARKER_TEXT,
    TAG_KIND,
    Candidate,
    first_submissions,
    get_review_task_for,
    merged_candidates,
)
from review.services import JUDGEMENT_KIND, MAX_ADDED_REFERENCES, notify, write_references

ReferenceRow = tuple[str, str, str]  # kind, text, origin


@dataclass
class VerdictInput:
    position: int
    correct: bool
    text: str | None = None  # the reviewer's edit; None or equal to the candidate = unedited


@dataclass
class ReviewOutcome:
    task: ReviewTask
    references: list[GoldenReference]
    study_items: list[StudyItem]
    notes: list[str]


def parse_verdicts(raw: Any) -> list[VerdictInput]:
    if not isinstance(raw, list):
        raise ServiceError("verdicts must be a list of {position, correct, text}", field="verdicts")
    parsed = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or "position" not in item or "correct" not in item:
            raise ServiceError(
                f"verdict {index + 1}: needs 'position' and 'correct'", field="verdicts"
            )
        try:
            position = int(item["position"])
        except (TypeError, ValueError):
            raise ServiceError(
                f"verdict {index + 1}: position must be a number", field="verdicts"
            ) from None
        if not isinstance(item["correct"], bool):
            raise ServiceError(
                f"verdict {index + 1}: correct must be true or false", field="verdicts"
            )
        text = item.get("text")
        if text is not None and not isinstance(text, str):
            raise ServiceError(f"verdict {index + 1}: text must be a string", field="verdicts")
        parsed.append(VerdictInput(position=position, correct=item["correct"], text=text))
    return parsed


@transaction.atomic
def submit_review(
    *,
    task_id: Any,
    user: Any,
    version: Any,
    verdicts: Any,
    added: Any = (),
    judgement: Any,
    time_spent_seconds: Any = 0,
) -> ReviewOutcome:
    """Judge every merged correction, set the sentence status, write golden references and
    study items. `version` must be the task version the reviewer's page was built on."""
    task = get_review_task_for(user, task_id)
    version = _check_request(task, version, judgement)
    return save_review(
        task,
        user=user,
        version=version,
        verdicts=verdicts,
        added=added,
        judgement=judgement,
        time_spent_seconds=time_spent_seconds,
    )


def save_review(
    task: ReviewTask,
    *,
    user: Any,
    version: int,
    verdicts: Any,
    added: Any,
    judgement: str,
    time_spent_seconds: Any,
    amending: bool = False,
) -> ReviewOutcome:
    """The steps of a review save, for a first review or (`amending`, review/amendments.py)
    a new one replacing a saved review: the old verdict rows go (the amendment keeps them)
    and the golden references get a new revision (the old one stays, not current)."""
    sentence = task.sentence
    candidates = merged_candidates(task, with_edits=False)
    corrections = {c.position: c for c in candidates if c.is_correction}
    by_position = _verdicts_by_position(corrections, verdicts)
    added_texts = _clean_added(added)
    rows, stored, notes = _reference_rows(
        task, corrections, by_position, added_texts, source=sentence.text.strip()
    )
    rows = _rows_for_judgement(rows, judgement, candidates)
    stored += [
        Verdict(
            task=task,
            position=c.position,
            kind=c.kind,
            text=c.text,
            is_correct=c.kind == JUDGEMENT_KIND.get(Judgement(judgement)),
        )
        for c in candidates
        if not c.is_correction
    ]
    _claim(
        task,
        version=version,
        user=user,
        time_spent_seconds=time_spent_seconds,
        status=ReviewStatus.DONE if amending else ReviewStatus.OPEN,
    )
    task.refresh_from_db()
    if amending:
        Verdict.objects.filter(task=task).delete()
    verdict_rows = Verdict.objects.bulk_create(stored)
    by_candidate = {c.position: c for c in candidates}
    for row in verdict_rows:
        row.submissions.set(by_candidate[row.position].submission_ids)
    references = write_references(
        sentence=sentence,
        rows=rows,
        user=user,
        annotators=_annotator_of_each(rows, stored, candidates),
        entries=reference_entries(rows, stored, candidates),
    )
    Sentence.objects.filter(pk=sentence.pk).update(
        status=SentenceStatus.REVIEWED, judgement=judgement
    )
    study_items = _create_study_items(task=task, verdicts=verdict_rows, judgement=judgement)
    # The review is done: "ready for review" (to this reviewer or an earlier one) is read.
    mark_notifications_done(url=reverse("review:task", args=[task.pk]))
    _audit(
        task,
        user,
        judgement=judgement,
        version=version,
        verdict_rows=verdict_rows,
        references=references,
        study_items=study_items,
        action="review.amended" if amending else "review.submitted",
    )
    return ReviewOutcome(task=task, references=references, study_items=study_items, notes=notes)


def _annotator_of_each(
    rows: list[ReferenceRow], verdicts: list[Verdict], candidates: list[Candidate]
) -> dict[str, int | None]:
    """Reference text -> the annotator whose correction (or tag, for a marker) it is: the
    first to submit it when several wrote the same text (the candidate's earliest
    submission); an edited correction stays its annotator's. None for the reviewer's own."""
    by_position = {c.position: c for c in candidates}
    submissions: dict[str, list[int]] = {}
    for verdict in verdicts:
        candidate = by_position[verdict.position]
        if verdict.edited_text:
            submissions.setdefault(verdict.edited_text, candidate.submission_ids)
        elif verdict.is_correct and candidate.is_correction:
            submissions.setdefault(candidate.text, candidate.submission_ids)
    for kind, text, origin in rows:
        if origin == ReferenceOrigin.ANNOTATORS and kind != ReferenceKind.CORRECTION:
            tagged = [c for c in candidates if c.kind == kind]
            submissions.setdefault(text, [i for c in tagged for i in c.submission_ids])
    first = {text: min(ids) for text, ids in submissions.items() if ids}
    annotator = dict(
        Submission.objects.filter(pk__in=first.values()).values_list("pk", "assignment__annotator")
    )
    return {text: annotator.get(first[text]) if text in first else None for _kind, text, _o in rows}


def _check_request(task: ReviewTask, version: Any, judgement: Any) -> int:
    if task.status == ReviewStatus.WAITING:
        raise Conflict(
            "the annotators have not all submitted yet; this sentence cannot be reviewed"
        )
    if task.status == ReviewStatus.DONE:
        raise Conflict(
            f"{task.submitted_by or 'someone'} already saved the review of this sentence; "
            "reload the page to see the golden references"
        )
    return check_version_and_status(version, judgement)


def check_version_and_status(version: Any, judgement: Any) -> int:
    """The page's task version as a number; the sentence status one of the three."""
    try:
        number = int(version)
    except (TypeError, ValueError):
        raise ServiceError("version is missing; reload the review page", field="version") from None
    if judgement not in (Judgement.ANNOTATABLE, Judgement.ERROR_FREE, Judgement.NOT_ANNOTATABLE):
        raise ServiceError(
            "choose the sentence status: annotatable, error_free or not_annotatable",
            field="judgement",
        )
    return number


def _verdicts_by_position(
    corrections: dict[int, Candidate], verdicts: Any
) -> dict[int, VerdictInput]:
    """One verdict per correction candidate, none for anything else."""
    by_position: dict[int, VerdictInput] = {}
    for verdict in parse_verdicts(verdicts):
        if verdict.position not in corrections:
            raise ServiceError(
                f"verdict for candidate {verdict.position + 1}, which is not a correction of this "
                "sentence; reload the page",
                field="verdicts",
            )
        by_position[verdict.position] = verdict
    missing = sorted(set(corrections) - set(by_position))
    if len(missing) == 1:
        raise ServiceError(
            f"correction {missing[0] + 1} has no verdict: mark it Correct or Wrong",
            field="verdicts",
        )
    if missing:  # name them all (only the first used to be named)
        numbers = ", ".join(str(position + 1) for position in missing[:-1])
        raise ServiceError(
            f"corrections {numbers} and {missing[-1] + 1} have no verdict ({len(missing)} of"
            f" {len(corrections)}): mark each Correct or Wrong",
            field="verdicts",
        )
    return by_position


def _clean_added(added: Any) -> list[str]:
    if not isinstance(added, list | tuple):
        raise ServiceError("added must be a list of reference texts", field="added")
    if len(added) > MAX_ADDED_REFERENCES:
        raise ServiceError(f"at most {MAX_ADDED_REFERENCES} added references", field="added")
    texts = [clean_text(t, field=f"added reference {i + 1}") for i, t in enumerate(added)]
    return [t for t in texts if t]


def _reference_rows(
    task: ReviewTask,
    corrections: dict[int, Candidate],
    by_position: dict[int, VerdictInput],
    added_texts: list[str],
    *,
    source: str,
) -> tuple[list[ReferenceRow], list[Verdict], list[str]]:
    """The references the verdicts, edits and added texts make (each text once), the verdict
    rows of the corrections, and notes for the reviewer."""
    rows: list[ReferenceRow] = []
    stored: list[Verdict] = []
    for position, candidate in sorted(corrections.items()):
        verdict = by_position[position]
        edited = (
            clean_text(verdict.text, field=f"edit of correction {position + 1}")
            if verdict.text
            else ""
        )
        if edited == candidate.text:
            edited = ""
        if edited == source:
            raise ServiceError(
                f"the edit of correction {position + 1} equals the source; set the sentence "
                "status to error free instead",
                field="verdicts",
            )
        if edited:
            rows.append((ReferenceKind.CORRECTION, edited, ReferenceOrigin.EDITED))
        elif verdict.correct:
            rows.append((ReferenceKind.CORRECTION, candidate.text, ReferenceOrigin.ANNOTATORS))
        stored.append(
            Verdict(
                task=task,
                position=position,
                kind=candidate.kind,
                text=candidate.text,
                is_correct=verdict.correct,
                edited_text=edited,
            )
        )
    for index, text in enumerate(added_texts):
        if text == source:
            raise ServiceError(
                f"added reference {index + 1} equals the source; set the sentence status to "
                "error free instead",
                field="added",
            )
        rows.append((ReferenceKind.CORRECTION, text, ReferenceOrigin.ADDED))
    # Two routes to one text (an edit equal to another correction) give one reference.
    notes: list[str] = []
    distinct: list[ReferenceRow] = []
    for row in rows:
        if any(row[1] == kept[1] for kept in distinct):
            notes.append(f"reference {row[1]!r} was given twice and is kept once")
        else:
            distinct.append(row)
    return distinct, stored, notes


def _rows_for_judgement(
    rows: list[ReferenceRow], judgement: str, candidates: list[Candidate]
) -> list[ReferenceRow]:
    """An annotatable sentence needs a reference; an error-free or not-annotatable one gets
    only its marker."""
    if judgement == Judgement.ANNOTATABLE:
        if not rows:
            raise ServiceError(
                "the sentence is marked annotatable but has no reference: mark a correction "
                "Correct, edit one, or add a reference",
                field="judgement",
            )
        return rows
    if rows:
        label = Judgement(judgement).label
        raise ServiceError(
            f"the sentence is marked {label}, so no correction can be a reference: mark "
            "them Wrong and remove edits and added references",
            field="judgement",
        )
    kind = JUDGEMENT_KIND[Judgement(judgement)]
    tagged = any(c.kind == kind for c in candidates)
    return [
        (kind, MARKER_TEXT[kind], ReferenceOrigin.ANNOTATORS if tagged else ReferenceOrigin.ADDED)
    ]


def _claim(
    task: ReviewTask, *, version: int, user: Any, time_spent_seconds: Any, status: str
) -> None:
    """Mark the task done if it is still at `version` (and `status`: open for a first save,
    done for an amendment); otherwise someone else saved first."""
    won = ReviewTask.objects.filter(pk=task.pk, version=version, status=status).update(
        version=F("version") + 1,
        status=ReviewStatus.DONE,
        submitted_at=timezone.now(),
        submitted_by=user,
        time_spent_seconds=clean_time_spent(time_spent_seconds),
    )
    if won:
        return
    task.refresh_from_db()
    if task.status == ReviewStatus.WAITING:
        raise Conflict(
            "the annotators have not all submitted yet; this sentence cannot be reviewed"
        )
    who = task.submitted_by.username if task.submitted_by else "someone"
    raise Conflict(
        f"{who} saved the review of this sentence first (at {task.submitted_at:%H:%M:%S}); "
        "your changes were not saved. Reload the page to see the golden references."
    )


def _audit(
    task: ReviewTask,
    user: Any,
    *,
    judgement: str,
    version: int,
    verdict_rows: list[Verdict],
    references: list[GoldenReference],
    study_items: list[StudyItem],
    action: str,
) -> None:
    # One entry per verdict and per reference as well, so "who decided this?" is answered
    # from the object's own audit trail.
    for row in verdict_rows:
        log_action(
            row,
            user,
            "verdict.recorded",
            {
                "task": task.pk,
                "kind": row.kind,
                "text": row.text,
                "correct": row.is_correct,
                "edited_text": row.edited_text,
            },
        )
    for reference in references:
        log_action(
            reference,
            user,
            f"reference.{reference.origin}",
            {
                "sentence": task.sentence_id,
                "revision": reference.revision,
                "text": reference.text,
                "kind": reference.kind,
            },
        )
    log_action(
        task,
        user,
        action,
        {
            "sentence": task.sentence_id,
            "judgement": judgement,
            "version": version,
            "verdicts": [
                {
                    "position": v.position,
                    "kind": v.kind,
                    "text": v.text,
                    "correct": v.is_correct,
                    "edited_text": v.edited_text,
                }
                for v in verdict_rows
            ],
            "references": [
                {"text": r.text, "kind": r.kind, "origin": r.origin} for r in references
            ],
            "study_items": [item.pk for item in study_items],
        },
    )


def _create_study_items(
    *, task: ReviewTask, verdicts: list[Verdict], judgement: str
) -> list[StudyItem]:
    """One item per annotator with a correction judged wrong or a tag that disagreed."""
    wrong_texts = {
        v.text for v in verdicts if v.kind == ReferenceKind.CORRECTION and not v.is_correct
    }
    items = []
    for submission in first_submissions(task):
        reason = None
        if submission.tag:
            if str(TAG_KIND[SubmissionTag(submission.tag)]) != str(
                JUDGEMENT_KIND.get(Judgement(judgement), "")
            ):
                reason = StudyReason.TAG_DISAGREED
        elif any(c.text in wrong_texts for c in submission.corrections.all()):
            reason = StudyReason.WRONG_CORRECTION
        if reason is None:
            continue
        item, created = StudyItem.objects.get_or_create(
            assignment=submission.assignment, task=task, defaults={"reason": reason}
        )
        items.append(item)
        if not created:  # kept from the review this one amends: told already
            continue
        notify(
            submission.assignment.annotator_id,
            f"Study: your annotation of sentence {task.sentence.external_id} of "
            f"{task.sentence.dataset} differs from the review",
            reverse("review:study", args=[item.pk]),
        )
    return items
