"""Reference-free metrics (SOME, IMPARA, Scribendi) of a scored system, on the `gpu` queue.

Offered only where their model settings are configured (local folders; models are never
downloaded): ``GEC_SOME_MODEL_G``/``_F``/``_M``, ``GEC_IMPARA_MODEL_QE``/``_SE``,
``GEC_SCRIBENDI_MODEL``. Each adds ``summary["extra"][name] = {"score", "signature",
"sentences"}`` to a finished score (idempotent: a re-run overwrites those keys and nothing
else), which the meta-evaluation catalogue reads (the sentence scores for its TrueSkill /
Expected Wins aggregation).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from core.exceptions import Conflict, NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, fail_job, finish_job, mark_running
from core.models import BackgroundJob
from gecscore import GECError, get_metric
from scoring import tasks
from scoring.models import ScoreStatus, SystemScore
from scoring.services.systems import released_rows

JOB_KIND_REFFREE = "scoring.reffree"

# metric -> {Config field: Django setting} (the settings default to the same-named env vars).
REFFREE_SETTINGS: dict[str, dict[str, str]] = {
    "some": {
        "model_g": "GEC_SOME_MODEL_G",
        "model_f": "GEC_SOME_MODEL_F",
        "model_m": "GEC_SOME_MODEL_M",
    },
    "impara": {"model_qe": "GEC_IMPARA_MODEL_QE", "model_se": "GEC_IMPARA_MODEL_SE"},
    "scribendi": {"model": "GEC_SCRIBENDI_MODEL"},
}
REFFREE_METRICS = tuple(REFFREE_SETTINGS)


def _models(name: str) -> dict[str, str]:
    return {
        field: str(getattr(settings, setting, "") or "")
        for field, setting in REFFREE_SETTINGS[name].items()
    }


def configured_reffree_metrics() -> list[str]:
    """The reference-free metrics whose every model setting is filled."""
    return [name for name in REFFREE_SETTINGS if all(_models(name).values())]


def _chosen(metrics: list[str] | None) -> list[str]:
    configured = configured_reffree_metrics()
    if metrics is None:
        if not configured:
            settings_list = ", ".join(s for m in REFFREE_SETTINGS.values() for s in m.values())
            raise ServiceError(f"no reference-free metric configured: set {settings_list}")
        return configured
    for name in metrics:
        if name not in REFFREE_SETTINGS:
            raise ServiceError(f"unknown reference-free metric {name!r}", field="metrics")
        if name not in configured:
            missing = [s for f, s in REFFREE_SETTINGS[name].items() if not _models(name)[f]]
            raise ServiceError(f"{name} is not configured: set {', '.join(missing)}")
    return list(metrics)


def request_reffree_scoring(
    *, system: Any, user: Any, metrics: list[str] | None = None
) -> BackgroundJob:
    """Queue the configured reference-free metrics (or ``metrics``) of a scored output on the
    `gpu` queue."""
    chosen = _chosen(metrics)
    score = SystemScore.objects.filter(system=system, status=ScoreStatus.DONE).first()
    if score is None:
        raise Conflict(f"score {system.name} first; reference-free scores are added to it")
    return enqueue_job(
        kind=JOB_KIND_REFFREE,
        user=user,
        params={"system": system.pk, "metrics": chosen},
        message=f"{', '.join(chosen)} of {system.name}",
        task=tasks.gpu_reffree_score,
        task_args=lambda job_id: (score.pk, job_id, chosen),
        audit=(system, "scoring.reffree_request", {"metrics": chosen}),
    )


def run_reffree_scoring(
    *, score_id: int, job_id: int | None = None, metrics: list[str] | None = None
) -> SystemScore:
    """Each metric's corpus score of a finished score's hypotheses against the release's
    sources, stored under ``summary["extra"][name]``."""
    score = SystemScore.objects.select_related("system__version").filter(pk=score_id).first()
    if score is None:
        raise NotFound(f"no score {score_id}")
    results: dict[str, dict[str, Any]] = {}
    try:
        chosen = _chosen(metrics)
        if job_id is not None:
            mark_running(job_id, total=len(chosen), message=", ".join(chosen))
        sources = [row.text for row in released_rows(score.system.version)]
        hypotheses = list(score.system.hypotheses)
        cache_dir = getattr(settings, "GEC_WEIGHT_CACHE_DIR", None)
        for name in chosen:
            Metric = get_metric(name)
            config = Metric.Config(  # type: ignore[call-arg]
                **_models(name),
                device=settings.GEC_BERT_DEVICE,
                cache_dir=str(cache_dir) if cache_dir else None,
            )
            result = Metric(config).score_corpus(sources, hypotheses)
            results[name] = {
                "score": float(result.score),
                "signature": result.signature,
                # For TrueSkill / Expected Wins over sentence scores in meta-evaluation.
                "sentences": [float(sentence.score) for sentence in result.sentences],
            }
    except JobCancelled:
        return score
    except (ServiceError, GECError, ValueError, OSError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        if job_id is not None:
            fail_job(job_id, message=message)
        raise ServiceError(f"reference-free scoring failed: {message}") from None
    with transaction.atomic():
        score = SystemScore.objects.select_for_update().get(pk=score.pk)
        summary = dict(score.summary)
        extra = dict(summary.get("extra", {}))
        extra.update(results)
        summary["extra"] = extra
        score.summary = summary
        score.save(update_fields=["summary"])
    if job_id is not None:
        finish_job(job_id, result={"score": score.pk, **results}, message="done")
    return score
