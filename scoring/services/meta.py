"""Meta-evaluation of a release's stored metric scores against human scores (issue 18).

Which metric agrees with people? The metric side is read from the stored ``SystemScore``
rows (nothing is recomputed: the numbers, and their signatures, are the ones the
leaderboard shows); the human side is an uploaded system-score file (CoNLL-14 / SEEDA
layouts, parsed by ``scoring.gec.meta.scorefiles``) or a judgments campaign on the release
(Expected Wins or TrueSkill, from ``judgments.selectors.human_system_scores``). The correlations,
bootstrap intervals, Williams' tests and window analysis all come from
``scoring.gec.meta``.

``upload_human_scores`` -> ``request_meta_evaluation`` (a BackgroundJob plus the Celery task
``scoring.meta_evaluate``, queued on commit) -> ``run_meta_evaluation`` (the work;
idempotent: a re-run replaces the stored report).
"""

from __future__ import annotations

import gzip
import logging
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

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
from core.models import BackgroundJob, JobStatus
from datasets.models import DatasetVersion, Language
from judgments import selectors as judgment_selectors
from judgments.models import Campaign
from scoring.gec import registry
from scoring.gec.compare import scores as count_scores
from scoring.gec.errors import decode_utf8
from scoring.gec.meta.correlation import FloatArray, bootstrap_sentences, williams
from scoring.gec.meta.report import system_report
from scoring.gec.meta.scorefiles import ScoreFileError, read_system_scores
from scoring.models import (
    HumanScoreLayout,
    HumanSource,
    HumanSystemScores,
    MetaEvaluation,
    ScoreStatus,
    SentenceResult,
    SystemOutput,
    SystemScore,
)

logger = logging.getLogger("scoring.services")

JOB_KIND_META = "scoring.meta"

HUMAN_METHODS = ("ew", "trueskill")
DEFAULT_BOOTSTRAP = 1000
MAX_BOOTSTRAP = 10000
MAX_HUMAN_FILE_BYTES = 5 * 1024 * 1024
# Williams' p below this marks a metric as significantly worse than the best one.
SIGNIFICANCE_LEVELS = ((0.01, "**"), (0.05, "*"))


# --- the metric catalogue: where each metric's number and signature are stored -------------


@dataclass(frozen=True)
class MetricSpec:
    """One metric the platform stores for a scored system.

    ``read`` returns ``(score, signature)`` from a finished SystemScore, or None when that
    score does not carry the metric (an older score, a metric not computed for its
    language, PT-M2 not run yet)."""

    key: str
    label_zh: str
    label_en: str
    read: Callable[[SystemScore], tuple[float, str] | None]

    def label(self, english: bool) -> str:
        return self.label_en if english else self.label_zh


def _extra(score: SystemScore, name: str, value_key: str) -> tuple[float, str] | None:
    entry = (score.summary or {}).get("extra", {}).get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get(value_key), int | float):
        return None
    return float(entry[value_key]), str(entry.get("signature", ""))


def _detection(score: SystemScore) -> tuple[float, str] | None:
    entry = (score.summary or {}).get("detection", {}).get("ds")
    if not isinstance(entry, dict) or not isinstance(entry.get("f05"), int | float):
        return None
    # Detection (span) mode is computed with the same settings as the main score.
    return float(entry["f05"]), f"{score.signature}|mode=ds"


def _registered(metric: registry.Metric) -> MetricSpec:
    """A metric of the library's registry, stored under ``summary["extra"]``."""
    assert metric.summary is not None
    entry, value_key = metric.summary
    return MetricSpec(
        metric.name, metric.title, metric.title, lambda s: _extra(s, entry, value_key)
    )


# The registry's metrics that a scored system's summary keeps (m2, sentm2, gleu, cleme,
# cleme2, ptm2), after the main comparison's numbers.
_STORED = [metric for metric in registry.METRICS.values() if metric.summary is not None]
METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("f05", "ChERRANT F0.5 (char)", "ERRANT F0.5", lambda s: (s.f05, s.signature)),
    MetricSpec("p", "ChERRANT P (char)", "ERRANT P", lambda s: (s.p, s.signature)),
    MetricSpec("r", "ChERRANT R (char)", "ERRANT R", lambda s: (s.r, s.signature)),
    MetricSpec("detection", "detection (span) F0.5", "detection (span) F0.5", _detection),
    *(_registered(metric) for metric in _STORED),
)
_KNOWN_EXTRA = {metric.summary[0] for metric in _STORED if metric.summary is not None}
EXTRA_PREFIX = "extra."


