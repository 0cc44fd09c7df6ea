"""Celery tasks of the scoring app: load by id, call a service, nothing else.

All are idempotent: re-running one replaces the rows it wrote before. A task with a job runs
under the job's claim (core.jobs.run_claimed): a re-delivered message for a job that is
finished or running elsewhere does nothing.

Weighted metrics (BERTScore edit weights: PT-M2) run as tasks named `scoring.gpu_*`, which
config/settings.py routes to the `gpu` queue; they add their numbers under
`SystemScore.summary["extra"]` without touching the char-level rows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

from celery import shared_task

from core.exceptions import NotFound
from core.jobs import run_claimed
from scoring import services
from scoring.services import meta, reference_sets

T = TypeVar("T")


def _with_job(job_id: int | None, work: Callable[[int | None], T]) -> T | None:
    """`work` without a job (a direct call), or under the job's claim."""
    return work(None) if job_id is None else run_claimed(job_id, work)


@shared_task(name="scoring.score_system_output")
def score_system_output(
    score_id: int, job_id: int | None = None, resources_dir: str | None = None
) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        score = services.run_scoring(
            score_id=score_id, job_id=claimed_job_id, resources_dir=resources_dir
        )
        return {"score": score.pk, "status": score.status, "f05": score.f05}

    return _with_job(job_id, work)


@shared_task(name="scoring.rescore_annotator_sentence")
def rescore_annotator_sentence(sentence_id: int) -> int:
    return services.rescore_sentence(sentence_id)


@shared_task(name="scoring.rescore_annotator_dataset")
def rescore_annotator_dataset(
    dataset_id: int, job_id: int | None = None, only_stale: bool = False
) -> int | None:
    def work(claimed_job_id: int | None) -> int:
        return services.rescore_dataset(
            dataset_id=dataset_id, job_id=claimed_job_id, only_stale=only_stale
        )

    return _with_job(job_id, work)


@shared_task(name="scoring.gpu_weighted_score")
def gpu_weighted_score(
    score_id: int, job_id: int | None = None, model: str | None = None
) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        score = services.run_weighted_scoring(score_id=score_id, job_id=claimed_job_id, model=model)
        return {"score": score.pk, "ptm2": score.summary.get("extra", {}).get("ptm2")}

    return _with_job(job_id, work)


@shared_task(name="scoring.gpu_reffree_score")
def gpu_reffree_score(
    score_id: int, job_id: int | None = None, metrics: list[str] | None = None
) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        score = services.run_reffree_scoring(
            score_id=score_id, job_id=claimed_job_id, metrics=metrics
        )
        extra = score.summary.get("extra", {})
        return {"score": score.pk, **{name: extra.get(name) for name in metrics or ()}}

    return _with_job(job_id, work)


@shared_task(name="scoring.gpu_llm_judge")
def gpu_llm_judge(
    version_id: int, job_id: int | None = None, metrics: list[str] | None = None
) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        return services.run_judges(version_id=version_id, job_id=claimed_job_id, metrics=metrics)

    return _with_job(job_id, work)


@shared_task(name="scoring.meta_evaluate")
def meta_evaluate(evaluation_id: int, job_id: int | None = None) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        evaluation = meta.run_meta_evaluation(evaluation_id=evaluation_id, job_id=claimed_job_id)
        return {"evaluation": evaluation.pk, "status": evaluation.status}

    if job_id is None:
        return work(None)
    result = run_claimed(job_id, work)
    if result is None:  # not taken (cancelled, done elsewhere) or stopped on an internal error
        # No run at all: its request rolled back after the message reached the broker late.
        with contextlib.suppress(NotFound):
            meta.settle_with_job(meta.get_evaluation(evaluation_id))
    return result


@shared_task(name="scoring.closest_gold_proposals")
def closest_gold_proposals(task_id: int, job_id: int | None = None) -> dict[str, int] | None:
    """Proposals from an HTTP endpoint: the default queue (it only waits on the network)."""

    def work(claimed_job_id: int | None) -> dict[str, int]:
        return services.run_proposals(task_id=task_id, job_id=claimed_job_id)

    return _with_job(job_id, work)


@shared_task(name="scoring.gpu_closest_gold_proposals")
def gpu_closest_gold_proposals(task_id: int, job_id: int | None = None) -> dict[str, int] | None:
    """Proposals from a local model: the `gpu` queue."""

    def work(claimed_job_id: int | None) -> dict[str, int]:
        return services.run_proposals(task_id=task_id, job_id=claimed_job_id)

    return _with_job(job_id, work)


@shared_task(name="scoring.score_reference_sets")
def score_reference_sets(version_id: int, job_id: int | None = None) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any]:
        return reference_sets.run_reference_set_scoring(
            version_id=version_id, job_id=claimed_job_id
        )

    return _with_job(job_id, work)
