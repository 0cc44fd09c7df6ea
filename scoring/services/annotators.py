"""Annotator quality: each submitted box scored against the sentence's current golden
references. `rescore_sentence(sentence_id)` (re)builds the samples of one sentence; it runs
on commit whenever a GoldenReference row is saved (signal in scoring/signals.py), and review
code that writes references in bulk calls `rescore_sentence_on_commit`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Q

from annotate.models import Submission, SubmissionTag
from core.cache import cached
from core.exceptions import ServiceUnavailable
from core.job_queue import enqueue_job
from core.jobs import (
    JobCancelled,
    finish_job,
    mark_running,
    report_progress,
    send_best_effort,
)
from core.models import BackgroundJob, JobStatus
from datasets.models import (
    Dataset,
    DatasetVersion,
    GoldenReference,
    Language,
    ReferenceKind,
    ReleasedSentence,
    Sentence,
)
from datasets.reference_m2 import ENGLISH_SIGNATURE
from scoring import metric, tasks
from scoring.annotator_metric import BoxMetric, box_metric
from scoring.models import (
    AnnotatorSample,
)
from scoring.services.systems import scoring_resources

JOB_KIND_ANNOTATORS = "scoring.annotators"


def _reference_texts(references: Sequence[GoldenReference]) -> list[str]:
    """Golden references as target strings (the markers for the special kinds; each
    language's box metric reads them its own way)."""
    texts = []
    for ref in references:
        if ref.kind == ReferenceKind.ERROR_FREE:
            texts.append(metric.NO_ERROR_TEXT)
        elif ref.kind == ReferenceKind.NOT_ANNOTATABLE:
            texts.append(metric.NOT_ANNOTATABLE_TEXT)
        else:
            texts.append(ref.text)
    return texts


def _sample_hypotheses(
    submission: Submission, sentence: Sentence
) -> list[tuple[int, int | None, str]]:
    """(slot, correction id, hypothesis) for each box of a submission; a tag is one box."""
    if submission.tag == SubmissionTag.ERROR_FREE:
        return [(0, None, metric.NO_ERROR_TEXT)]
    if submission.tag == SubmissionTag.NOT_ANNOTATABLE:
        return [(0, None, metric.NOT_ANNOTATABLE_TEXT)]
    boxes: list[tuple[int, int | None, str]] = []
    for correction in submission.corrections.all():
        text = correction.text.strip()
        if text:
            boxes.append((correction.position, correction.pk, text))
    return boxes


def samples_key(language: str, resources: Any) -> str:
    """What a sample was scored with: the Chinese resources' signature, or ERRANT's (an
    English sample scored before English boxes had their own metric has neither)."""
    return ENGLISH_SIGNATURE if language == Language.ENGLISH else str(resources.signature)


def rescore_sentence(
    sentence_id: int, *, resources_dir: str | None = None, force: bool = False
) -> int:
    """Recompute the annotator samples of one sentence against its current golden references.

    Idempotent: the sentence's samples are replaced in one transaction. A sentence without
    current golden references has no samples. Unless `force`, samples already built from
    the same reference revision, submissions and resources are kept as they are. Returns
    the number of samples of the sentence.
    """
    sentence = Sentence.objects.select_related("dataset").filter(pk=sentence_id).first()
    if sentence is None:
        return 0
    boxes = box_metric(sentence.dataset.language)
    references = list(
        GoldenReference.objects.filter(sentence=sentence, is_current=True).order_by("position")
    )
    submissions = list(
        Submission.objects.filter(assignment__sentence=sentence, revision=1)
        .select_related("assignment")
        .prefetch_related("corrections")
        .order_by("id")
    )
    if not references or not submissions:
        AnnotatorSample.objects.filter(sentence=sentence).delete()
        return 0
    resources = scoring_resources(resources_dir)
    key = samples_key(sentence.dataset.language, resources)
    revision = max(ref.revision for ref in references)
    wanted = {
        (submission.pk, slot)
        for submission in submissions
        for slot, _, _ in _sample_hypotheses(submission, sentence)
    }
    existing = list(
        AnnotatorSample.objects.filter(sentence=sentence).values_list(
            "submission_id", "slot", "golden_revision", "reference_count", "resources_key"
        )
    )
    if (
        not force
        and existing
        and all(
            (rev, count, stored_key) == (revision, len(references), key)
            for _, _, rev, count, stored_key in existing
        )
        and {(sub, slot) for sub, slot, *_ in existing} == wanted
    ):
        return len(existing)
    ref_texts = _reference_texts(references)
    ref_block = boxes.reference_block(sentence.text, ref_texts, resources=resources)
    ref_m2 = metric.blocks_to_text([ref_block])
    samples = []
    for submission in submissions:
        for slot, correction_id, hypothesis in _sample_hypotheses(submission, sentence):
            hyp_block = boxes.box_block(sentence.text, hypothesis, resources=resources)
            counts = boxes.counts([hyp_block], [ref_block])
            samples.append(
                AnnotatorSample(
                    sentence=sentence,
                    annotator_id=submission.assignment.annotator_id,
                    submission=submission,
                    correction_id=correction_id,
                    slot=slot,
                    hypothesis=hypothesis,
                    golden_revision=revision,
                    reference_count=len(references),
                    hyp_m2=metric.blocks_to_text([hyp_block]),
                    ref_m2=ref_m2,
                    tp=counts["tp"],
                    fp=counts["fp"],
                    fn=counts["fn"],
                    resources_key=key,
                )
            )
    with transaction.atomic():
        AnnotatorSample.objects.filter(sentence=sentence).delete()
        AnnotatorSample.objects.bulk_create(samples)
    return len(samples)


def rescore_sentence_on_commit(sentence_id: int) -> None:
    """Schedule `rescore_sentence` after the current transaction commits. Review code that
    writes golden references with bulk operations (which send no signals) calls this.
    Several calls for one sentence are cheap: a sample set already built from the current
    references is left alone."""

    # Best effort: with the broker down the review still saves; the sentence stays stale and
    # `refresh_annotator_scores` recomputes it on the next read of the annotator pages.
    send_best_effort(tasks.rescore_annotator_sentence, sentence_id)


def stale_sentence_ids(*, dataset_id: int) -> list[int]:
    """Sentences whose stored samples do not match their current golden references or their
    submissions (new review, accepted complaint, late submission, or never scored)."""
    current: dict[int, tuple[int, int]] = {}
    for row in (
        GoldenReference.objects.filter(sentence__dataset_id=dataset_id, is_current=True)
        .values("sentence_id")
        .annotate(revision=Max("revision"), count=Count("id"))
    ):
        current[row["sentence_id"]] = (row["revision"], row["count"])
    submitted: dict[int, set[int]] = defaultdict(set)
    # Submissions that give at least one box (a tag, or a correction) are the ones sampled.
    for sentence_id, submission_id in (
        Submission.objects.filter(assignment__sentence__dataset_id=dataset_id, revision=1)
        .filter(~Q(tag=SubmissionTag.CORRECTED) | Q(corrections__isnull=False))
        .values_list("assignment__sentence_id", "id")
        .distinct()
    ):
        submitted[sentence_id].add(submission_id)
    stored_state: dict[int, set[tuple[int, int]]] = defaultdict(set)
    stored_submissions: dict[int, set[int]] = defaultdict(set)
    # Samples scored with another metric or other resources are stale too (English samples
    # scored on characters before English boxes were scored with ERRANT, for instance).
    language = Dataset.objects.filter(pk=dataset_id).values_list("language", flat=True).first()
    key = samples_key(language or "", scoring_resources(None))
    for sentence_id, submission_id, revision, count, stored_key in AnnotatorSample.objects.filter(
        sentence__dataset_id=dataset_id
    ).values_list(
        "sentence_id", "submission_id", "golden_revision", "reference_count", "resources_key"
    ):
        stored_state[sentence_id].add((revision, count) if stored_key == key else (-1, -1))
        stored_submissions[sentence_id].add(submission_id)
    stale = []
    for sentence_id in set(current) | set(stored_state):
        if sentence_id not in current:
            stale.append(sentence_id)  # references withdrawn: samples must go
            continue
        if not submitted.get(sentence_id):
            if sentence_id in stored_state:
                stale.append(sentence_id)
            continue
        if (
            stored_state.get(sentence_id) != {current[sentence_id]}
            or stored_submissions[sentence_id] != submitted[sentence_id]
        ):
            stale.append(sentence_id)
    return sorted(stale)


def refresh_stale_samples(*, dataset_id: int, resources_dir: str | None = None) -> int:
    """Recompute only the stale sentences of a dataset; returns how many were recomputed."""
    stale = stale_sentence_ids(dataset_id=dataset_id)
    for sentence_id in stale:
        rescore_sentence(sentence_id, resources_dir=resources_dir, force=True)
    return len(stale)


def rescore_dataset(
    *,
    dataset_id: int,
    job_id: int | None = None,
    resources_dir: str | None = None,
    only_stale: bool = False,
) -> int:
    """Rebuild the annotator samples of a dataset: every sentence (after a resources change)
    or only the stale ones. Returns the number of sentences recomputed."""
    if only_stale:
        sentence_ids = stale_sentence_ids(dataset_id=dataset_id)
    else:
        sentence_ids = sorted(
            set(
                GoldenReference.objects.filter(
                    sentence__dataset_id=dataset_id, is_current=True
                ).values_list("sentence_id", flat=True)
            )
            | set(
                AnnotatorSample.objects.filter(sentence__dataset_id=dataset_id).values_list(
                    "sentence_id", flat=True
                )
            )
        )
    if job_id is not None:
        mark_running(job_id, total=len(sentence_ids), message="scoring annotators")
    done = 0
    try:
        for done, sentence_id in enumerate(sentence_ids, start=1):
            rescore_sentence(sentence_id, resources_dir=resources_dir, force=True)
            if job_id is not None and done % 50 == 0:
                report_progress(job_id, done)
    except JobCancelled:
        return done
    if job_id is not None:
        finish_job(
            job_id,
            result={"sentences": len(sentence_ids)},
            message=f"{len(sentence_ids)} sentences",
        )
    return len(sentence_ids)


def start_annotator_rescoring(*, dataset_id: int, user: Any) -> BackgroundJob:
    """Admin action: recompute every annotator sample of a dataset in the background (after
    the resources changed, for instance)."""
    return enqueue_job(
        kind=JOB_KIND_ANNOTATORS,
        user=user,
        params={"dataset": dataset_id, "all": True},
        message="re-scoring all annotator samples",
        task=tasks.rescore_annotator_dataset,
        task_args=lambda job_id: (dataset_id, job_id, False),
    )


# Above this many stale sentences a page does not wait: the work goes to a background job.
INLINE_REFRESH_LIMIT = 200


def refresh_annotator_scores(
    *, dataset_id: int, user: Any, inline_limit: int = INLINE_REFRESH_LIMIT
) -> BackgroundJob | None:
    """Bring a dataset's annotator samples up to date before they are read: a few stale
    sentences are recomputed at once; many go to a background job (returned, so the page
    can show its progress) while the page shows the samples stored so far."""
    stale = stale_sentence_ids(dataset_id=dataset_id)
    if not stale:
        return None
    if len(stale) <= inline_limit:
        for sentence_id in stale:
            rescore_sentence(sentence_id, force=True)
        return None
    running = BackgroundJob.objects.filter(
        kind=JOB_KIND_ANNOTATORS,
        params__dataset=dataset_id,
        status__in=[JobStatus.QUEUED, JobStatus.RUNNING],
    ).first()
    if running is not None:
        return running
    try:
        job = enqueue_job(
            kind=JOB_KIND_ANNOTATORS,
            user=user,
            total=len(stale),
            params={"dataset": dataset_id},
            message=f"re-scoring {len(stale)} sentences",
            task=tasks.rescore_annotator_dataset,
            task_args=lambda job_id: (dataset_id, job_id, True),
        )
    except ServiceUnavailable:
        # A page read: it shows the samples stored so far; the next read tries again.
        return None
    return job


def release_human_scores(version: DatasetVersion) -> dict[str, Any]:
    """The leaderboard's "Human" row of a release (it used to be scored against the
    live golden references): every annotator box of the release's sentences scored against
    the references the release froze, the same corpus counts and reference-count curve as
    `scoring.selectors.human_scores`. The boxes' edits come from the stored samples (their
    hypothesis side does not depend on the references); only the reference side is built
    here, once per released sentence, with the release language's box metric. Cached per
    release, its samples and resources."""
    resources = scoring_resources(None)
    language = version.dataset.language
    released = list(
        ReleasedSentence.objects.filter(version=version, sentence__isnull=False).order_by(
            "position"
        )
    )
    samples = list(
        AnnotatorSample.objects.filter(sentence_id__in=[r.sentence_id for r in released])
        .order_by("sentence_id", "submission_id", "slot")
        .values_list("sentence_id", "hyp_m2", "id")
    )
    # The release's creation time as well as its id: an id can come back after a rollback
    # (SQLite reuses it; the test suite rolls back every test), and a cached row of the
    # rolled-back release must not answer for the new one.
    key = (
        f"scoring:release-human:v2:{version.pk}:{version.created_at.isoformat()}:"
        f"{samples_key(language, resources)}:{len(samples)}:"
        f"{max((s[2] for s in samples), default=0)}"
    )
    return cached(
        key,
        lambda: _release_human(released, samples, resources, box_metric(language)),
        timeout=24 * 3600,
    )


def _release_human(
    released: Sequence[ReleasedSentence],
    samples: Sequence[tuple[int, str, int]],
    resources: Any,
    boxes: BoxMetric,
) -> dict[str, Any]:
    by_sentence: dict[int, list[str]] = defaultdict(list)
    for sentence_id, hyp_m2, _ in samples:
        by_sentence[sentence_id].append(hyp_m2)
    hyps: list[metric.M2Block] = []
    refs: list[metric.M2Block] = []
    for row in released:
        stored = by_sentence.get(int(row.sentence_id or 0), [])
        if not stored or not row.references:
            continue
        ref_block = boxes.reference_block(row.text, list(row.references), resources=resources)
        for hyp_m2 in stored:
            hyps.append(metric.parse_m2(hyp_m2, name="stored sample")[0])
            refs.append(ref_block)
    if not hyps:
        return {"samples": 0, "ref_count_curve": [], "ref_count_curve_by_k": {}}
    overall = boxes.counts(hyps, refs)
    max_refs = max(len(r.references) for r in released)
    by_k = {str(k): boxes.counts(hyps, refs, max_refs=k)["f05"] for k in range(1, max_refs)}
    by_k["all"] = overall["f05"]
    return {
        **overall,
        "samples": len(hyps),
        "ref_count_curve": metric.curve_points(by_k),
        "ref_count_curve_by_k": by_k,
        "frozen": True,
        "metric": boxes.name,
    }
