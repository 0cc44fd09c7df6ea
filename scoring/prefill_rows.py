"""The rows of a dataset's anchoring report, read from annotation, review and scoring records,
and the report itself (scoring/prefill.py computes it over these plain rows).

One item per first submission (revision 1) of an assignment that opened in the post-edit
mode: prefilled (the submission records the suggestion's label) or blind (its assignment is
blind, or the submission records ``blind``). A submission with no suggestion (rewrite mode)
is not an item.

"Unchanged" is the submission's own flag for a prefilled item (one box equal to the
suggestion, no tag; ERROR FREE accepting a "no error" suggestion). A blind item had nothing
to accept: it counts as unchanged when the annotator submitted exactly the suggestion they
were not shown, by the same rule, so the two arms' shares compare how often annotators end
where the suggestion is.

Agreement counts are the stored annotator samples (scoring/services/annotators.py: each box
with the language's box metric against the sentence's current golden references, summed
over the boxes); callers bring the samples up to date first (`refresh_annotator_scores`).
The suggestion is scored with the same box metric against the same reference block: for a
prefilled item the text that was shown, for a blind one the sentence's suggestion from the
dataset's suggestion source (what the box would have opened with).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Any

from django.db.models import Count, Max

from annotate.models import Correction, Submission, SubmissionTag, Suggestion
from annotate.suggestions import BLIND as BLIND_SOURCE
from annotate.suggestions import Shown, is_unchanged
from core.cache import cached
from datasets.models import Dataset, DatasetVersion, ReleasedSentence
from scoring import metric
from scoring.annotator_metric import box_metric
from scoring.models import AnnotatorSample
from scoring.prefill import (
    BLIND,
    PREFILLED,
    RESAMPLES,
    SEED,
    AnchoringReport,
    PrefillItem,
    TpFpFn,
    anchoring_report,
)
from scoring.services.systems import scoring_resources

# How long a report may be served from the cache at most (its key changes with the rows).
REPORT_CACHE_SECONDS = 600


def _arm(blind_assignment: bool, suggestion_source: str) -> str | None:
    if blind_assignment or suggestion_source == BLIND_SOURCE:
        return BLIND
    return PREFILLED if suggestion_source else None


class _SuggestionScorer:
    """Counts of a sentence's suggestion against its reference block, each pair once."""

    def __init__(self, dataset: Dataset, resources_dir: str | None) -> None:
        self.boxes = box_metric(dataset.language)
        self.resources: Any = None if self.boxes.english else scoring_resources(resources_dir)
        self._counts: dict[tuple[str, str, str], TpFpFn] = {}

    def counts(self, source: str, suggestion: str, ref_m2: str) -> TpFpFn:
        key = (source, suggestion, ref_m2)
        if key not in self._counts:
            reference = metric.parse_m2(ref_m2, name="stored sample")[0]
            box = self.boxes.box_block(source, suggestion, resources=self.resources)
            result = self.boxes.counts([box], [reference])
            self._counts[key] = (result["tp"], result["fp"], result["fn"])
        return self._counts[key]


def _typed_the_suggestion(texts: list[str], tag: str, suggestion: str, source: str) -> bool:
    """A blind item's "unchanged": the annotator submitted what the suggestion would have been,
    by the rule of a prefilled item (`annotate.suggestions.is_unchanged`: one box equal to it,
    or ERROR FREE where the suggestion is the source)."""
    if tag == SubmissionTag.ERROR_FREE:
        return suggestion.strip() == source.strip()
    return is_unchanged(Shown(text=suggestion), texts, tag)


def _boxes_of(submission_ids: list[int]) -> dict[int, list[str]]:
    boxes: dict[int, list[str]] = defaultdict(list)
    for submission_id, text in (
        Correction.objects.filter(submission_id__in=submission_ids)
        .order_by("submission_id", "position")
        .values_list("submission_id", "text")
    ):
        if text.strip():
            boxes[submission_id].append(text)
    return boxes


