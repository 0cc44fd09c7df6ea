"""The LLM judges (LLM-S, LLM-E; Kobayashi, Mita & Komachi 2024) of a release, on the `gpu`
queue.

Unlike the other metrics a judge compares all the systems of a release at once: per source
sentence the LLM scores the distinct hypotheses side by side, and the library ranks the
systems by TrueSkill over those pairwise outcomes (``gecscore.trueskill_scores``). So a run
is per release: it judges every system with a finished score (in name order, the order
TrueSkill plays its matches in) and writes, on each system's score,
``summary["extra"][name] = {"score", "signature", "aggregation", "mean", "sentences",
"unjudged", "systems"}``: ``score`` the system's TrueSkill mu (what the leaderboard and the
meta-evaluation catalogue read), ``mean`` its mean 1-5 judge score over the sentences where
its hypothesis was shown, ``sentences`` its 1-5 score per sentence (None: not shown to the
LLM or no readable answer). A system scored (or re-scored) after the run has no entry until
the judges run again: TrueSkill values only compare within one run.

Offered when an LLM is configured: ``GEC_LLM_URL`` (an OpenAI-compatible endpoint the
operator runs: vLLM, llama.cpp, Ollama) with ``GEC_LLM_MODEL`` the name it serves, or
``GEC_LLM_MODEL`` alone, a local Hugging Face causal LM folder.

A run cannot hold its worker: each request has one deadline (``GEC_LLM_TIMEOUT``, connect to
last byte), the first prompt that still fails after its retries ends the run (the library's
circuit breaker), and Cancel is watched from a thread while requests are in flight, which
cuts them off: the worker is free within about a second, whatever the endpoint does.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from core.exceptions import Conflict, NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import (
    JobCancelled,
    fail_job,
    mark_running,
    report_progress,
    settle_job,
)
from core.llm import llm_backend, llm_request_options, llm_setup, watch_llm_cancel
from core.models import BackgroundJob
from datasets.models import DatasetVersion
from gecscore import GECError, LLMJudgeEdit, LLMJudgeSent, Stop, get_metric, trueskill_scores
from scoring import tasks
from scoring.models import ScoreStatus, SystemScore
from scoring.services.systems import released_rows

JOB_KIND_JUDGE = "scoring.llm_judge"
JUDGE_METRICS = ("llm-s", "llm-e")
# How the judge's pairwise outcomes become a system score (the paper's and gec-metrics' way).
JUDGE_AGGREGATION = "trueskill"


def judge_setup() -> tuple[bool, str]:
    """(configured, what to fill or which LLM) for the leaderboard page."""
    return llm_setup()


def _chosen(metrics: list[str] | None) -> list[str]:
    if metrics is None:
        return list(JUDGE_METRICS)
    metrics = list(dict.fromkeys(metrics))
    unknown = [m for m in metrics if m not in JUDGE_METRICS]
    if unknown or not metrics:
        raise ServiceError(
            f"judges must be among {', '.join(JUDGE_METRICS)} (got {', '.join(unknown) or 'none'})",
            field="metrics",
        )
    return metrics


def _scored(version: DatasetVersion) -> list[SystemScore]:
    return list(
        SystemScore.objects.filter(system__version=version, status=ScoreStatus.DONE)
        .select_related("system")
        .order_by("system__name")
    )


def request_judge_run(
    *, version: DatasetVersion, user: Any, metrics: list[str] | None = None
) -> BackgroundJob:
    """Queue the LLM judges (both, or ``metrics``) over the release's scored systems on the
    `gpu` queue (the task is sent on commit)."""
    llm_backend()
    chosen = _chosen(metrics)
    scored = _scored(version)
    if len(scored) < 2:
        raise Conflict(
            f"the LLM judges compare systems: {version.label} has {len(scored)} scored "
            "system(s), at least 2 are needed"
        )
    return enqueue_job(
        kind=JOB_KIND_JUDGE,
        user=user,
        params={"version": version.pk, "metrics": chosen},
        message=f"{', '.join(chosen)} of {len(scored)} systems of {version.label}",
        task=tasks.gpu_llm_judge,
        task_args=lambda job_id: (version.pk, job_id, chosen),
        audit=(version, "scoring.llm_judge_request", {"metrics": chosen}),
    )


def make_judge(name: str) -> LLMJudgeSent | LLMJudgeEdit:
    """The library's judge with the platform's settings."""
    Judge = get_metric(name)
    cache_dir = getattr(settings, "GEC_WEIGHT_CACHE_DIR", None)
    config = Judge.Config(  # type: ignore[call-arg]
        **llm_backend(),
        **llm_request_options(),
        concurrency=int(getattr(settings, "GEC_LLM_CONCURRENCY", 4)),
        device=settings.GEC_BERT_DEVICE,
        cache_dir=str(cache_dir) if cache_dir else None,
    )
    judge = Judge(config)
    assert isinstance(judge, LLMJudgeSent | LLMJudgeEdit)
    return judge


def judge_entries(
    name: str, sources: list[str], systems: dict[str, list[str]], *, stop: Stop | None = None
) -> dict[str, dict[str, Any]]:
    """``{system: entry}`` of one judge over ``systems`` (in the dict's order); ``stop``
    cancels the run."""
    result = make_judge(name).score_systems(sources, list(systems.values()), stop=stop)
    mu = trueskill_scores(result.pairwise)
    signature = f"{result.signature}|aggregate={JUDGE_AGGREGATION}|systems={len(systems)}"
    entries: dict[str, dict[str, Any]] = {}
    for k, system in enumerate(systems):
        scores = list(result.scores[k])
        judged = [s for s in scores if s is not None]
        entries[system] = {
            "score": float(mu[k]),
            "signature": signature,
            "aggregation": JUDGE_AGGREGATION,
            "mean": sum(judged) / len(judged) if judged else None,
            "sentences": scores,
            "unjudged": sum(1 for s in scores if s is None),
            "systems": list(systems),
        }
    return entries


def run_judges(
    *, version_id: int, job_id: int | None = None, metrics: list[str] | None = None
) -> dict[str, dict[str, float]]:
    """Judge the release's scored systems and store each system's entry; ``{metric: {system:
    score}}``. Idempotent: a re-run overwrites the judges' entries and nothing else."""
    version = DatasetVersion.objects.filter(pk=version_id).first()
    if version is None:
        raise NotFound(f"no release {version_id}")
    http = False
    stop = Stop()
    try:
        chosen = _chosen(metrics)
        http = llm_backend()["backend"] == "http"
        scored = _scored(version)
        if job_id is not None:
            mark_running(job_id, total=len(chosen), message=", ".join(chosen))
        sources = [row.text for row in released_rows(version)]
        systems = {score.system.name: list(score.system.hypotheses) for score in scored}
        if len(systems) < 2:
            raise ServiceError(f"{version.label} has fewer than 2 scored systems to compare")
        results: dict[str, dict[str, dict[str, Any]]] = {}
        with watch_llm_cancel(job_id, stop):
            for index, name in enumerate(chosen):
                report_progress(job_id, index, message=f"{name}: judging {len(systems)} systems")
                results[name] = judge_entries(name, sources, systems, stop=stop)
    except JobCancelled:
        return {}
    except (ServiceError, GECError, ValueError, OSError) as exc:
        if stop.cancelled:  # the job already ended; the requests cut off say nothing more
            return {}
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        if job_id is not None:
            # An endpoint down or overloaded is worth retrying as it is (a local model that
            # does not load is not).
            fail_job(job_id, message=message, retryable=http and isinstance(exc, GECError))
        raise ServiceError(f"LLM judging failed: {message}") from None
    numbers = {
        name: {s: e["score"] for s, e in entries.items()} for name, entries in results.items()
    }
    try:
        # The entries and "done" commit together: a Cancel that came while the last answers
        # arrived rolls the entries back instead of storing a run the user gave up.
        with transaction.atomic():
            _store(scored, results)
            settle_job(job_id, result={"version": version.pk, **numbers}, message="done")
    except JobCancelled:
        return {}
    return numbers


def _store(scored: list[SystemScore], results: dict[str, dict[str, dict[str, Any]]]) -> None:
    with transaction.atomic():
        for row in scored:
            score = SystemScore.objects.select_for_update().filter(pk=row.pk).first()
            if score is None:  # the system was deleted while the judges ran
                continue
            summary = dict(score.summary)
            extra = dict(summary.get("extra", {}))
            for name, entries in results.items():
                extra[name] = entries[row.system.name]
            summary["extra"] = extra
            score.summary = summary
            score.save(update_fields=["summary"])
