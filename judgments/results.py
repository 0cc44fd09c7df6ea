"""A campaign's results (human ranking, agreement, judges, edit verdicts) are computed by a
background job, stored (CampaignResults, one row per set of parameters) and served from
storage: the results page and API read a row and never compute in the request (GJG15
once took 45 s in the request, and a 20,000-system item 4 GB).

The read path (`results_for`): the parameters are checked (a 400 naming the field and, for a
bound, the setting); the campaign's size is checked against the bounds on stored counts
(judgments/limits.py; a 400 naming the setting); then the stored row is served when it was
computed from the judgments as they are now (`judgment_state`). Otherwise a job is queued,
one at a time per row, and the answer says it is being computed, with the job's progress
and the last results (marked stale) when there are any. New judgments change the state, so
the stored results become stale and the next read queues the recompute; other parameters
get their own row and job.

The job (judgments/results_job.py) checks the bounds again, reads the judgments within
them, reports progress and stores the report with the state it was computed from; a refusal
it finds (no pairwise judgment, a bound) is stored too, and answered as a 400 until the
judgments change. After an import the default results are queued at once (when a worker
runs the queue), so the first view of a freshly imported campaign is served from storage.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.exceptions import ServiceError
from core.job_queue import enqueue_job
from core.jobs import LIVE, sweep_expired_jobs, tasks_run_in_process
from core.models import BackgroundJob, JobStatus
from core.params import MAX_INT32, bounded_int
from judgments import attention, judge_stats, results_job, selectors, tasks
from judgments.limits import BoundExceeded, check_size, judgment_state, setting
from judgments.models import Campaign, CampaignMode, CampaignResults

logger = logging.getLogger("gec.jobs")

JOB_KIND_RESULTS = results_job.JOB_KIND_RESULTS
METHODS = (*selectors.HUMAN_METHODS, "both")
DEFAULT_METHOD = "both"
# The page's and the API's default (the API said bootstrap=0, so its rank
# ranges and edit-precision intervals were null while the page showed them).
DEFAULT_BOOTSTRAP = 200


@dataclass(frozen=True)
class Parameters:
    """One set of the results' parameters (a stored row each)."""

    method: str
    bootstrap: int
    seed: int
    runs: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parameters(query: Mapping[str, Any], campaign: Campaign) -> Parameters:
    """The parameters of a page or API request (`method`, `bootstrap`, `seed`, `runs`),
    defaults filled in: both methods, 200 bootstrap resamples, the campaign's seed, 1,000
    TrueSkill runs (none for Expected Wins alone: they would not change the answer). A value
    out of range is a 400 naming its field; past a bound, the setting too."""
    method = str(query.get("method") or DEFAULT_METHOD)
    if method not in METHODS:
        raise ServiceError(
            f"method must be one of {', '.join(selectors.HUMAN_METHODS)} or both "
            f"(got {method[:40]!r})",
            field="method",
        )
    bootstrap = _bounded(
        query.get("bootstrap"),
        field="bootstrap",
        low=0,
        name="GEC_RESULTS_MAX_BOOTSTRAP",
        default=DEFAULT_BOOTSTRAP,
    )
    seed = bounded_int(
        query.get("seed"), field="seed", low=0, high=MAX_INT32, default=campaign.seed
    )
    runs = _bounded(
        query.get("runs"),
        field="runs",
        low=1,
        name="GEC_RESULTS_MAX_RUNS",
        default=selectors.TRUESKILL_RUNS,
    )
    return Parameters(method, bootstrap, seed, 0 if method == "ew" else runs)


def _bounded(raw: Any, *, field: str, low: int, name: str, default: int) -> int:
    high = setting(name)
    try:
        return bounded_int(raw, field=field, low=low, high=high, default=min(default, high))
    except ServiceError as error:
        raise BoundExceeded(error.message, setting=name, field=field) from None


# --- the read path ------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a read found: `status` done (the report is fresh), queued or running (`report` is
    the last one, stale, or None), failed or cancelled (the job for these judgments ended
    without results; POST to compute again)."""

    status: str
    row: CampaignResults
    report: dict[str, Any] | None
    stale: bool
    job: BackgroundJob | None

    @property
    def http_status(self) -> int:
        return {"done": 200, "queued": 202, "running": 202, "cancelled": 409}.get(self.status, 500)


def results_for(
    campaign: Campaign, params: Parameters, *, user: Any, force: bool = False
) -> Outcome:
    """The stored results of `campaign` for `params`, queueing their computation when they
    are missing or stale (or, with `force`, whatever they are, unless a job is already at
    it). Raises BoundExceeded or ServiceError (400) for a refusal, ServiceUnavailable (503)
    when the queue is down, ServiceError 429 past GEC_RESULTS_MAX_QUEUED."""
    check_size(campaign)
    state = judgment_state(campaign)
    row = _row(campaign, params)
    if not force and row is not None:
        found = _stored(row, state)
        if found is not None:
            return found
    row = request_computation(campaign, params, state=state, user=user)
    row = _row(campaign, params) or row  # in process (the quick start) it ran at the commit
    if row.job is not None and row.job.status in LIVE:
        return _computing(row, state)
    return _stored(row, state) or _computing(row, state)


def _row(campaign: Campaign, params: Parameters) -> CampaignResults | None:
    return (
        CampaignResults.objects.select_related("job", "campaign")
        .filter(campaign=campaign, **params.as_dict())
        .first()
    )


def _stored(row: CampaignResults, state: str) -> Outcome | None:
    """What the row answers for the judgments' `state`, or None when a job is to be queued."""
    if row.report_json and row.state == state:
        return Outcome("done", row, with_live_counts(row), stale=False, job=row.job)
    if row.error and row.error_state == state:
        if row.error_setting:
            raise BoundExceeded(
                row.error.removesuffix(f" (setting {row.error_setting})"),
                setting=row.error_setting,
                field=row.error_field or None,
            )
        raise ServiceError(row.error, field=row.error_field or None)
    job = row.job
    if job is not None and job.status == JobStatus.RUNNING:
        lease = job.lease_expires_at
        if lease is not None and lease < timezone.now():
            sweep_expired_jobs()  # its worker died: the sweep fails it as retryable
            job.refresh_from_db()
    if job is not None and job.status in LIVE:
        return _computing(row, state)
    if job is not None and row.job_state == state:
        if job.status == JobStatus.CANCELLED:
            return Outcome("cancelled", row, _stale_report(row), bool(row.report_json), job)
        if job.status == JobStatus.FAILED and not job.retryable:
            return Outcome("failed", row, _stale_report(row), bool(row.report_json), job)
    return None


