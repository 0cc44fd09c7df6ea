"""Post-edit annotation: storing suggested corrections, drawing blind control items, and the
provenance of a submission (what the annotator was shown, how far they moved from it).

Where the suggestions come from is decided above: a system output of a release
(`scoring/services/suggestions.py`, since system outputs live in scoring) or the configured
LLM (`annotate/llm_suggestions.py`). Both end in `store_suggestions`, keyed by
(sentence, source), so a retried job updates its rows and never duplicates them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotate.models import Assignment, AssignmentStatus, Correction, Submission, Suggestion
from core.audit import log_action
from core.exceptions import ServiceError
from datasets.models import AnnotationMode, Dataset, Sentence

BLIND = "blind"  # Submission.suggestion_source of a blind control item
SOURCE_MAX_CHARS = 120
SIGNATURE_MAX_CHARS = 255


def char_distance(a: str, b: str) -> int:
    """Levenshtein distance over characters (insert, delete, substitute: 1 each)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


# --- suggestions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SuggestionRun:
    """What one suggestion run did: the label, its signature, how many sentences got a
    suggestion, how many got none (no system line, or no readable LLM answer), and the
    number of blind assignments of the project afterwards."""

    dataset: str
    source: str
    signature: str
    suggested: int
    unsuggested: int
    blind: int

    def as_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "source": self.source,
            "suggested": self.suggested,
            "blind": self.blind,
            "signature": self.signature,
        }


def check_label(source: str, signature: str) -> None:
    if not source or len(source) > SOURCE_MAX_CHARS:
        raise ServiceError(
            f"the suggestion source label must be 1-{SOURCE_MAX_CHARS} characters: {source[:40]!r}",
            field="source",
        )
    if len(signature) > SIGNATURE_MAX_CHARS:
        raise ServiceError(
            f"the suggestion signature is {len(signature)} characters; at most "
            f"{SIGNATURE_MAX_CHARS}",
            field="signature",
        )


@transaction.atomic
def store_suggestions(
    *, dataset: Dataset, source: str, signature: str, texts: dict[int, str], user: Any = None
) -> int:
    """Write one suggestion per sentence id in `texts` under `source` (insert or replace the
    text and signature: a retried or repeated run never adds a second row), and make
    `source` the project's current suggestion source. A text equal to the sentence is kept:
    it suggests "no error". Returns how many sentences have a suggestion from `source`."""
    check_label(source, signature)
    known = set(Sentence.objects.filter(dataset=dataset, pk__in=texts).values_list("pk", flat=True))
    strangers = sorted(set(texts) - known)
    if strangers:
        raise ServiceError(
            f"sentence {strangers[0]} is not in dataset {dataset.name}", field="sentence"
        )
    rows = [
        Suggestion(sentence_id=pk, source=source, signature=signature, text=text)
        for pk, text in texts.items()
    ]
    Suggestion.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["sentence", "source"],
        update_fields=["signature", "text"],
    )
    Dataset.objects.filter(pk=dataset.pk).update(suggestion_source=source)
    dataset.suggestion_source = source
    log_action(
        dataset,
        user,
        "project.suggestions",
        {"source": source, "signature": signature, "sentences": len(rows)},
    )
    return Suggestion.objects.filter(sentence__dataset=dataset, source=source).count()


# --- blind control items -------------------------------------------------------------------


def check_blind_share(share: Any) -> float:
    try:
        value = float(share)
    except (TypeError, ValueError):
        raise ServiceError(
            f"the blind share must be a number in [0, 1), got {share!r}", field="blind_share"
        ) from None
    if not 0 <= value < 1:
        raise ServiceError(
            f"the blind share must be in [0, 1) (0.25 for a quarter), got {value:g}",
            field="blind_share",
        )
    return value


def check_seed(seed: Any) -> int:
    try:
        return int(seed)
    except (TypeError, ValueError):
        raise ServiceError(f"the seed must be a whole number, got {seed!r}", field="seed") from None


def blind_count(share: float, n: int) -> int:
    """round(share x n), halves up (not Python's to-even), so 0.25 x 10 gives 3 everywhere."""
    return int(share * n + 0.5)


def undrawn_assignments(dataset: Dataset) -> Any:
    """The assignments a blind draw may still change: open and never opened, so their
    annotator has not seen whether a suggestion came with them."""
    return Assignment.objects.filter(
        sentence__dataset=dataset, status=AssignmentStatus.OPEN, opened_at__isnull=True
    )


def blind_total(dataset: Dataset) -> int:
    return (
        Assignment.objects.filter(sentence__dataset=dataset, blind=True)
        .exclude(status=AssignmentStatus.WITHDRAWN)
        .count()
    )


@transaction.atomic
def draw_blind_items(*, dataset: Dataset, share: Any, seed: Any = 0, user: Any = None) -> int:
    """Make exactly round(share x n) of each annotator's n undrawn assignments in the project
    blind (the rest not), chosen at random with `seed`: stratified by annotator, so every
    annotator with work gets their share. The same assignments and seed give the same draw.
    Returns the number of blind assignments of the project afterwards."""
    share = check_blind_share(share)
    seed = check_seed(seed)
    by_annotator: dict[int, list[int]] = {}
    for pk, annotator_id in (
        undrawn_assignments(dataset).order_by("pk").values_list("pk", "annotator_id")
    ):
        by_annotator.setdefault(annotator_id, []).append(pk)
    blind: list[int] = []
    for annotator_id in sorted(by_annotator):
        ids = by_annotator[annotator_id]
        # One generator per annotator: adding someone to the pool leaves the others' draws.
        rng = random.Random(f"{seed}:{annotator_id}")
        blind += rng.sample(ids, blind_count(share, len(ids)))
    drawn = [pk for ids in by_annotator.values() for pk in ids]
    Assignment.objects.filter(pk__in=drawn).update(blind=False)
    Assignment.objects.filter(pk__in=blind).update(blind=True)
    log_action(
        dataset,
        user,
        "project.blind_drawn",
        {"share": share, "seed": seed, "drawn": len(drawn), "blind": len(blind)},
    )
    return blind_total(dataset)