def _other_extra_metrics(score: SystemScore) -> dict[str, tuple[float, str]]:
    """Later metrics stored under ``summary["extra"]`` (weighted ones when configured):
    any entry with a signature and an ``f05`` or ``score`` number is offered as
    ``extra.<name>``."""
    found: dict[str, tuple[float, str]] = {}
    for name, entry in ((score.summary or {}).get("extra") or {}).items():
        if name in _KNOWN_EXTRA or not isinstance(entry, dict) or "signature" not in entry:
            continue
        for value_key in ("f05", "score"):
            if isinstance(entry.get(value_key), int | float):
                found[f"{EXTRA_PREFIX}{name}"] = (float(entry[value_key]), str(entry["signature"]))
                break
    return found


def _metric_values(score: SystemScore) -> dict[str, tuple[float, str]]:
    values = {spec.key: spec.read(score) for spec in METRICS}
    out = {key: value for key, value in values.items() if value is not None}
    out.update(_other_extra_metrics(score))
    return out


def metric_label(key: str, *, english: bool) -> str:
    for spec in METRICS:
        if spec.key == key:
            return spec.label(english)
    return key.removeprefix(EXTRA_PREFIX)


@dataclass(frozen=True)
class MetricChoice:
    key: str
    label: str
    systems: int  # how many scored systems of the release carry it


def _scored(version: DatasetVersion) -> list[SystemScore]:
    return list(
        SystemScore.objects.filter(system__version=version, status=ScoreStatus.DONE)
        .select_related("system")
        .order_by("system__name")
    )


def available_metrics(version: DatasetVersion) -> list[MetricChoice]:
    """Every metric some finished score of the release carries, in catalogue order."""
    english = version.dataset.language == Language.ENGLISH
    counts: dict[str, int] = {}
    for score in _scored(version):
        for key in _metric_values(score):
            counts[key] = counts.get(key, 0) + 1
    order = [spec.key for spec in METRICS] + sorted(k for k in counts if k.startswith(EXTRA_PREFIX))
    return [
        MetricChoice(key, metric_label(key, english=english), counts[key])
        for key in order
        if key in counts
    ]


def stored_metric_scores(
    version: DatasetVersion, keys: list[str]
) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """``({metric: {system: score}}, {metric: [distinct signatures]})`` from the release's
    finished scores (a system that lacks a metric is absent from that metric's dict)."""
    scores: dict[str, dict[str, float]] = {key: {} for key in keys}
    signatures: dict[str, set[str]] = {key: set() for key in keys}
    for score in _scored(version):
        values = _metric_values(score)
        for key in keys:
            if key in values:
                value, signature = values[key]
                scores[key][score.system.name] = value
                signatures[key].add(signature)
    return scores, {key: sorted(found) for key, found in signatures.items()}


# --- the human side -----------------------------------------------------------------------


def campaigns_for_release(version: DatasetVersion) -> list[Campaign]:
    """The judgment campaigns on the release (judgments sits below scoring: allowed)."""
    return list(judgment_selectors.campaigns_for_release(version))


def _campaign(version: DatasetVersion, campaign_id: int) -> Campaign:
    campaign = judgment_selectors.campaigns_for_release(version).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"{version.label} has no judgment campaign {campaign_id}", field="campaign")
    return campaign


