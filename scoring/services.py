"""Services of the scoring app: everything that writes scores.

The numbers always come from the metric library (`scoring.gec`, wrapped in
scoring/metric.py); this module loads rows, calls it, and stores the results.

* System scoring: `upload_system_output` -> `request_scoring` (a BackgroundJob plus the
  Celery task `scoring.score_system_output`, queued on commit) -> `run_scoring` (the work;
  idempotent: a re-run replaces the score's rows, never duplicates them; cancellable
  through the job).
* Ensembles: `create_ensemble` (edit-wise voting over stored outputs) -> scored like any output.
* Annotator quality: `rescore_sentence(sentence_id)` (re)builds the samples of one sentence;
  it runs on commit whenever a GoldenReference row is saved (signal in scoring/signals.py),
  and review code that writes references in bulk calls `rescore_sentence_on_commit`.
* Pay: `set_pay_rates`.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotate.models import DatasetVersion, ReleasedSentence, Sentence, Submission, SubmissionTag
from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.jobs import JobCancelled, fail_job, finish_job, mark_running, report_progress, start_job
from core.models import BackgroundJob, JobStatus
from review.models import GoldenReference, ReferenceKind
from scoring import metric
from scoring.gec.ensemble import vote, vote_edits_from
from scoring.models import (
    AnnotatorSample,
    OutputFormat,
    PayRates,
    ReferenceM2Cache,
    ScoreStatus,
    SentenceResult,
    SystemOutput,
    SystemScore,
)
from scoring.uploads import ReleasedRow, decode_upload, hypotheses_checksum, parse_system_output

logger = logging.getLogger(__name__)

JOB_KIND_SYSTEM = "scoring.system"
JOB_KIND_ANNOTATORS = "scoring.annotators"
# Progress is written every this many sentences: often enough for a smooth bar, rarely
# enough that the job row is not a bottleneck.
PROGRESS_EVERY = 100
MAX_NAME_LENGTH = 100


# --- resources ------------------------------------------------------------------------------


def resources_directory(override: str | None = None) -> str | None:
    """The ChERRANT resources directory in force: an explicit override, else the setting
    (itself read from the GEC_CHERRANT_RESOURCES environment variable), else None (the
    library's documented default)."""
    value = override if override is not None else getattr(settings, "GEC_CHERRANT_RESOURCES", "")
    return value or None


def scoring_resources(override: str | None = None) -> metric.Resources:
    try:
        return metric.load_resources(resources_directory(override))
    except ValueError as exc:  # ResourceError names the directory and file
        raise ServiceError(f"scoring resources: {exc}", field="resources") from None


# --- system outputs -------------------------------------------------------------------------


def released_rows(version: DatasetVersion) -> list[ReleasedSentence]:
    return list(version.sentences.order_by("position"))


def upload_system_output(
    *,
    version: DatasetVersion,
    name: str,
    data: bytes,
    file_name: str,
    user: Any,
    file_format: str = "auto",
    description: str = "",
    replace: bool = False,
) -> SystemOutput:
    """Validate an uploaded output against the release and store it (not yet scored).

    With `replace`, an output of the same name on the release is overwritten and its old
    score deleted; otherwise a name clash is a Conflict.
    """
    name = (name or "").strip()
    if not name:
        raise ServiceError("give the system a name", field="name")
    if len(name) > MAX_NAME_LENGTH:
        raise ServiceError(f"system name longer than {MAX_NAME_LENGTH} characters", field="name")
    max_bytes = getattr(settings, "GEC_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
    if len(data) > max_bytes:
        raise ServiceError(f"{file_name}: {len(data)} bytes is above the {max_bytes}-byte limit", field="file")
    rows = released_rows(version)
    text = decode_upload(data, file_name=file_name)
    parsed = parse_system_output(
        text,
        release=[ReleasedRow(row.external_id, row.text) for row in rows],
        file_name=file_name,
        file_format=file_format,
    )
    with transaction.atomic():
        existing = SystemOutput.objects.select_for_update().filter(version=version, name=name).first()
        if existing is not None:
            if not replace:
                raise Conflict(
                    f"{version.label} already has a system named {name!r}; choose another name "
                    "or replace it",
                    field="name",
                )
            SystemScore.objects.filter(system=existing).delete()
            existing.hypotheses = parsed.hypotheses
            existing.checksum = parsed.checksum
            existing.file_name = file_name
            existing.file_format = parsed.file_format
            existing.description = description
            existing.save()
            system = existing
        else:
            system = SystemOutput.objects.create(
                version=version,
                name=name,
                description=description,
                file_name=file_name,
                file_format=parsed.file_format,
                hypotheses=parsed.hypotheses,
                checksum=parsed.checksum,
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
        log_action(
            system, user, "scoring.upload",
            {"version": version.pk, "name": name, "format": parsed.file_format,
             "sentences": len(parsed.hypotheses), "replaced": existing is not None},
        )
    return system


def delete_system_output(*, system: SystemOutput, user: Any) -> None:
    with transaction.atomic():
        log_action(system, user, "scoring.delete", {"name": system.name, "version": system.version_id})
        system.delete()


# --- scoring jobs ---------------------------------------------------------------------------


def request_scoring(*, system: SystemOutput, user: Any, resources_dir: str | None = None) -> SystemScore:
    """Queue (or re-queue) the scoring of `system`; returns its SystemScore row.

    The job row is committed first so the browser can poll it; the Celery task is sent on
    commit. A score that is already queued or running is not queued twice.
    """
    job = start_job(
        kind=JOB_KIND_SYSTEM, user=user, total=len(system.hypotheses),
        params={"system": system.pk}, message=f"scoring {system.name}",
    )
    with transaction.atomic():
        score, _ = SystemScore.objects.select_for_update().get_or_create(system=system)
        if score.status in (ScoreStatus.QUEUED, ScoreStatus.RUNNING) and score.background_job_id:
            running = BackgroundJob.objects.filter(pk=score.background_job_id).first()
            if running is not None and not running.is_finished:
                BackgroundJob.objects.filter(pk=job.pk).delete()
                return score
        score.status = ScoreStatus.QUEUED
        score.background_job_id = job.pk
        score.error = ""
        score.save(update_fields=["status", "background_job_id", "error"])
        log_action(system, user, "scoring.request", {"job": job.pk})
        score_id, job_id = score.pk, job.pk

        def send() -> None:
            from scoring.tasks import score_system_output

            score_system_output.delay(score_id, job_id, resources_dir)

        transaction.on_commit(send)
    return score


def cancel_scoring(*, score: SystemScore, user: Any) -> SystemScore:
    """Stop a queued or running score; the work notices at its next progress report."""
    if score.status not in (ScoreStatus.QUEUED, ScoreStatus.RUNNING):
        raise Conflict(f"the score of {score.system.name} is {score.status}, nothing to cancel")
    if score.background_job_id:
        BackgroundJob.objects.filter(
            pk=score.background_job_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        ).update(status=JobStatus.CANCELLED, message="cancelled", finished_at=timezone.now())
    score.status = ScoreStatus.CANCELLED
    score.finished_at = timezone.now()
    score.save(update_fields=["status", "finished_at"])
    log_action(score.system, user, "scoring.cancel", {"job": score.background_job_id})
    return score


def reference_m2_blocks(
    version: DatasetVersion, rows: Sequence[ReleasedSentence], resources: metric.Resources
) -> list[metric.M2Block]:
    """The release's reference M2 (strategy `all`), extracted once per resources signature:
    a release never changes, so every later score of it reuses the stored text."""
    cached = ReferenceM2Cache.objects.filter(version=version, resources_key=resources.signature).first()
    if cached is not None:
        return metric.parse_m2(cached.m2_text, name=f"{version.label} references")
    blocks = [metric.sentence_block(row.text, list(row.references), resources=resources) for row in rows]
    ReferenceM2Cache.objects.get_or_create(
        version=version, resources_key=resources.signature,
        defaults={"m2_text": metric.blocks_to_text(blocks)},
    )
    return blocks


def run_scoring(*, score_id: int, job_id: int | None = None, resources_dir: str | None = None) -> SystemScore:
    """Score a stored system output: the body of the Celery task. Idempotent.

    Extraction runs outside any transaction so progress and cancellation are visible; all
    rows are written at the end in one transaction that first deletes the previous rows.
    """
    score = SystemScore.objects.select_related("system__version").filter(pk=score_id).first()
    if score is None:
        raise NotFound(f"no score {score_id}")
    if job_id is not None and (
        score.background_job_id not in (None, job_id)
        or BackgroundJob.objects.filter(pk=job_id, status=JobStatus.CANCELLED).exists()
    ):
        return score  # cancelled before it started, or superseded by a newer request
    system = score.system
    version = system.version
    started = time.perf_counter()
    SystemScore.objects.filter(pk=score.pk).update(status=ScoreStatus.RUNNING, started_at=timezone.now())
    if job_id is not None:
        mark_running(job_id, total=len(system.hypotheses), message=f"scoring {system.name}")
    try:
        resources = scoring_resources(resources_dir)
        rows = released_rows(version)
        if len(rows) != len(system.hypotheses):
            raise ServiceError(
                f"{system.name} has {len(system.hypotheses)} hypotheses but {version.label} has "
                f"{len(rows)} sentences"
            )
        ref_blocks = reference_m2_blocks(version, rows, resources)
        hyp_blocks: list[metric.M2Block] = []
        for index, (row, hypothesis) in enumerate(zip(rows, system.hypotheses, strict=True)):
            hyp_blocks.append(metric.sentence_block(row.text, [hypothesis], resources=resources))
            if job_id is not None and (index + 1) % PROGRESS_EVERY == 0:
                report_progress(job_id, index + 1)
        if job_id is not None:
            report_progress(job_id, len(rows), message="comparing with the references")
        report = metric.full_report(
            hyp_blocks, ref_blocks, source_names=[row.source_name for row in rows],
            resources=resources,
        )
    except JobCancelled:
        SystemScore.objects.filter(pk=score.pk).update(
            status=ScoreStatus.CANCELLED, finished_at=timezone.now()
        )
        score.refresh_from_db()
        return score
    except (ServiceError, ValueError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        SystemScore.objects.filter(pk=score.pk).update(
            status=ScoreStatus.FAILED, error=message, finished_at=timezone.now()
        )
        if job_id is not None:
            fail_job(job_id, message=message)
        score.refresh_from_db()
        return score

    with transaction.atomic():
        score = SystemScore.objects.select_for_update().get(pk=score.pk)
        if score.status == ScoreStatus.CANCELLED:
            return score
        SentenceResult.objects.filter(score=score).delete()
        SentenceResult.objects.bulk_create(
            [
                SentenceResult(
                    score=score,
                    position=row.position,
                    external_id=row.external_id,
                    source_name=row.source_name,
                    tp=sentence.tp,
                    fp=sentence.fp,
                    fn=sentence.fn,
                    chosen_reference=sentence.chosen_reference,
                    edits=sentence.edits,
                )
                for row, sentence in zip(rows, report.sentences, strict=True)
            ],
            batch_size=500,
        )
        overall = report.overall
        score.tp, score.fp, score.fn = overall["tp"], overall["fp"], overall["fn"]
        score.p, score.r, score.f05 = overall["p"], overall["r"], overall["f05"]
        summary = report.summary()
        if score.signature == report.signature:
            # Same output, same settings: results added later (PT-M2 from the gpu queue) stay valid.
            kept = {k: v for k, v in (score.summary or {}).get("extra", {}).items() if k not in summary["extra"]}
            summary["extra"] = {**summary["extra"], **kept}
        score.signature = report.signature
        score.summary = summary
        score.status = ScoreStatus.DONE
        score.error = ""
        score.finished_at = timezone.now()
        score.save()
    elapsed = time.perf_counter() - started
    if job_id is not None:
        finish_job(
            job_id,
            result={"score": score.pk, "system": system.pk, "f05": score.f05, "seconds": round(elapsed, 2)},
            message=f"F0.5 {score.f05:.4f}",
        )
    logger.info("scored %s on %s in %.2fs", system.name, version.label, elapsed)
    return score


def score_now(
    *, system: SystemOutput, user: Any = None, resources_dir: str | None = None
) -> SystemScore:
    """Score synchronously (management command, API `?wait=1`): same work, no queue."""
    job = start_job(kind=JOB_KIND_SYSTEM, user=user, total=len(system.hypotheses),
                    params={"system": system.pk}, message=f"scoring {system.name}")
    score, _ = SystemScore.objects.get_or_create(system=system)
    SystemScore.objects.filter(pk=score.pk).update(status=ScoreStatus.QUEUED, background_job_id=job.pk)
    return run_scoring(score_id=score.pk, job_id=job.pk, resources_dir=resources_dir)


# --- weighted scores (gpu queue) -------------------------------------------------------------

JOB_KIND_WEIGHTED = "scoring.weighted"


def weighted_model(override: str | None = None) -> str:
    """The BERTScore model for edit weights (a local path; "self" = every weight 1.0)."""
    return override or getattr(settings, "GEC_BERT_MODEL", "") or ""


def request_weighted_scoring(*, system: SystemOutput, user: Any, model: str | None = None) -> BackgroundJob:
    """Queue PT-M2 (BERTScore-weighted char edits) for a scored output on the `gpu` queue."""
    chosen = weighted_model(model)
    if not chosen:
        raise ServiceError(
            "no model for weighted scores: set GEC_BERT_MODEL to a local model directory",
            field="model",
        )
    score = SystemScore.objects.filter(system=system, status=ScoreStatus.DONE).first()
    if score is None:
        raise Conflict(f"score {system.name} first; weighted scores are added to a finished score")
    job = start_job(kind=JOB_KIND_WEIGHTED, user=user, params={"system": system.pk, "model": chosen},
                    message=f"PT-M2 of {system.name}")
    score_id = score.pk

    def send() -> None:
        from scoring.tasks import gpu_weighted_score

        gpu_weighted_score.delay(score_id, job.pk, chosen)

    transaction.on_commit(send)
    log_action(system, user, "scoring.weighted_request", {"job": job.pk, "model": chosen})
    return job


def run_weighted_scoring(
    *, score_id: int, job_id: int | None = None, model: str | None = None, resources_dir: str | None = None
) -> SystemScore:
    """PT-M2 of a finished score, stored under ``summary["extra"]["ptm2"]`` (idempotent:
    a re-run overwrites that key and nothing else)."""
    from scoring.gec.ptm2 import score_ptm2
    from scoring.gec.weights import make_provider

    score = SystemScore.objects.select_related("system__version").filter(pk=score_id).first()
    if score is None:
        raise NotFound(f"no score {score_id}")
    chosen = weighted_model(model)
    if job_id is not None:
        mark_running(job_id, total=len(score.system.hypotheses), message=f"PT-M2 with {chosen}")
    try:
        if not chosen:
            raise ServiceError("no model for weighted scores: set GEC_BERT_MODEL")
        resources = scoring_resources(resources_dir)
        rows = released_rows(score.system.version)
        ref_blocks = reference_m2_blocks(score.system.version, rows, resources)
        hyp_blocks = [
            metric.sentence_block(row.text, [hypothesis], resources=resources)
            for row, hypothesis in zip(rows, score.system.hypotheses, strict=True)
        ]
        cache_dir = getattr(settings, "GEC_WEIGHT_CACHE_DIR", None)
        provider = make_provider(
            chosen,
            num_layers=settings.GEC_BERT_LAYERS,
            batch_size=settings.GEC_BERT_BATCH_SIZE,
            cache_dir=str(cache_dir) if cache_dir else None,
        )

        def progress(done: int, total: int) -> None:
            if job_id is not None:
                report_progress(job_id, done, total=total)

        result = score_ptm2(hyp_blocks, ref_blocks, provider, progress=progress)
    except JobCancelled:
        return score
    except (ServiceError, ValueError, OSError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        if job_id is not None:
            fail_job(job_id, message=message)
        raise ServiceError(f"weighted scoring failed: {message}") from None
    with transaction.atomic():
        score = SystemScore.objects.select_for_update().get(pk=score.pk)
        summary = dict(score.summary)
        extra = dict(summary.get("extra", {}))
        extra["ptm2"] = result.as_dict()
        summary["extra"] = extra
        score.summary = summary
        score.save(update_fields=["summary"])
    if job_id is not None:
        finish_job(job_id, result={"score": score.pk, "ptm2": extra["ptm2"]}, message="PT-M2 done")
    return score


# --- ensembles ------------------------------------------------------------------------------


def create_ensemble(
    *,
    systems: Sequence[SystemOutput],
    name: str,
    user: Any,
    resources_dir: str | None = None,
    description: str = "",
) -> SystemOutput:
    """Combine stored outputs of one release by edit-wise voting (keep edits proposed by
    more than half of them) into a new output, stored and ready to score."""
    systems = list(dict.fromkeys(systems))
    if len(systems) < 2:
        raise ServiceError("choose at least two systems to combine", field="systems")
    versions = {system.version_id for system in systems}
    if len(versions) != 1:
        raise ServiceError("all systems of an ensemble must be outputs for the same release", field="systems")
    version = systems[0].version
    name = (name or "").strip()
    if not name:
        raise ServiceError("give the ensemble a name", field="name")
    if SystemOutput.objects.filter(version=version, name=name).exists():
        raise Conflict(f"{version.label} already has a system named {name!r}", field="name")
    resources = scoring_resources(resources_dir)
    rows = released_rows(version)
    hypotheses: list[str] = []
    for position, row in enumerate(rows):
        tokens = metric.source_tokens(row.text)
        edit_sets = []
        for system in systems:
            edits = metric.extract(row.text, system.hypotheses[position], resources=resources)
            keys = [vote_edits_from(e.type, e.start, e.end, e.target_text) for e in edits]
            edit_sets.append([key for key in keys if key is not None])
        text, _kept = vote(tokens, edit_sets)
        hypotheses.append(text)
    with transaction.atomic():
        ensemble = SystemOutput.objects.create(
            version=version,
            name=name,
            description=description or "edit-wise majority vote of " + ", ".join(s.name for s in systems),
            file_name="",
            file_format=OutputFormat.ENSEMBLE,
            hypotheses=hypotheses,
            checksum=hypotheses_checksum(hypotheses),
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        ensemble.ensemble_of.set(systems)
        log_action(ensemble, user, "scoring.ensemble", {"members": [s.pk for s in systems]})
    return ensemble


# --- annotator quality ----------------------------------------------------------------------


def _reference_texts(references: Sequence[GoldenReference]) -> list[str]:
    """Golden references as ChERRANT target strings (markers for the special kinds)."""
    texts = []
    for ref in references:
        if ref.kind == ReferenceKind.ERROR_FREE:
            texts.append(metric.NO_ERROR_TEXT)
        elif ref.kind == ReferenceKind.NOT_ANNOTATABLE:
            texts.append(metric.NOT_ANNOTATABLE_TEXT)
        else:
            texts.append(ref.text)
    return texts


def _sample_hypotheses(submission: Submission, sentence: Sentence) -> list[tuple[int, int | None, str]]:
    """(slot, correction id, hypothesis) for each box of a submission; a tag is one box."""
    if submission.tag == SubmissionTag.ERROR_FREE:
        return [(0, None, metric.NO_ERROR_TEXT)]
    if submission.tag == SubmissionTag.NOT_ANNOTATABLE:
        return [(0, None, metric.NOT_ANNOTATABLE_TEXT)]
    boxes = []
    for correction in submission.corrections.all():
        text = correction.text.strip()
        if text:
            boxes.append((correction.position, correction.pk, text))
    return boxes


def rescore_sentence(
    sentence_id: int, *, resources_dir: str | None = None, force: bool = False
) -> int:
    """Recompute the annotator samples of one sentence against its current golden references.

    Idempotent: the sentence's samples are replaced in one transaction. A sentence without
    current golden references has no samples. Unless `force`, samples already built from
    the same reference revision, submissions and resources are kept as they are. Returns
    the number of samples of the sentence.
    """
    sentence = Sentence.objects.filter(pk=sentence_id).first()
    if sentence is None:
        return 0
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
    if not force and existing and all(
        (rev, count, key) == (revision, len(references), resources.signature)
        for _, _, rev, count, key in existing
    ) and {(sub, slot) for sub, slot, *_ in existing} == wanted:
        return len(existing)
    ref_texts = _reference_texts(references)
    ref_block = metric.sentence_block(sentence.text, ref_texts, resources=resources)
    ref_m2 = metric.blocks_to_text([ref_block])
    samples = []
    for submission in submissions:
        for slot, correction_id, hypothesis in _sample_hypotheses(submission, sentence):
            hyp_block = metric.sentence_block(sentence.text, [hypothesis], resources=resources)
            counts = metric.corpus_counts([hyp_block], [ref_block])
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
                    resources_key=resources.signature,
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

    def send() -> None:
        from scoring.tasks import rescore_annotator_sentence

        rescore_annotator_sentence.delay(sentence_id)

    transaction.on_commit(send)


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
    for sentence_id, submission_id, revision, count in AnnotatorSample.objects.filter(
        sentence__dataset_id=dataset_id
    ).values_list("sentence_id", "submission_id", "golden_revision", "reference_count"):
        stored_state[sentence_id].add((revision, count))
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


def prepare_release_references(*, version_id: int, resources_dir: str | None = None) -> int:
    """Extract and store the reference M2 of a release (idempotent); returns its sentences."""
    version = DatasetVersion.objects.filter(pk=version_id).first()
    if version is None:
        return 0
    rows = released_rows(version)
    reference_m2_blocks(version, rows, scoring_resources(resources_dir))
    return len(rows)


def rescore_dataset(
    *, dataset_id: int, job_id: int | None = None, resources_dir: str | None = None,
    only_stale: bool = False,
) -> int:
    """Rebuild the annotator samples of a dataset: every sentence (after a resources change)
    or only the stale ones. Returns the number of sentences recomputed."""
    if only_stale:
        sentence_ids = stale_sentence_ids(dataset_id=dataset_id)
    else:
        sentence_ids = sorted(
            set(
                GoldenReference.objects.filter(sentence__dataset_id=dataset_id, is_current=True)
                .values_list("sentence_id", flat=True)
            )
            | set(AnnotatorSample.objects.filter(sentence__dataset_id=dataset_id).values_list("sentence_id", flat=True))
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
        finish_job(job_id, result={"sentences": len(sentence_ids)}, message=f"{len(sentence_ids)} sentences")
    return len(sentence_ids)


def start_annotator_rescoring(*, dataset_id: int, user: Any) -> BackgroundJob:
    """Admin action: recompute every annotator sample of a dataset in the background (after
    the resources changed, for instance)."""
    job = start_job(kind=JOB_KIND_ANNOTATORS, user=user, params={"dataset": dataset_id, "all": True},
                    message="re-scoring all annotator samples")

    def send() -> None:
        from scoring.tasks import rescore_annotator_dataset

        rescore_annotator_dataset.delay(dataset_id, job.pk, False)

    transaction.on_commit(send)
    return job


# Above this many stale sentences a page does not wait: the work goes to a background job.
INLINE_REFRESH_LIMIT = 200


def refresh_annotator_scores(*, dataset_id: int, user: Any, inline_limit: int = INLINE_REFRESH_LIMIT) -> BackgroundJob | None:
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
        kind=JOB_KIND_ANNOTATORS, params__dataset=dataset_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    ).first()
    if running is not None:
        return running
    job = start_job(kind=JOB_KIND_ANNOTATORS, user=user, total=len(stale), params={"dataset": dataset_id},
                    message=f"re-scoring {len(stale)} sentences")

    def send() -> None:
        from scoring.tasks import rescore_annotator_dataset

        rescore_annotator_dataset.delay(dataset_id, job.pk, True)

    transaction.on_commit(send)
    return job


# --- pay ------------------------------------------------------------------------------------


def set_pay_rates(
    *,
    user: Any,
    per_submission: Decimal,
    per_review: Decimal,
    target_f05: float,
    min_factor: float,
    max_factor: float,
    currency: str = "CNY",
) -> PayRates:
    if per_submission < 0 or per_review < 0:
        raise ServiceError("rates cannot be negative", field="per_submission" if per_submission < 0 else "per_review")
    if not 0 < target_f05 <= 1:
        raise ServiceError("target F0.5 must be in (0, 1]", field="target_f05")
    if min_factor < 0 or max_factor < min_factor:
        raise ServiceError("need 0 <= min factor <= max factor", field="min_factor")
    with transaction.atomic():
        rates = PayRates.objects.create(
            per_submission=per_submission, per_review=per_review, target_f05=target_f05,
            min_factor=min_factor, max_factor=max_factor, currency=currency,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        log_action(rates, user, "scoring.pay_rates", {
            "per_submission": str(per_submission), "per_review": str(per_review),
            "target_f05": target_f05, "min_factor": min_factor, "max_factor": max_factor,
        })
    return rates
