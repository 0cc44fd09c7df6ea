"""System outputs and their scoring: upload, queue, score (the Celery task's body), cancel.

`upload_system_output` -> `request_scoring` (a BackgroundJob plus the Celery task
`scoring.score_system_output`, queued on commit) -> `run_scoring` (the work; idempotent: a
re-run replaces the score's rows, never duplicates them; cancellable through the job).
The numbers come from the metric library through scoring/metric.py.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import transaction
from django.utils import timezone
from gecscore.boundedio import Source  # the bounded upload reader: platform I/O plumbing, not API

from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.jobs import (
    finish_job,
    queue_job,
    report_progress,
    start_job,
    sweep_expired_jobs,
)
from core.models import BackgroundJob, JobStatus
from core.unique import create_unique
from datasets.extraction import extraction_resources
from datasets.models import (
    DatasetVersion,
    Language,
    ReleasedSentence,
)
from datasets.reference_m2 import reference_m2
from scoring import metric, tasks
from scoring.metric_en import english_report
from scoring.models import (
    ScoreStatus,
    SentenceResult,
    SystemOutput,
    SystemScore,
)
from scoring.services.job_rows import run_job_backed
from scoring.uploads import ReleasedRow, parse_system_output, upload_lines

logger = logging.getLogger("scoring.services")


JOB_KIND_SYSTEM = "scoring.system"


# Progress is written every this many sentences: often enough for a smooth bar, rarely
# enough that the job row is not a bottleneck.
PROGRESS_EVERY = 100


MAX_NAME_LENGTH = 100


def scoring_resources(override: str | None = None) -> metric.Resources:
    """The extraction resources in force (the datasets app reads the setting, once)."""
    return extraction_resources(override)


def released_rows(version: DatasetVersion) -> list[ReleasedSentence]:
    return list(version.sentences.order_by("position"))


def upload_system_output(
    *,
    version: DatasetVersion,
    name: str,
    data: Source,
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
    rows = released_rows(version)
    # The one bounded reader: gzip decompressed as a stream, refused (413) at a limit, and
    # parsed line by line as it is read (a request never holds the whole file).
    parsed = parse_system_output(
        upload_lines(data, file_name=file_name),
        release=[ReleasedRow(row.external_id, row.text) for row in rows],
        file_name=file_name,
        file_format=file_format,
    )
    with transaction.atomic():
        existing = (
            SystemOutput.objects.select_for_update().filter(version=version, name=name).first()
        )
        if existing is not None:
            if not replace:
                raise Conflict(system_name_taken(existing), field="name")
            SystemScore.objects.filter(system=existing).delete()
            existing.hypotheses = parsed.hypotheses
            existing.checksum = parsed.checksum
            existing.file_name = file_name
            existing.file_format = parsed.file_format
            existing.description = description
            existing.save()
            system = existing
        else:
            # Two uploads of a new name both find none above; the second insert loses.
            system = create_unique(
                SystemOutput,
                lambda: SystemOutput.objects.create(
                    version=version,
                    name=name,
                    description=description,
                    file_name=file_name,
                    file_format=parsed.file_format,
                    hypotheses=parsed.hypotheses,
                    checksum=parsed.checksum,
                    created_by=user if getattr(user, "is_authenticated", False) else None,
                ),
                unique=["version", "name"],
                values={"version": version, "name": name},
                message=system_name_taken,
            )
        log_action(
            system,
            user,
            "scoring.upload",
            {
                "version": version.pk,
                "name": name,
                "format": parsed.file_format,
                "sentences": len(parsed.hypotheses),
                "replaced": existing is not None,
            },
        )
    return system


def system_name_taken(existing: SystemOutput) -> str:
    return (
        f"{existing.version.label} already has a system named {existing.name!r} "
        f"(system {existing.pk}); choose another name or replace it"
    )


def delete_system_output(*, system: SystemOutput, user: Any) -> None:
    with transaction.atomic():
        log_action(
            system, user, "scoring.delete", {"name": system.name, "version": system.version_id}
        )
        system.delete()


def request_scoring(
    *, system: SystemOutput, user: Any, resources_dir: str | None = None
) -> SystemScore:
    """Queue (or re-queue) the scoring of `system`; returns its SystemScore row.

    The job row is committed first so the browser can poll it; the Celery task is sent on
    commit. A score that is already queued or running is not queued twice.
    """
    # A score shown queued or running whose worker died is failed first (and may be queued
    # again below); with a live one the request changes nothing.
    sweep_expired_jobs()
    # One decision: the job, the score's new state and the message go together. If the
    # broker cannot be reached, ServiceUnavailable rolls all of it back (a finished score
    # stays finished).
    with transaction.atomic():
        score, _ = SystemScore.objects.select_for_update().get_or_create(system=system)
        if score.status in (ScoreStatus.QUEUED, ScoreStatus.RUNNING) and score.background_job_id:
            running = BackgroundJob.objects.filter(pk=score.background_job_id).first()
            if running is not None and not running.is_finished:
                return score
        job = start_job(
            kind=JOB_KIND_SYSTEM,
            user=user,
            total=len(system.hypotheses),
            params={"system": system.pk},
            message=f"scoring {system.name}",
        )
        score.status = ScoreStatus.QUEUED
        score.background_job_id = job.pk
        score.error = ""
        score.save(update_fields=["status", "background_job_id", "error"])
        log_action(system, user, "scoring.request", {"job": job.pk})
        queue_job(job, tasks.score_system_output, score.pk, job.pk, resources_dir)
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
    version: DatasetVersion, *, resources_dir: str | None
) -> list[metric.M2Block]:
    """The release's reference M2 from the datasets app's one builder (stored per resources
    signature: a release never changes, so every later score of it reuses the text)."""
    _signature, text = reference_m2(version, resources_dir=resources_dir)
    return metric.parse_m2(text, name=f"{version.label} references")


def run_scoring(
    *, score_id: int, job_id: int | None = None, resources_dir: str | None = None
) -> SystemScore:
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
    started = time.perf_counter()
    computed = run_job_backed(
        score,
        job_id=job_id,
        total=len(system.hypotheses),
        message=f"scoring {system.name}",
        work=lambda: _compute_report(system, job_id=job_id, resources_dir=resources_dir),
    )
    if computed is None:
        return score
    rows, report = computed
    score = _store_report(score, rows, report)
    if score.status != ScoreStatus.DONE:
        return score  # cancelled while it ran
    elapsed = time.perf_counter() - started
    if job_id is not None:
        finish_job(
            job_id,
            result={
                "score": score.pk,
                "system": system.pk,
                "f05": score.f05,
                "seconds": round(elapsed, 2),
            },
            message=f"F0.5 {score.f05:.4f}",
        )
    logger.info("scored %s on %s in %.2fs", system.name, system.version.label, elapsed)
    return score


def _compute_report(
    system: SystemOutput, *, job_id: int | None, resources_dir: str | None
) -> tuple[list[ReleasedSentence], metric.ScoreReport]:
    """The hypotheses' edits against the release's references, as the metric library reports
    them (char-level ChERRANT and GREEN for Chinese; ERRANT, M2, GLEU, GREEN and CLEME for English)."""
    version = system.version
    rows = released_rows(version)
    if len(rows) != len(system.hypotheses):
        raise ServiceError(
            f"{system.name} has {len(system.hypotheses)} hypotheses but {version.label} has "
            f"{len(rows)} sentences"
        )
    ref_blocks = reference_m2_blocks(version, resources_dir=resources_dir)
    if version.dataset.language == Language.ENGLISH:
        if job_id is not None:
            report_progress(job_id, 0, message="ERRANT edits of the hypotheses")
        return rows, english_report(
            sources=[row.text for row in rows],
            hypotheses=system.hypotheses,
            references=[list(row.references) for row in rows],
            ref_blocks=ref_blocks,
            source_names=[row.source_name for row in rows],
        )
    resources = scoring_resources(resources_dir)
    hyp_blocks: list[metric.M2Block] = []
    for index, (row, hypothesis) in enumerate(zip(rows, system.hypotheses, strict=True)):
        hyp_blocks.append(metric.sentence_block(row.text, [hypothesis], resources=resources))
        if job_id is not None and (index + 1) % PROGRESS_EVERY == 0:
            report_progress(job_id, index + 1)
    if job_id is not None:
        report_progress(job_id, len(rows), message="comparing with the references")
    report = metric.full_report(
        hyp_blocks,
        ref_blocks,
        source_names=[row.source_name for row in rows],
        resources=resources,
    )
    report.extra.update(
        metric.green_metric(
            sources=[row.text for row in rows],
            hypotheses=system.hypotheses,
            references=[list(row.references) for row in rows],
            unit="char",
        )
    )
    return rows, report


def _store_report(
    score: SystemScore, rows: list[ReleasedSentence], report: metric.ScoreReport
) -> SystemScore:
    """Replace the score's rows and numbers in one transaction (unless it was cancelled)."""
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
            kept = {
                k: v
                for k, v in (score.summary or {}).get("extra", {}).items()
                if k not in summary["extra"]
            }
            summary["extra"] = {**summary["extra"], **kept}
        score.signature = report.signature
        score.summary = summary
        score.status = ScoreStatus.DONE
        score.error = ""
        score.finished_at = timezone.now()
        score.save()
    return score


def score_now(
    *, system: SystemOutput, user: Any = None, resources_dir: str | None = None
) -> SystemScore:
    """Score synchronously (management command, API `?wait=1`): same work, no queue."""
    job = start_job(
        kind=JOB_KIND_SYSTEM,
        user=user,
        total=len(system.hypotheses),
        params={"system": system.pk},
        message=f"scoring {system.name}",
    )
    score, _ = SystemScore.objects.get_or_create(system=system)
    SystemScore.objects.filter(pk=score.pk).update(
        status=ScoreStatus.QUEUED, background_job_id=job.pk
    )
    return run_scoring(score_id=score.pk, job_id=job.pk, resources_dir=resources_dir)