def upload_human_scores(
    *,
    version: DatasetVersion,
    name: str,
    data: bytes,
    file_name: str,
    user: Any,
    replace: bool = False,
) -> HumanSystemScores:
    """Parse and store a human system-score file (WMT or SEEDA layout, gzipped or not).

    The SEEDA layout is one score a line with no system names: the lines are read in the
    ASCII order of the release's system names, as SEEDA orders its 15 systems, so such a
    file must have exactly one line per system output of the release."""
    name = (name or "").strip() or os.path.basename(file_name or "").split(".")[0]
    if not name:
        raise ServiceError("give the human scores a name", field="name")
    if len(name) > 100:
        raise ServiceError("name longer than 100 characters", field="name")
    if not data:
        raise ServiceError(f"{file_name or 'the file'} is empty", field="file")
    if len(data) > MAX_HUMAN_FILE_BYTES:
        raise ServiceError(
            f"{file_name}: {len(data)} bytes is above the {MAX_HUMAN_FILE_BYTES}-byte limit",
            field="file",
        )
    release_systems = tuple(
        sorted(SystemOutput.objects.filter(version=version).values_list("name", flat=True))
    )
    # The library reads files by path (it sniffs gzip); a private temporary copy is removed
    # at once, the parsed scores are what is stored.
    handle, path = tempfile.mkstemp(prefix="human-scores-", suffix=".txt")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        parsed = read_system_scores(path, systems=release_systems)
    except ScoreFileError as exc:
        raise ServiceError(str(exc).replace(path, file_name or "the file"), field="file") from None
    finally:
        os.unlink(path)
    infinite = sorted(system for system, value in parsed.scores.items() if not math.isfinite(value))
    if infinite:
        raise ServiceError(
            f"{file_name}: the score of {', '.join(infinite)} is not a finite number",
            field="file",
        )
    first_line = _first_line(data)
    layout = HumanScoreLayout.WMT if "\t" in first_line else HumanScoreLayout.SEEDA
    matched = [s for s in parsed.scores if s in set(release_systems)]
    if not matched:
        raise ServiceError(
            f"{file_name}: none of its systems ({', '.join(sorted(parsed.scores)[:8])}) is a "
            f"system output of {version.label}; name the systems as on the leaderboard",
            field="file",
        )
    with transaction.atomic():
        existing = (
            HumanSystemScores.objects.select_for_update().filter(version=version, name=name).first()
        )
        if existing is not None and not replace:
            raise Conflict(
                f"{version.label} already has human scores named {name!r}; choose another "
                "name or replace them",
                field="name",
            )
        if existing is None:
            existing = HumanSystemScores(version=version, name=name)
            existing.created_by = user if getattr(user, "is_authenticated", False) else None
        existing.file_name = file_name
        existing.layout = layout
        existing.scores = parsed.scores
        existing.save()
        log_action(
            existing,
            user,
            "scoring.human_scores.upload",
            {"version": version.pk, "name": name, "systems": len(parsed.scores)},
        )
    return existing


def _first_line(data: bytes) -> str:
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            return ""
    text = decode_utf8(data, name="the file")  # read_system_scores checked it already
    return next((line for line in text.splitlines() if line.strip()), "")


def _human_side(evaluation: MetaEvaluation) -> tuple[dict[str, float], str]:
    """The human system scores an evaluation uses, and a label saying where they came from."""
    if evaluation.human_source == HumanSource.UPLOAD:
        if evaluation.human_scores is None:
            raise ServiceError("the uploaded human scores of this run were deleted")
        upload = evaluation.human_scores
        return dict(upload.scores), f"uploaded: {upload.name} ({upload.file_name})"
    if evaluation.campaign_id is None:
        raise ServiceError("this run names no judgment campaign")
    campaign = _campaign(evaluation.version, evaluation.campaign_id)
    scores = judgment_selectors.human_system_scores(campaign, method=evaluation.human_method)
    if not scores:
        raise ServiceError(
            f"campaign {campaign.name} has no finished judgments yet; judge some items first"
        )
    method = "Expected Wins" if evaluation.human_method == "ew" else "TrueSkill"
    return {str(k): float(v) for k, v in scores.items()}, f"campaign: {campaign.name} ({method})"


# --- requesting and running ---------------------------------------------------------------


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
    queue: bool = True,
) -> MetaEvaluation:
    """Check the request and queue the run (the Celery task is sent on commit). With
    ``queue=False`` nothing is sent: the caller runs ``run_meta_evaluation`` itself (the
    API's ``wait``)."""
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
    if (human_scores is None) == (campaign_id is None):
        raise ServiceError(
            "choose one human source: uploaded human scores or a judgment campaign",
            field="human",
        )
    if human_scores is not None and human_scores.version_id != version.pk:
        raise ServiceError("those human scores belong to another release", field="human")
    if campaign_id is not None:
        if method not in HUMAN_METHODS:
            raise ServiceError(
                f"method must be one of {', '.join(HUMAN_METHODS)} (got {method!r})",
                field="method",
            )
        _campaign(version, campaign_id)
    exclude = list(dict.fromkeys(exclude))
    names = set(SystemOutput.objects.filter(version=version).values_list("name", flat=True))
    unknown = [name for name in exclude if name not in names]
    if unknown:
        raise ServiceError(
            f"cannot leave out {', '.join(unknown)}: not a system output of {version.label}",
            field="exclude",
        )
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ServiceError(f"bootstrap samples must be 0 to {MAX_BOOTSTRAP}", field="bootstrap")
    if not 0 <= sentence_bootstrap <= MAX_BOOTSTRAP:
        raise ServiceError(
            f"sentence bootstrap samples must be 0 to {MAX_BOOTSTRAP}", field="sentence_bootstrap"
        )
    if window is not None and window < 2:
        raise ServiceError("the window must hold at least 2 systems", field="window")
    from scoring.tasks import meta_evaluate

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
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        job.params = {**job.params, "evaluation": evaluation.pk}
        job.save(update_fields=["params"])
        log_action(evaluation, user, "scoring.meta.request", {"job": job.pk, "metrics": metrics})
        if queue:
            queue_job(job, meta_evaluate, evaluation.pk, job.pk)
    return evaluation


