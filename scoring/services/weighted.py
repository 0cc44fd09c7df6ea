"""Weighted scores (PT-M2 and friends) on the `gpu` queue: BERTScore edit weights."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.jobs import (
    JobCancelled,
    fail_job,
    finish_job,
    mark_running,
    queue_job,
    report_progress,
    start_job,
)
from core.models import BackgroundJob
from scoring import metric
from scoring.models import (
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.services.systems import reference_m2_blocks, released_rows, scoring_resources

JOB_KIND_WEIGHTED = "scoring.weighted"


def weighted_model(override: str | None = None) -> str:
    """The BERTScore model for edit weights (a local path; "self" = every weight 1.0)."""
    return override or getattr(settings, "GEC_BERT_MODEL", "") or ""


def request_weighted_scoring(
    *, system: SystemOutput, user: Any, model: str | None = None
) -> BackgroundJob:
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
    from scoring.tasks import gpu_weighted_score

    with transaction.atomic():
        job = start_job(
            kind=JOB_KIND_WEIGHTED,
            user=user,
            params={"system": system.pk, "model": chosen},
            message=f"PT-M2 of {system.name}",
        )
        queue_job(job, gpu_weighted_score, score.pk, job.pk, chosen)
        log_action(system, user, "scoring.weighted_request", {"job": job.pk, "model": chosen})
    return job


def run_weighted_scoring(
    *,
    score_id: int,
    job_id: int | None = None,
    model: str | None = None,
    resources_dir: str | None = None,
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
        ref_blocks = reference_m2_blocks(score.system.version, resources_dir=resources_dir)
        hyp_blocks = [
            metric.sentence_block(row.text, [hypothesis], resources=resources)
            for row, hypothesis in zip(rows, score.system.hypotheses, strict=True)
        ]
        cache_dir = getattr(settings, "GEC_WEIGHT_CACHE_DIR", None)
        provider = make_provider(
            chosen,
            num_layers=settings.GEC_BERT_LAYERS,
            batch_size=settings.GEC_BERT_BATCH_SIZE,
            device=settings.GEC_BERT_DEVICE,
            fp16=settings.GEC_BERT_FP16,
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
