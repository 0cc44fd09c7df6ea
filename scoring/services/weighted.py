"""Weighted scores (PT-M2 and friends) on the `gpu` queue: BERTScore edit weights."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from core.exceptions import Conflict, NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import (
    JobCancelled,
    fail_job,
    finish_job,
    mark_running,
    report_progress,
)
from core.models import BackgroundJob
from datasets.models import Language
from gecscore import make_provider, score_ptm2
from scoring import metric, tasks
from scoring.metric_en import english_ptm2
from scoring.models import (
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.services.systems import reference_m2_blocks, released_rows, scoring_resources

JOB_KIND_WEIGHTED = "scoring.weighted"


def _model_setting(language: str) -> str:
    return "GEC_BERT_MODEL_EN" if language == Language.ENGLISH else "GEC_BERT_MODEL"


def weighted_model(override: str | None = None, *, language: str = Language.CHINESE) -> str:
    """The BERTScore model for edit weights of a release in ``language`` (a local path or an
    installed package; "self" = every weight 1.0)."""
    return override or getattr(settings, _model_setting(language), "") or ""


def request_weighted_scoring(
    *, system: SystemOutput, user: Any, model: str | None = None
) -> BackgroundJob:
    """Queue PT-M2 (BERTScore-weighted edits: characters for Chinese, the MaxMatch lattice for
    English) for a scored output on the `gpu` queue."""
    language = system.version.dataset.language
    chosen = weighted_model(model, language=language)
    if not chosen:
        raise ServiceError(
            f"no model for weighted scores: set {_model_setting(language)} to a local model "
            "directory",
            field="model",
        )
    score = SystemScore.objects.filter(system=system, status=ScoreStatus.DONE).first()
    if score is None:
        raise Conflict(f"score {system.name} first; weighted scores are added to a finished score")
    return enqueue_job(
        kind=JOB_KIND_WEIGHTED,
        user=user,
        params={"system": system.pk, "model": chosen},
        message=f"PT-M2 of {system.name}",
        task=tasks.gpu_weighted_score,
        task_args=lambda job_id: (score.pk, job_id, chosen),
        audit=(system, "scoring.weighted_request", {"model": chosen}),
    )


def run_weighted_scoring(
    *,
    score_id: int,
    job_id: int | None = None,
    model: str | None = None,
    resources_dir: str | None = None,
) -> SystemScore:
    """PT-M2 of a finished score, stored under ``summary["extra"]["ptm2"]`` (idempotent:
    a re-run overwrites that key and nothing else)."""
    score = SystemScore.objects.select_related("system__version").filter(pk=score_id).first()
    if score is None:
        raise NotFound(f"no score {score_id}")
    language = score.system.version.dataset.language
    chosen = weighted_model(model, language=language)
    if job_id is not None:
        mark_running(job_id, total=len(score.system.hypotheses), message=f"PT-M2 with {chosen}")
    try:
        if not chosen:
            raise ServiceError(f"no model for weighted scores: set {_model_setting(language)}")
        ref_blocks = reference_m2_blocks(score.system.version, resources_dir=resources_dir)
        english = language == Language.ENGLISH
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

        if english:
            # PT-M2 on the MaxMatch lattice against the release's ERRANT M2 (the report's gold).
            ptm2 = english_ptm2(
                hypotheses=score.system.hypotheses,
                ref_blocks=ref_blocks,
                provider=provider,
                progress=progress,
            )
        else:
            resources = scoring_resources(resources_dir)
            rows = released_rows(score.system.version)
            hyp_blocks = [
                metric.sentence_block(row.text, [hypothesis], resources=resources)
                for row, hypothesis in zip(rows, score.system.hypotheses, strict=True)
            ]
            result = score_ptm2(hyp_blocks, ref_blocks, provider, progress=progress)
            ptm2 = {**result.as_dict(), "sentences": result.sentence_f(len(rows))}
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
        extra["ptm2"] = ptm2
        summary["extra"] = extra
        score.summary = summary
        score.save(update_fields=["summary"])
    if job_id is not None:
        finish_job(job_id, result={"score": score.pk, "ptm2": extra["ptm2"]}, message="PT-M2 done")
    return score
