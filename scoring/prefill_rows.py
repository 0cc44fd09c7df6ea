"""The rows of a dataset's anchoring report, read from annotation, review and scoring records,
and the report itself (scoring/prefill.py computes it over these plain rows).

One item per first submission (revision 1) of an assignment that opened in the post-edit
mode: prefilled (the submission records the suggestion's label) or blind (its assignment is
blind, or the submission records ``blind``). A submission with no suggestion (rewrite mode)
is not an item.

Agreement counts are the stored annotator samples (scoring/services/annotators.py: each box
with the language's box metric against the sentence's current golden references, summed
over the boxes); callers bring the samples up to date first (`refresh_annotator_scores`).
The suggestion is scored with the same box metric against the same reference block: for a
prefilled item the text that was shown, for a blind one the sentence's suggestion from the
dataset's suggestion source (what the box would have opened with).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from annotate.models import Submission, Suggestion
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

BLIND_SOURCE = "blind"  # Submission.suggestion_source of a blind item


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
    scorer = _SuggestionScorer(dataset, resources_dir)
    items = []
    for row in rows:
        arm = _arm(row["assignment__blind"], row["suggestion_source"])
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
        items.append(
            PrefillItem(
                annotator=row["assignment__annotator__username"],
                sentence=sentence_id,
                arm=arm,
                seconds=float(row["time_spent_seconds"]),
                unchanged=bool(row["unchanged"]),
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
    """The anchoring report of a dataset (or of a release's sentences)."""
    items = prefill_items(dataset, version=version, resources_dir=resources_dir)
    return anchoring_report(
        items, metric=box_metric(dataset.language).name, seed=seed, resamples=resamples
    )