def store_run(
    dataset: Dataset,
    *,
    source: str,
    signature: str,
    texts: dict[int, str],
    unsuggested: int,
    blind_share: float | None,
    seed: Any,
    user: Any,
) -> SuggestionRun:
    """Store a run's suggestions, then draw the blind items when `blind_share` is given (else
    the flags stay), in the caller's transaction; what the run did."""
    suggested = store_suggestions(
        dataset=dataset, source=source, signature=signature, texts=texts, user=user
    )
    blind = (
        draw_blind_items(dataset=dataset, share=blind_share, seed=seed, user=user)
        if blind_share is not None
        else blind_total(dataset)
    )
    return SuggestionRun(
        dataset=dataset.name,
        source=source,
        signature=signature,
        suggested=suggested,
        unsuggested=unsuggested,
        blind=blind,
    )


# --- what the annotator sees and what they did -------------------------------------------


@dataclass(frozen=True)
class Shown:
    """What an assignment opens with: `source` is the suggestion's label, BLIND for a blind
    item, "" when no suggestion applies (rewrite mode, or no suggestion for the sentence);
    `text` is the suggestion shown (None when none was)."""

    source: str = ""
    signature: str = ""
    text: str | None = None


def _current_suggestion(assignment: Assignment) -> Suggestion | None:
    """The stored suggestion of the project's current source for the assignment's sentence,
    in a post-edit project; None otherwise."""
    dataset = assignment.sentence.dataset
    if dataset.annotation_mode != AnnotationMode.POST_EDIT or not dataset.suggestion_source:
        return None
    return Suggestion.objects.filter(
        sentence_id=assignment.sentence_id, source=dataset.suggestion_source
    ).first()


def shown_for(assignment: Assignment) -> Shown:
    """The suggestion the annotation box opens with, decided on the server from the project's
    mode and current source, the assignment's blind flag and the stored suggestion."""
    suggestion = _current_suggestion(assignment)
    if suggestion is None:
        return Shown()
    if assignment.blind:
        return Shown(source=BLIND)
    return Shown(source=suggestion.source, signature=suggestion.signature, text=suggestion.text)


@dataclass(frozen=True)
class Presented:
    """The suggestion as the annotator is told of it (page or API): its text, the source's
    label (`system:NAME` / `llm:MODEL`), the label's kind and the signature. A blind item is
    presented as a "no error" suggestion of the same source (the sentence itself), so nothing
    an annotator receives tells a blind control from a prefilled item; what was really shown
    is recorded by `shown_for` on the submission, never sent to the annotator."""

    text: str
    source: str
    signature: str

    @property
    def kind(self) -> str:
        return self.source.partition(":")[0]


@dataclass(frozen=True)
class Opening:
    """What an assignment's annotation box opens with: `text` (the suggestion, or the
    source), whether the project is in post-edit mode, and the suggestion presented (None in
    rewrite mode or when the sentence has no suggestion of the project's source)."""

    text: str
    post_edit: bool
    suggestion: Presented | None


def opening_for(assignment: Assignment) -> Opening:
    """What the assignment's box opens with; the annotation page and the annotator's API
    both read it here."""
    sentence = assignment.sentence
    post_edit = sentence.dataset.annotation_mode == AnnotationMode.POST_EDIT
    suggestion = _current_suggestion(assignment)
    if suggestion is None:
        return Opening(text=sentence.text, post_edit=post_edit, suggestion=None)
    # A blind item opens with the source under the same label and signature as a "no error"
    # suggestion would: the page and the API carry no sign of which one it is.
    text = sentence.text if assignment.blind else suggestion.text
    presented = Presented(text=text, source=suggestion.source, signature=suggestion.signature)
    return Opening(text=text, post_edit=post_edit, suggestion=presented)


def is_unchanged(shown: Shown, texts: Any, tag: Any) -> bool:
    """The submission is exactly one box equal to the suggestion (outer spaces aside), with no
    tag; a "no error" suggestion accepted so is recorded as ERROR FREE and still unchanged."""
    if shown.text is None or tag or not isinstance(texts, list | tuple) or len(texts) != 1:
        return False
    return isinstance(texts[0], str) and texts[0].strip() == shown.text.strip()


def distances(shown: Shown, source: str, text: str) -> dict[str, int | None]:
    return {
        "distance_from_source": char_distance(source.strip(), text),
        "distance_from_suggestion": (
            char_distance(shown.text.strip(), text) if shown.text is not None else None
        ),
    }


@dataclass(frozen=True)
class Provenance:
    """Where one annotator's correction (or tag) came from, for the review page: `shown` is
    the suggestion's label, BLIND for a blind item, "" when the box opened with the source."""

    annotator: str
    shown: str
    unchanged: bool
    distance_from_suggestion: int | None
    distance_from_source: int | None
    seconds: int

    @classmethod
    def of(
        cls, submission: Submission, correction: Correction | None, *, annotator: str
    ) -> Provenance:
        return cls(
            annotator=annotator,
            shown=submission.suggestion_source,
            unchanged=submission.unchanged,
            distance_from_suggestion=correction.distance_from_suggestion if correction else None,
            distance_from_source=correction.distance_from_source if correction else None,
            seconds=submission.time_spent_seconds,
        )
