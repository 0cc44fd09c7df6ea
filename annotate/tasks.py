"""Celery tasks of the annotate app: load by id, call a service, nothing else.

The LLM's suggested corrections run as `annotate.llm_suggestions` for an HTTP endpoint (the
default queue) or `annotate.gpu_llm_suggestions` for a local model (config/settings.py routes
`*.gpu_*` to the `gpu` queue). Both run under the job's claim (core.jobs.run_claimed) and are
idempotent: a re-run reads the answers cached so far and rewrites the same suggestion rows.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from annotate import llm_suggestions
from core.jobs import JobCancelled, run_claimed


def _suggest(
    dataset_id: int, job_id: int | None, blind_share: float | None, seed: Any
) -> dict[str, Any] | None:
    def work(claimed_job_id: int | None) -> dict[str, Any] | None:
        try:
            run = llm_suggestions.run_llm_suggestions(
                dataset_id=dataset_id, job_id=claimed_job_id, blind_share=blind_share, seed=seed
            )
        except JobCancelled:
            return None  # the job already says cancelled; nothing of the run was stored
        return run.as_json()

    return work(None) if job_id is None else run_claimed(job_id, work)


@shared_task(name="annotate.llm_suggestions")
def llm_suggestions_task(
    dataset_id: int, job_id: int | None = None, blind_share: float | None = None, seed: Any = 0
) -> dict[str, Any] | None:
    return _suggest(dataset_id, job_id, blind_share, seed)


@shared_task(name="annotate.gpu_llm_suggestions")
def gpu_llm_suggestions(
    dataset_id: int, job_id: int | None = None, blind_share: float | None = None, seed: Any = 0
) -> dict[str, Any] | None:
    return _suggest(dataset_id, job_id, blind_share, seed)