def _computing(row: CampaignResults, state: str) -> Outcome:
    job = row.job
    status = job.status if job is not None and job.status in LIVE else JobStatus.QUEUED
    return Outcome(str(status), row, _stale_report(row), stale=bool(row.report_json), job=job)


def _stale_report(row: CampaignResults) -> dict[str, Any] | None:
    return with_live_counts(row) if row.report_json else None


def with_live_counts(row: CampaignResults) -> dict[str, Any]:
    """The stored report with the judges' counts as they are now (their kappas stored)."""
    report = dict(row.report or {})
    report["judges"] = judge_stats.with_live_judge_counts(row.campaign, report.get("judges", []))
    report["attention"] = attention.attention_summary(row.campaign)
    return report


def request_computation(
    campaign: Campaign, params: Parameters, *, state: str, user: Any
) -> CampaignResults:
    """Queue the job that computes `params` for `campaign` (its row created when new), unless
    one is queued or running for that row already; the job, the row's link to it and the
    message commit together or not at all (a queue that is down: ServiceUnavailable)."""
    with transaction.atomic():
        created, _ = CampaignResults.objects.get_or_create(campaign=campaign, **params.as_dict())
        row = (
            CampaignResults.objects.select_for_update(of=("self",))
            .select_related("job", "campaign")
            .get(pk=created.pk)
        )
        if row.job is not None and row.job.status in LIVE:
            return row
        live = CampaignResults.objects.filter(campaign=campaign, job__status__in=LIVE).count()
        limit = setting("GEC_RESULTS_MAX_QUEUED")
        if live >= limit:
            raise ServiceError(
                f"{live} computations of campaign {campaign.name}'s results are queued or"
                f" running; wait for one to finish (setting GEC_RESULTS_MAX_QUEUED)",
                field="campaign",
                status=429,
            )
        job = enqueue_job(
            kind=JOB_KIND_RESULTS,
            user=user,
            task=tasks.compute_results_task,
            task_args=lambda job_id: (job_id,),
            params={"results": row.pk, "campaign": campaign.pk, **params.as_dict()},
            total=results_job.progress_units(
                params.method, params.runs, edits=campaign.mode == CampaignMode.EDITS
            ),
            message=f"queued: results of campaign {campaign.name}",
        )
        row.job = job
        row.job_state = state
        row.save(update_fields=["job", "job_state", "updated_at"])
    _prune(campaign, keep=row.pk)
    return row


def _prune(campaign: Campaign, *, keep: int) -> None:
    """At most GEC_RESULTS_KEEP parameter sets per campaign: the least recently computed
    others go (never one whose job is queued or running)."""
    limit = max(1, setting("GEC_RESULTS_KEEP"))
    rows = (
        CampaignResults.objects.filter(campaign=campaign)
        .exclude(pk=keep)
        .exclude(job__status__in=LIVE)
        .order_by("-updated_at")
        .values_list("pk", flat=True)
    )
    old = list(rows[limit - 1 :])
    if old:
        CampaignResults.objects.filter(pk__in=old).delete()


def queue_default_results(campaign_id: int, *, user: Any = None) -> None:
    """After an import: queue the default results so the first view is served from storage.
    Only when a worker runs the queue (in process it would run inside the import); a campaign
    past a bound, with nothing to rank, or a queue that is down is left for the first read."""
    if tasks_run_in_process():
        return
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return
    try:
        check_size(campaign)
        params = parameters({}, campaign)
        request_computation(campaign, params, state=judgment_state(campaign), user=user)
    except ServiceError:
        return
    except Exception:  # the import is in: a first read queues them instead
        logger.exception("results of campaign %s not queued after its import", campaign_id)


# --- what the page and the API show of an outcome -------------------------------------------------


def outcome_state(outcome: Outcome) -> dict[str, Any]:
    """The JSON of an outcome that is not `done`: its status, the job's progress and the last
    results (stale) when there are any."""
    job = outcome.job
    return {
        "status": outcome.status,
        "detail": {
            "queued": "the results are being computed (queued); poll this URL or the job",
            "running": "the results are being computed; poll this URL or the job",
            "failed": "computing these results failed; POST to this URL to compute again",
            "cancelled": "computing these results was cancelled; POST to this URL to compute again",
        }.get(outcome.status, ""),
        "parameters": {
            "method": outcome.row.method,
            "bootstrap": outcome.row.bootstrap,
            "seed": outcome.row.seed,
            "runs": outcome.row.runs,
        },
        "job": None
        if job is None
        else {
            "id": job.pk,
            "status": job.status,
            "done": job.done,
            "total": job.total,
            "percent": job.percent,
            "message": job.message,
        },
        "stale": outcome.stale,
        "previous": outcome.report,
        "previous_computed_at": outcome.row.computed_at.isoformat()
        if outcome.row.computed_at and outcome.report is not None
        else None,
    }