def prefill_items(
    dataset: Dataset,
    *,
    version: DatasetVersion | None = None,
    resources_dir: str | None = None,
) -> list[PrefillItem]:
    """The report's rows: every post-edit item of the dataset (of the release's sentences
    when ``version`` is given), in sentence and submission order."""
    submissions = Submission.objects.filter(
        assignment__sentence__dataset=dataset, revision=1
    ).exclude(suggestion_source="", assignment__blind=False)
    if version is not None:
        released = ReleasedSentence.objects.filter(version=version).values("sentence_id")
        submissions = submissions.filter(assignment__sentence_id__in=released)
    rows = list(
        submissions.order_by("assignment__sentence__position", "id").values(
            "id",
            "assignment__sentence_id",
            "assignment__sentence__text",
            "assignment__annotator__username",
            "assignment__blind",
            "suggestion_source",
            "suggestion_text",
            "unchanged",
            "tag",
            "time_spent_seconds",
        )
    )
    sentence_ids = {row["assignment__sentence_id"] for row in rows}
    agreement: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    ref_m2: dict[int, str] = {}
    for submission_id, sentence_id, tp, fp, fn, reference in AnnotatorSample.objects.filter(
        submission_id__in=[row["id"] for row in rows]
    ).values_list("submission_id", "sentence_id", "tp", "fp", "fn", "ref_m2"):
        total = agreement[submission_id]
        total[0], total[1], total[2] = total[0] + tp, total[1] + fp, total[2] + fn
        ref_m2[sentence_id] = reference
    # What a blind item's box would have opened with: the dataset's current suggestions.
    would_show = dict(
        Suggestion.objects.filter(
            sentence_id__in=sentence_ids, source=dataset.suggestion_source
        ).values_list("sentence_id", "text")
    )
    arms = {row["id"]: _arm(row["assignment__blind"], row["suggestion_source"]) for row in rows}
    boxes = _boxes_of([key for key, arm in arms.items() if arm == BLIND])
    scorer = _SuggestionScorer(dataset, resources_dir)
    items = []
    for row in rows:
        arm = arms[row["id"]]
        if arm is None:
            continue
        sentence_id = row["assignment__sentence_id"]
        shown = row["suggestion_text"] if arm == PREFILLED else would_show.get(sentence_id)
        suggestion = None
        if shown is not None and sentence_id in ref_m2:
            suggestion = scorer.counts(
                row["assignment__sentence__text"], shown, ref_m2[sentence_id]
            )
        counts = agreement.get(row["id"])
        unchanged = bool(row["unchanged"])
        if arm == BLIND and shown is not None:
            unchanged = _typed_the_suggestion(
                boxes.get(row["id"], []), row["tag"], shown, row["assignment__sentence__text"]
            )
        items.append(
            PrefillItem(
                annotator=row["assignment__annotator__username"],
                sentence=sentence_id,
                arm=arm,
                seconds=float(row["time_spent_seconds"]),
                unchanged=unchanged,
                agreement=(counts[0], counts[1], counts[2]) if counts else None,
                suggestion=suggestion,
            )
        )
    return items


def prefill_report(
    dataset: Dataset,
    *,
    version: DatasetVersion | None = None,
    resources_dir: str | None = None,
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> AnchoringReport:
    """The anchoring report of a dataset (or of a release's sentences), from the cache while
    the rows it reads are unchanged (`_state_key`; at most REPORT_CACHE_SECONDS old)."""

    def compute() -> AnchoringReport:
        items = prefill_items(dataset, version=version, resources_dir=resources_dir)
        return anchoring_report(
            items, metric=box_metric(dataset.language).name, seed=seed, resamples=resamples
        )

    key = _state_key(dataset, version=version, seed=seed, resamples=resamples)
    return cached(key, compute, REPORT_CACHE_SECONDS)


def _state_key(
    dataset: Dataset, *, version: DatasetVersion | None, seed: int, resamples: int
) -> str:
    """What the report depends on, in a few aggregate queries: the first submissions, the
    annotator samples (rescored rows are new rows) and the suggestions of the dataset. A
    suggestion rewritten in place keeps its id and time: the cache's time limit covers it."""
    submissions = Submission.objects.filter(
        assignment__sentence__dataset=dataset, revision=1
    ).aggregate(n=Count("id"), last=Max("id"))
    samples = AnnotatorSample.objects.filter(sentence__dataset=dataset).aggregate(
        n=Count("id"), last=Max("computed_at")
    )
    suggestions = Suggestion.objects.filter(sentence__dataset=dataset).aggregate(
        n=Count("id"), last=Max("id")
    )
    state = json.dumps(
        [
            # With the creation times: a database that reuses ids (a rolled-back test) or a
            # recreated dataset never meets an old report.
            dataset.pk,
            dataset.created_at,
            dataset.language,
            dataset.suggestion_source,
            (version.pk, version.created_at) if version is not None else None,
            seed,
            resamples,
            submissions,
            samples,
            suggestions,
        ],
        default=str,
    )
    return "scoring.prefill:" + hashlib.sha256(state.encode()).hexdigest()