def auto_window(n_systems: int) -> int:
    """Half the systems, at least 3 (a window of 2 always correlates at +-1)."""
    return min(n_systems, max(3, n_systems // 2))


def _finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def run_meta_evaluation(*, evaluation_id: int, job_id: int | None = None) -> MetaEvaluation:
    """The work of one run (the Celery task's body). Idempotent: the report is replaced."""
    evaluation = (
        MetaEvaluation.objects.select_related("version__dataset", "human_scores")
        .filter(pk=evaluation_id)
        .first()
    )
    if evaluation is None:
        raise NotFound(f"no meta-evaluation {evaluation_id}")
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
    MetaEvaluation.objects.filter(pk=evaluation.pk).update(
        status=ScoreStatus.RUNNING, started_at=timezone.now(), error=""
    )
    if job_id is not None:
        mark_running(job_id, total=len(evaluation.metrics) + 2, message="reading human scores")
    try:
        fields = _evaluate(evaluation, job_id=job_id)
    except JobCancelled:
        MetaEvaluation.objects.filter(pk=evaluation.pk).update(
            status=ScoreStatus.CANCELLED, finished_at=timezone.now()
        )
        evaluation.refresh_from_db()
        return evaluation
    except (ServiceError, ValueError) as exc:
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        MetaEvaluation.objects.filter(pk=evaluation.pk).update(
            status=ScoreStatus.FAILED, error=message, finished_at=timezone.now()
        )
        if job_id is not None:
            fail_job(job_id, message=message)
        evaluation.refresh_from_db()
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


def _evaluate(evaluation: MetaEvaluation, *, job_id: int | None) -> dict[str, Any]:
    version = evaluation.version
    english = version.dataset.language == Language.ENGLISH
    human, human_label = _human_side(evaluation)
    report_progress(job_id, 1, message="reading stored metric scores")
    keys = list(evaluation.metrics)
    metric_scores, signatures = stored_metric_scores(version, keys)
    excluded = set(evaluation.excluded_systems)
    systems = sorted(
        s
        for s in human
        if s not in excluded and all(s in metric_scores[key] for key in keys) and _finite(human[s])
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
    window = evaluation.window if evaluation.window is not None else auto_window(len(systems))
    window = min(window, len(systems))
    report: dict[str, Any] = {
        "n_systems": len(systems),
        "systems": systems,
        "metrics": {},
        "excluded": sorted(excluded),
        "window_size": window,
        "bootstrap": evaluation.bootstrap,
        "sentence_bootstrap": evaluation.sentence_bootstrap,
        "seed": evaluation.seed,
    }
    sentence_stats = (
        _sentence_counts(version, systems) if evaluation.sentence_bootstrap > 0 else None
    )
    for index, key in enumerate(keys):
        report_progress(
            job_id, 1 + index, message=f"correlating {metric_label(key, english=english)}"
        )
        one = system_report(
            human,
            {key: metric_scores[key]},
            systems,
            bootstrap=evaluation.bootstrap,
            seed=evaluation.seed,
            window=window,
        )
        entry = one["metrics"][key]
        entry["label"] = metric_label(key, english=english)
        entry["pearson_ci_sentences"] = None
        if sentence_stats is not None and key in SENTENCE_COUNT_METRICS:
            entry["pearson_ci_sentences"] = _sentence_interval(
                key, human, metric_scores[key], systems, sentence_stats, evaluation
            )
        report["metrics"][key] = entry
    report_progress(job_id, 1 + len(keys), message="Williams' tests")
    report.update(_williams(human, metric_scores, systems, report["metrics"]))
    report["metric_scores"] = {key: {s: metric_scores[key][s] for s in systems} for key in keys}
    report["human_label"] = human_label
    return {
        "human": {s: human[s] for s in sorted(human)},
        "human_label": human_label,
        "systems": systems,
        "signatures": {key: signatures[key] for key in keys},
        "report": report,
    }


# Metrics recomputable from the stored per-sentence counts (SentenceResult TP/FP/FN), with
# the attribute of the library's ``scores`` they are.
SENTENCE_COUNT_METRICS = {"f05": "f", "p": "p", "r": "r"}


def _sentence_counts(version: DatasetVersion, systems: list[str]) -> list[FloatArray]:
    """Per system (in ``systems`` order), its sentences x (TP, FP, FN), in release order."""
    rows: dict[str, list[tuple[int, int, int]]] = {s: [] for s in systems}
    for name, tp, fp, fn in (
        SentenceResult.objects.filter(
            score__system__version=version,
            score__status=ScoreStatus.DONE,
            score__system__name__in=systems,
        )
        .order_by("score__system__name", "position")
        .values_list("score__system__name", "tp", "fp", "fn")
    ):
        rows[name].append((tp, fp, fn))
    return [np.asarray(rows[s], dtype=float).reshape(-1, 3) for s in systems]


def _sentence_interval(
    key: str,
    human: dict[str, float],
    stored: dict[str, float],
    systems: list[str],
    stats: list[FloatArray],
    evaluation: MetaEvaluation,
) -> list[float | None] | None:
    """Pearson's CI when the test sentences are resampled (the library's
    ``bootstrap_sentences``; every system's score recomputed from the summed counts by the
    library's ``scores``). None when the summed counts do not give back the stored scores
    (a metric whose corpus score is not a sum of its sentence counts): then the interval
    would not be about the number in the table."""
    attribute = SENTENCE_COUNT_METRICS[key]

    def aggregate(sums: FloatArray, _n_sentences: int) -> float:
        return float(getattr(count_scores(int(sums[0]), int(sums[1]), int(sums[2])), attribute))

    for system, counts in zip(systems, stats, strict=True):
        if counts.shape[0] == 0 or not math.isclose(
            aggregate(counts.sum(axis=0), counts.shape[0]), stored[system], abs_tol=1e-9
        ):
            return None
    low, high = bootstrap_sentences(
        [human[s] for s in systems],
        stats,
        aggregate,
        samples=evaluation.sentence_bootstrap,
        seed=evaluation.seed,
    )
    return [None if math.isnan(low) else low, None if math.isnan(high) else high]


def _williams(
    human: dict[str, float],
    metric_scores: dict[str, dict[str, float]],
    systems: list[str],
    entries: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Williams' test (the library's, on |r|) for every ordered pair of metrics with a
    defined Pearson r, as ``system_report`` lays it out (p where |r(A)| > |r(B)|, else null),
    plus the best metric (largest |r|) and each metric's p against it."""
    tested = [k for k, e in entries.items() if _finite(e["pearson"])]
    best = max(tested, key=lambda k: abs(entries[k]["pearson"]), default=None)
    p_table: dict[str, dict[str, float | None]] = {}
    t_table: dict[str, dict[str, float | None]] = {}
    if len(systems) > 3:
        h = [human[s] for s in systems]
        columns = {k: [metric_scores[k][s] for s in systems] for k in tested}
        for a in tested:
            p_table[a], t_table[a] = {}, {}
            for b in tested:
                if a == b:
                    continue
                try:
                    result = williams(h, columns[a], columns[b])
                except (ZeroDivisionError, ValueError):
                    # Perfectly collinear metrics: the test's variance term is zero.
                    p_table[a][b] = t_table[a][b] = None
                    continue
                better = abs(result.r_a) > abs(result.r_b)
                p_table[a][b] = result.p if better and not math.isnan(result.p) else None
                t_table[a][b] = result.t if better and not math.isnan(result.t) else None
    for key, entry in entries.items():
        p = p_table.get(best, {}).get(key) if best is not None and key != best else None
        entry["williams_vs_best"] = p
        entry["significance"] = next(
            (mark for level, mark in SIGNIFICANCE_LEVELS if p is not None and p < level), ""
        )
    return {"williams": p_table, "williams_t": t_table, "best": best}


# --- reading ----------------------------------------------------------------------------------


def get_evaluation(evaluation_id: int) -> MetaEvaluation:
    evaluation = (
        MetaEvaluation.objects.select_related("version__dataset", "human_scores")
        .filter(pk=evaluation_id)
        .first()
    )
    if evaluation is None:
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
