"""The results job: the body of the `judgments.compute_results` task (judgments/tasks.py),
queued by judgments/results.py. It checks the campaign's size against the bounds, reads the
judgments within them a chunk at a time (selectors.campaign_judgment_set with limits: it
stops at the first item past a bound, before expanding a pair), computes the results with
the library (selectors.campaign_results), reporting progress through the library's steps (a
cancel stops it at the next one), and stores the report with the judgments' state it was
computed from. A refusal (a bound, nothing to rank) is stored too, for that state."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from typing import Any

from django.utils import timezone

from core.exceptions import ServiceError
from core.jobs import JobCancelled, fail_job, finish_job, mark_running, report_progress
from core.models import BackgroundJob
from gecscore import InputError
from judgments import selectors
from judgments.limits import ResultsLimits, check_size, judgment_state
from judgments.models import CampaignResults

JOB_KIND_RESULTS = "judgments.results"
TS_CHUNK_RUNS = 500  # gecscore's TS_CHUNK: TrueSkill reports progress per seeded chunk


def _ranking_units(method: str, runs: int) -> int:
    """Expected Wins, then one unit per TrueSkill chunk."""
    ew = int(method in ("ew", "both"))
    return ew + (math.ceil(runs / TS_CHUNK_RUNS) if method in ("trueskill", "both") else 0)


def progress_units(method: str, runs: int, *, edits: bool) -> int:
    """Reading, the ranking (again for the edit verdicts' ranking in edits mode), the
    judges."""
    return 1 + _ranking_units(method, runs) * (2 if edits else 1) + 1


class _Progress:
    """The library's steps as the job's units, reported (a cancel raises JobCancelled)."""

    def __init__(self, job_id: int, method: str, runs: int) -> None:
        self.job_id = job_id
        self.ew = int(method in ("ew", "both"))
        self.ranking = _ranking_units(method, runs)
        self.runs = runs

    def __call__(self, step: str, done: int, total: int) -> None:
        base = 1
        label = "ranking"
        if step.startswith("edit verdicts: "):
            step = step.removeprefix("edit verdicts: ")
            base += self.ranking
            label = "ranking by edit verdicts"
        if step == "expected wins":
            units = 1
            message = f"{label}: Expected Wins done"
        else:
            units = self.ew + done
            runs = min(self.runs, done * TS_CHUNK_RUNS)
            message = f"{label}: TrueSkill, {runs:,} of {self.runs:,} runs"
        report_progress(self.job_id, base + units, message=message)


def _workers(items: int) -> int:
    """TrueSkill's processes: 2 for a large campaign, except in a daemonic process (Celery's
    prefork children may not start processes). The numbers do not depend on it."""
    if multiprocessing.current_process().daemon or (os.cpu_count() or 1) < 2:
        return 1
    return 2 if items >= selectors.PARALLEL_MIN_ITEMS else 1


def run_results_job(job_id: int) -> dict[str, Any] | None:
    """The body of the results task (under the job's claim, core.jobs.run_claimed)."""
    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    row = (
        CampaignResults.objects.select_related("campaign")
        .filter(pk=job.params.get("results"))
        .first()
    )
    if row is None:
        fail_job(job_id, message="the campaign or these results were deleted")
        return None
    campaign = row.campaign
    mark_running(job_id, message="checking the campaign's size")
    started = time.monotonic()
    state = judgment_state(campaign)  # before reading: a judgment that comes later is news
    try:
        size = check_size(campaign)
        report_progress(job_id, 0, message=f"reading {size.items:,} judged items")
        judgments = selectors.campaign_judgment_set(campaign, limits=ResultsLimits.from_settings())
        report_progress(job_id, 1, message=f"{size.comparisons:,} pairwise comparisons read")
        report = selectors.campaign_results(
            campaign,
            method=row.method,
            bootstrap=row.bootstrap,
            seed=row.seed,
            runs=max(1, row.runs),
            workers=_workers(size.items),
            judgments=judgments,
            on_progress=_Progress(job_id, row.method, row.runs),
        )
    except JobCancelled:
        return None
    except (ServiceError, InputError) as error:  # a bound, or nothing to rank
        message = getattr(error, "message", str(error))
        CampaignResults.objects.filter(pk=row.pk).update(
            error=message,
            error_field=getattr(error, "field", None) or "",
            error_setting=getattr(error, "setting", None) or "",
            error_state=state,
            updated_at=timezone.now(),
        )
        fail_job(
            job_id,
            message=message,
            result={
                "field": getattr(error, "field", None),
                "setting": getattr(error, "setting", None),
            },
        )
        return None
    seconds = time.monotonic() - started
    CampaignResults.objects.filter(pk=row.pk).update(
        report_json=json.dumps(report, ensure_ascii=False),
        state=state,
        computed_at=timezone.now(),
        seconds=seconds,
        error="",
        error_field="",
        error_setting="",
        error_state="",
        updated_at=timezone.now(),
    )
    result = {
        "results": row.pk,
        "campaign": campaign.pk,
        "systems": len(report["systems"]),
        "judgments": report["judgments"],
    }
    finish_job(
        job_id,
        result=result,
        message=f"{len(report['systems'])} systems from {report['judgments']:,} pairwise"
        f" judgments in {seconds:.1f} s",
    )
    return result
