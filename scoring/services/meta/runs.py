"""Requesting, running and reading a meta-evaluation (a BackgroundJob plus the Celery task
``scoring.meta_evaluate``; idempotent: a re-run replaces the stored report)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.audit import log_action
from core.exceptions import NotFound, ServiceError
from core.jobs import (
    finish_job,
    queue_job,
    report_progress,
    start_job,
)
from core.models import BackgroundJob, JobStatus
from core.params import MAX_INT32
from datasets.models import DatasetVersion, Language
from gecscore import system_report
from judgments.models import CampaignMode
from judgments.selectors import EDIT_METHODS, ESA_METHODS, HUMAN_METHODS, count_edit_verdicts
from scoring import tasks
from scoring.models import (
    HumanSource,
    HumanSystemScores,
    MetaEvaluation,
    ScoreStatus,
    SystemOutput,
)
from scoring.services.job_rows import run_job_backed
from scoring.services.meta.aggregation import (
    LENGTH_KEY,
    LENGTH_LABEL,
    aggregate_scores,
    check_aggregation,
    length_scores,
)
from scoring.services.meta.catalogue import available_metrics, metric_label, stored_metric_scores
from scoring.services.meta.human import campaign_on_release, human_side, visible_campaigns
from scoring.services.meta.statistics import (
    SENTENCE_COUNT_METRICS,
    auto_window,
    finite,
    sentence_counts,
    sentence_interval,
    williams_tests,
)

JOB_KIND_META = "scoring.meta"
DEFAULT_BOOTSTRAP = 1000
MAX_BOOTSTRAP = 10000
MAX_WINDOW = 10000  # systems in a window (at most the systems of the release anyway)


def request_meta_evaluation(
    *,
    version: DatasetVersion,
    user: Any,
    metrics: list[str],
    human_scores: HumanSystemScores | None = None,
    campaign_id: int | None = None,
    method: str = "ew",
    bootstrap: int = DEFAULT_BOOTSTRAP,
    sentence_bootstrap: int = 0,
    window: int | None = None,
    seed: int = 0,
    exclude: list[str] | tuple[str, ...] = (),
    aggregation: str = "default",
    queue: bool = True,
) -> MetaEvaluation:
    """Check the request and queue the run (the Celery task is sent on commit). With
    ``queue=False`` nothing is sent: the caller runs ``run_meta_evaluation`` itself (the
    API's ``wait``)."""
    metrics = _checked_metrics(version, metrics)
    _check_human_source(
        version, human_scores=human_scores, campaign_id=campaign_id, method=method, user=user
    )
    exclude = _checked_exclusions(version, exclude)
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ServiceError(f"bootstrap samples must be 0 to {MAX_BOOTSTRAP}", field="bootstrap")
    if not 0 <= sentence_bootstrap <= MAX_BOOTSTRAP:
        raise ServiceError(
            f"sentence bootstrap samples must be 0 to {MAX_BOOTSTRAP}", field="sentence_bootstrap"
        )
    aggregation = check_aggregation(version, metrics, aggregation, sentence_bootstrap)
    if window is not None and not 2 <= window <= MAX_WINDOW:
        raise ServiceError(f"the window must hold 2 to {MAX_WINDOW} systems", field="window")
    if not 0 <= seed <= MAX_INT32:
        raise ServiceError(f"seed must be 0 to {MAX_INT32}", field="seed")
    # One decision: the job, the evaluation and the message together; a dead broker rolls
    # all of it back (ServiceUnavailable, a 503) instead of leaving a run queued for ever.
    with transaction.atomic():
        job = start_job(
            kind=JOB_KIND_META,
            user=user,
            total=len(metrics) + 2,
            params={"version": version.pk, "metrics": metrics},
            message=f"meta-evaluation of {version.label}",
        )
        evaluation = MetaEvaluation.objects.create(
            version=version,
            background_job_id=job.pk,
            human_source=HumanSource.UPLOAD if human_scores is not None else HumanSource.CAMPAIGN,
            human_scores=human_scores,
            campaign_id=campaign_id,
            human_method="file" if human_scores is not None else method,
            metrics=metrics,
            bootstrap=bootstrap,
            sentence_bootstrap=sentence_bootstrap,
            window=window,
            seed=seed,
            excluded_systems=exclude,
            aggregation=aggregation,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        job.params = {**job.params, "evaluation": evaluation.pk}
        job.save(update_fields=["params"])
        log_action(
            evaluation,
            user,
            "scoring.meta.request",
            {"job": job.pk, "metrics": metrics, "aggregation": aggregation},
        )
        if queue:
            queue_job(job, tasks.meta_evaluate, evaluation.pk, job.pk)
    return evaluation


def _checked_metrics(version: DatasetVersion, metrics: list[str]) -> list[str]:
    """The asked metrics without repeats, each carried by some finished score of the release."""
    available = {choice.key for choice in available_metrics(version)}
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise ServiceError("pick at least one metric", field="metrics")
    unknown = [key for key in metrics if key not in available]
    if unknown:
        raise ServiceError(
            f"no finished score of {version.label} carries {', '.join(unknown)}; "
            f"available: {', '.join(sorted(available)) or 'none (score some systems first)'}",
            field="metrics",
        )
    return metrics


def _check_human_source(
    version: DatasetVersion,
    *,
    human_scores: HumanSystemScores | None,
    campaign_id: int | None,
    method: str,
    user: Any,
) -> None:
    """Exactly one human source, it belongs to the release, and a campaign is one the user
    may see."""
    if (human_scores is None) == (campaign_id is None):
        raise ServiceError(
            "choose one human source: uploaded human scores or a judgment campaign",
            field="human",
        )
    if human_scores is not None and human_scores.version_id != version.pk:
        raise ServiceError("those human scores belong to another release", field="human")
    if campaign_id is not None:
        methods = (*HUMAN_METHODS, *EDIT_METHODS, *ESA_METHODS)
        if method not in methods:
            raise ServiceError(
                f"method must be one of {', '.join(methods)} (got {method!r})",
                field="method",
            )
        campaign = campaign_on_release(version, campaign_id, user=user)
        if method in EDIT_METHODS and not count_edit_verdicts(campaign):
            raise ServiceError(
                f"campaign {campaign.name} has no edit verdicts: {method} needs a campaign in"
                " edits mode (judge edits, then rank) with judged items; choose Expected Wins"
                " or TrueSkill of its ranks",
                field="method",
            )
        if method in ESA_METHODS and campaign.mode != CampaignMode.ESA:
            raise ServiceError(
                f"campaign {campaign.name} is not an ESA campaign: {method} needs error spans"
                " and scores; choose Expected Wins or TrueSkill of its ranks",
                field="method",
            )


def _checked_exclusions(version: DatasetVersion, exclude: Sequence[str]) -> list[str]:
    """The systems to leave out without repeats, each a system output of the release."""
    exclude = list(dict.fromkeys(exclude))
    names = set(SystemOutput.objects.filter(version=version).values_list("name", flat=True))
    unknown = [name for name in exclude if name not in names]
    if unknown:
        raise ServiceError(
            f"cannot leave out {', '.join(unknown)}: not a system output of {version.label}",
            field="exclude",
        )
    return exclude


def run_meta_evaluation(*, evaluation_id: int, job_id: int | None = None) -> MetaEvaluation:
    """The work of one run (the Celery task's body). Idempotent: the report is replaced."""
    evaluation = get_evaluation(evaluation_id)
    if (
        job_id is not None
        and BackgroundJob.objects.filter(pk=job_id, status=JobStatus.CANCELLED).exists()
    ):
        # Cancelled while queued: nothing to compute.
        MetaEvaluation.objects.filter(pk=evaluation.pk).update(
            status=ScoreStatus.CANCELLED, finished_at=timezone.now()
        )
        evaluation.refresh_from_db()
        return evaluation
    fields = run_job_backed(
        evaluation,
        job_id=job_id,
        total=len(evaluation.metrics) + 2,
        message="reading human scores",
        work=lambda: _evaluate(evaluation, job_id=job_id),
    )
    if fields is None:
        return evaluation
    MetaEvaluation.objects.filter(pk=evaluation.pk).update(
        **fields, status=ScoreStatus.DONE, error="", finished_at=timezone.now()
    )
    evaluation.refresh_from_db()
    if job_id is not None:
        best = evaluation.report.get("best")
        finish_job(
            job_id,
            result={"evaluation": evaluation.pk, "best": best, "systems": len(evaluation.systems)},
            message=f"{len(evaluation.systems)} systems, best: {best}",
        )
    return evaluation


def settle_with_job(evaluation: MetaEvaluation) -> MetaEvaluation:
    """A run still queued or running whose job ended without it (cancelled before a worker
    took it, failed on an internal error, or its lease ran out) takes the job's end state,
    so neither the page nor the API shows it running forever."""
    if evaluation.status not in (ScoreStatus.QUEUED, ScoreStatus.RUNNING):
        return evaluation
    job = BackgroundJob.objects.filter(pk=evaluation.background_job_id or 0).first()
    if job is None or job.status not in (JobStatus.CANCELLED, JobStatus.FAILED):
        return evaluation
    status = ScoreStatus.CANCELLED if job.status == JobStatus.CANCELLED else ScoreStatus.FAILED
    MetaEvaluation.objects.filter(
        pk=evaluation.pk, status__in=[ScoreStatus.QUEUED, ScoreStatus.RUNNING]
    ).update(
        status=status,
        error="" if status == ScoreStatus.CANCELLED else job.message,
        finished_at=job.finished_at or timezone.now(),
    )
    evaluation.refresh_from_db()
    return evaluation


def _evaluated_systems(
    human: dict[str, float], metric_scores: dict[str, dict[str, float]], excluded: set[str]
) -> list[str]:
    """The systems with a human score and every chosen metric (at least 3), by name."""
    keys = list(metric_scores)
    systems = sorted(
        s
        for s in human
        if s not in excluded and all(s in metric_scores[key] for key in keys) and finite(human[s])
    )
    if len(systems) < 3:
        scored = sorted({s for scores in metric_scores.values() for s in scores})
        raise ServiceError(
            f"only {len(systems)} system(s) have both a human score and every chosen metric "
            f"({', '.join(systems) or 'none'}); at least 3 are needed. Human scores name "
            f"{', '.join(sorted(human)) or 'no system'}; scored systems: "
            f"{', '.join(scored) or 'none'}"
            + (f"; left out on request: {', '.join(sorted(excluded))}" if excluded else "")
        )
    return systems


def _left_out(
    human: dict[str, float],
    metric_scores: dict[str, dict[str, float]],
    systems: list[str],
    excluded: set[str],
    human_method: str,
) -> dict[str, str]:
    """Every system named by the human side or by a chosen metric that the run does not
    correlate (other than those left out on request), with the reason, so none is dropped
    without a word (with edit precision, a system none of whose edits was judged has no
    human score)."""
    named = set(human) | {s for scores in metric_scores.values() for s in scores}
    reasons: dict[str, str] = {}
    for name in sorted(named - set(systems) - excluded):
        if name not in human:
            reasons[name] = (
                "no human score: none of its edits was judged"
                if human_method == "edit-precision"
                else "no human score"
            )
        elif not finite(human[name]):
            reasons[name] = "its human score is not a number"
        else:
            missing = [key for key, scores in metric_scores.items() if name not in scores]
            reasons[name] = "no stored score of " + ", ".join(missing)
    return reasons


def _baseline(
    evaluation: MetaEvaluation, human: dict[str, float], systems: list[str], window: int
) -> dict[str, Any]:
    """The ``length`` row (the floor a metric should beat), under the run's aggregation."""
    version = evaluation.version
    lengths = length_scores(version, systems)
    scores = aggregate_scores(version, LENGTH_KEY, lengths, systems, evaluation.aggregation)
    one = system_report(
        human,
        {LENGTH_KEY: scores},
        systems,
        bootstrap=evaluation.bootstrap,
        seed=evaluation.seed,
        window=window,
    )
    entry = one["metrics"][LENGTH_KEY]
    entry["label"] = LENGTH_LABEL
    return {LENGTH_KEY: {**entry, "scores": scores}}


def _evaluate(evaluation: MetaEvaluation, *, job_id: int | None) -> dict[str, Any]:
    version = evaluation.version
    english = version.dataset.language == Language.ENGLISH
    human, human_label = human_side(evaluation)
    report_progress(job_id, 1, message="reading stored metric scores")
    keys = list(evaluation.metrics)
    metric_scores, signatures = stored_metric_scores(version, keys)
    excluded = set(evaluation.excluded_systems)
    systems = _evaluated_systems(human, metric_scores, excluded)
    left_out = _left_out(human, metric_scores, systems, excluded, evaluation.human_method)
    aggregation = evaluation.aggregation
    metric_scores = {
        key: aggregate_scores(version, key, metric_scores[key], systems, aggregation)
        for key in keys
    }
    window = evaluation.window if evaluation.window is not None else auto_window(len(systems))
    window = min(window, len(systems))
    report: dict[str, Any] = {
        "n_systems": len(systems),
        "systems": systems,
        "metrics": {},
        "excluded": sorted(excluded),
        "left_out": left_out,
        "window_size": window,
        "bootstrap": evaluation.bootstrap,
        "sentence_bootstrap": evaluation.sentence_bootstrap,
        "seed": evaluation.seed,
        "aggregation": aggregation,
    }
    sentence_stats = (
        sentence_counts(version, systems) if evaluation.sentence_bootstrap > 0 else None
    )
    for index, key in enumerate(keys):
        label = metric_label(key, english=english)
        report_progress(job_id, 1 + index, message=f"correlating {label}")
        one = system_report(
            human,
            {key: metric_scores[key]},
            systems,
            bootstrap=evaluation.bootstrap,
            seed=evaluation.seed,
            window=window,
        )
        entry = one["metrics"][key]
        entry["label"] = label if aggregation == "default" else f"{label} · {aggregation}"
        entry["pearson_ci_sentences"] = None
        if sentence_stats is not None and key in SENTENCE_COUNT_METRICS:
            entry["pearson_ci_sentences"] = sentence_interval(
                key, human, metric_scores[key], systems, sentence_stats, evaluation
            )
        report["metrics"][key] = entry
    report_progress(job_id, 1 + len(keys), message="Williams' tests")
    report.update(williams_tests(human, metric_scores, systems, report["metrics"]))
    report["metric_scores"] = {key: {s: metric_scores[key][s] for s in systems} for key in keys}
    report["baseline"] = _baseline(evaluation, human, systems, window)
    report["human_label"] = human_label
    return {
        "human": {s: human[s] for s in sorted(human)},
        "human_label": human_label,
        "systems": systems,
        "signatures": {key: signatures[key] for key in keys},
        "report": report,
    }


def get_evaluation(evaluation_id: int) -> MetaEvaluation:
    evaluation = (
        MetaEvaluation.objects.select_related("version__dataset", "human_scores")
        .filter(pk=evaluation_id)
        .first()
    )
    if evaluation is None:
        raise NotFound(f"no meta-evaluation {evaluation_id}")
    return evaluation


def evaluations_for(version: DatasetVersion, *, user: Any) -> QuerySet[MetaEvaluation]:
    """The runs of the release that `user` may see: on uploaded human scores, or on a
    campaign they may see (a run's report carries its campaign's human scores)."""
    return MetaEvaluation.objects.filter(version=version).filter(
        Q(campaign_id__isnull=True) | Q(campaign_id__in=visible_campaigns(user).values("pk"))
    )


def evaluation_for(evaluation_id: int, *, user: Any) -> MetaEvaluation:
    """One run `user` may see; a run on another admin's campaign is not found."""
    evaluation = get_evaluation(evaluation_id)
    if not evaluations_for(evaluation.version, user=user).filter(pk=evaluation.pk).exists():
        raise NotFound(f"no meta-evaluation {evaluation_id}")
    return evaluation


def evaluation_state(evaluation: MetaEvaluation) -> dict[str, Any]:
    """The JSON shape of a run (API and page data)."""
    body: dict[str, Any] = {
        "id": evaluation.pk,
        "release": evaluation.version.label,
        "version_id": evaluation.version_id,
        "status": evaluation.status,
        "job_id": evaluation.background_job_id,
        "error": evaluation.error,
        "human_source": evaluation.human_source,
        "human_scores_id": evaluation.human_scores_id,
        "campaign_id": evaluation.campaign_id,
        "human_method": evaluation.human_method,
        "metrics": evaluation.metrics,
        "excluded_systems": evaluation.excluded_systems,
        "aggregation": evaluation.aggregation,
        "bootstrap": evaluation.bootstrap,
        "sentence_bootstrap": evaluation.sentence_bootstrap,
        "window": evaluation.window,
        "seed": evaluation.seed,
        "created_at": evaluation.created_at.isoformat() if evaluation.created_at else None,
        "finished_at": evaluation.finished_at.isoformat() if evaluation.finished_at else None,
    }
    if evaluation.status == ScoreStatus.DONE:
        body.update(
            human_label=evaluation.human_label,
            human=evaluation.human,
            systems=evaluation.systems,
            signatures=evaluation.signatures,
            report=evaluation.report,
        )
    return body
