"""The meta-evaluation page: which metric agrees with people on a release; runs,
human score uploads, the report with its charts."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from gecscore.signature import settings_of  # the signature grammar: how the page groups settings

from core.charts import ChartBox
from core.exceptions import ServiceError
from core.models import BackgroundJob
from core.params import bounded_int
from core.permissions import role_required
from core.roles import Role
from core.uploads import TOO_LARGE
from core.web import lookup, parse_id
from core.xycharts import AxisRange, range_line_chart, scatter_chart
from datasets.selectors import release_by_id
from judgments.models import Campaign, CampaignMode
from judgments.selectors import METHOD_LABELS
from scoring.models import HumanSystemScores, MetaEvaluation, ScoreStatus, SystemOutput
from scoring.services import meta as meta_services


def _int_or_none(value: str | None) -> int | None:
    value = (value or "").strip()
    return parse_id(value)


def meta_charts(evaluation: MetaEvaluation) -> dict[str, Any]:
    """Scatter plots (metric vs human, one per metric, Chollampatt & Ng's Figure 1) and the
    window-analysis chart (Pearson over windows of adjacent systems in the human ranking)."""
    report = evaluation.report
    systems = report.get("systems", [])
    human = evaluation.human
    scatters = []
    for key, entry in report.get("metrics", {}).items():
        scores = report.get("metric_scores", {}).get(key, {})
        scatters.append(
            {
                "key": key,
                "label": entry["label"],
                "svg": scatter_chart(
                    title=f"{entry['label']} vs human",
                    points=[(s, scores[s], human[s]) for s in systems],
                    x_label=entry["label"],
                    y_label="human score",
                    box=ChartBox(width=420, height=340, left=60),
                ),
            }
        )
    window_svg = ""
    windows = {k: e.get("window") or [] for k, e in report.get("metrics", {}).items()}
    starts = [w["from"] for w in next(iter(windows.values()), [])]
    if len(starts) >= 1 and windows:
        window_svg = range_line_chart(
            title=(
                f"Window analysis: Pearson over {report.get('window_size')} adjacent systems "
                "(human ranking, best first)"
            ),
            x_values=starts,
            series=[
                (report["metrics"][k]["label"], [w["pearson"] for w in ws])
                for k, ws in windows.items()
            ],
            y_range=AxisRange(-1.0, 1.0),
            x_label="human rank of the window's first system",
            y_label="Pearson r",
            box=ChartBox(width=760, height=360, top=56),
        )
    return {"scatters": scatters, "window_chart": window_svg}


# The form's choices of the human side's ranking and of the metrics' aggregation.
HUMAN_METHOD_CHOICES = {
    "ranks": [(m, METHOD_LABELS[m]) for m in meta_services.HUMAN_METHODS],
    "edits": [(m, METHOD_LABELS[m]) for m in meta_services.EDIT_METHODS],
    "esa": [(m, METHOD_LABELS[m]) for m in meta_services.ESA_METHODS],
}
AGGREGATION_LABELS = {
    "default": "default: the stored corpus score",
    "trueskill": "TrueSkill over sentence scores",
    "expected-wins": "Expected Wins over sentence scores",
}
AGGREGATION_CHOICES = [(a, AGGREGATION_LABELS[a]) for a in meta_services.AGGREGATIONS]


def _form_choices(request: HttpRequest, shown: MetaEvaluation | None) -> dict[str, Any]:
    """The run form starts from the run shown (after a run, the one just asked for), so a
    second run with one thing changed does not begin by choosing the human side again."""
    chosen_campaign = _int_or_none(request.GET.get("campaign"))
    if shown is None:
        # An ESA campaign's own human score is its mean score.
        esa = (
            chosen_campaign is not None
            and Campaign.objects.filter(pk=chosen_campaign, mode=CampaignMode.ESA).exists()
        )
        return {
            "chosen_campaign": chosen_campaign,
            "chosen_upload": None,
            "chosen_method": "esa" if esa else "ew",
            "chosen_aggregation": "default",
            "chosen_metrics": [],
        }
    return {
        "chosen_campaign": chosen_campaign or shown.campaign_id,
        "chosen_upload": None if chosen_campaign else shown.human_scores_id,
        "chosen_method": shown.human_method or "ew",
        "chosen_aggregation": shown.aggregation,
        "chosen_metrics": list(shown.metrics),
    }


# Below this many systems a bootstrap over systems resamples a handful of points (with 3,
# a third of the resamples repeat one system twice or more) and its interval looks far surer
# than it is ([0.924, 1.000] over 3 systems); the page says so beside the table.
FEW_SYSTEMS_FOR_INTERVALS = 8


def _meta_rows(evaluation: MetaEvaluation) -> list[dict[str, Any]]:
    report = evaluation.report
    best = report.get("best")
    rows = []
    for key, entry in report.get("metrics", {}).items():
        stored = evaluation.signatures.get(key, [])
        settings = sorted({settings_of(signature) for signature in stored})
        rows.append(
            {
                "key": key,
                **entry,
                "best": key == best,
                # CLEME's b is measured per system; only settings count as mixed.
                "signatures": settings,
                "measured_per_system": len(stored) > len(settings),
            }
        )
    for key, entry in report.get("baseline", {}).items():
        rows.append({"key": key, **entry, "baseline": True, "signatures": []})
    return rows


def _run_numbers(request: HttpRequest) -> dict[str, Any]:
    """The run form's numbers, each bounded (the API's serializer has the same bounds)."""
    most = meta_services.MAX_BOOTSTRAP
    return {
        "bootstrap": bounded_int(
            request.POST.get("bootstrap"),
            field="bootstrap",
            low=0,
            high=most,
            default=meta_services.DEFAULT_BOOTSTRAP,
        ),
        "sentence_bootstrap": bounded_int(
            request.POST.get("sentence_bootstrap"),
            field="sentence_bootstrap",
            low=0,
            high=most,
            default=0,
        ),
        "window": bounded_int(
            request.POST.get("window"), field="window", low=2, high=meta_services.MAX_WINDOW
        ),
    }


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def meta_evaluation(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    if request.method == "POST":
        source = request.POST.get("human", "")
        kind, _, raw_id = source.partition(":")
        try:
            human_scores = None
            if kind == "upload":
                human_scores = HumanSystemScores.objects.filter(
                    pk=_int_or_none(raw_id) or 0, version=version
                ).first()
                if human_scores is None:
                    raise ServiceError(
                        "choose uploaded human scores of this release", field="human"
                    )
            evaluation = meta_services.request_meta_evaluation(
                version=version,
                user=request.user,
                metrics=request.POST.getlist("metrics"),
                human_scores=human_scores,
                campaign_id=_int_or_none(raw_id) if kind == "campaign" else None,
                method=request.POST.get("method", "ew"),
                **_run_numbers(request),
                exclude=request.POST.getlist("exclude"),
                aggregation=request.POST.get("aggregation", "default"),
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
            return redirect("scoring:meta-evaluation", version_id=version.pk)
        messages.success(request, "meta-evaluation started")
        return redirect(
            f"{reverse('scoring:meta-evaluation', args=[version.pk])}?run={evaluation.pk}"
        )
    visible_runs = meta_services.evaluations_for(version, user=request.user)
    runs = list(visible_runs[:20])
    chosen_id = _int_or_none(request.GET.get("run"))
    shown = next((r for r in runs if r.pk == chosen_id), None)
    if shown is None and chosen_id is not None:
        shown = visible_runs.filter(pk=chosen_id).first()
    if shown is None and chosen_id is None:
        shown = next((r for r in runs if r.status == ScoreStatus.DONE), None)
    if shown is not None:
        shown = meta_services.settle_with_job(shown)
    context: dict[str, Any] = {
        "version": version,
        "metric_choices": (choices := meta_services.available_metrics(version)),
        "closest_gold_offered": any("@" in choice.key for choice in choices),
        "uploads": list(HumanSystemScores.objects.filter(version=version)),
        "campaigns": meta_services.campaigns_for_release(version, user=request.user),
        **_form_choices(request, shown),
        "human_methods": HUMAN_METHOD_CHOICES,
        "aggregation_choices": AGGREGATION_CHOICES,
        "runs": runs,
        "evaluation": shown,
        "default_bootstrap": meta_services.DEFAULT_BOOTSTRAP,
        "aggregations": meta_services.AGGREGATIONS,
        "system_names": list(
            SystemOutput.objects.filter(version=version)
            .order_by("name")
            .values_list("name", flat=True)
        ),
    }
    if shown is not None and shown.background_job_id:
        context["job"] = BackgroundJob.objects.filter(pk=shown.background_job_id).first()
    if shown is not None and shown.status == ScoreStatus.DONE:
        context["rows"] = _meta_rows(shown)
        context["few_systems"] = len(shown.systems) < FEW_SYSTEMS_FOR_INTERVALS
        # Closest-gold and pooled columns are only as good as the closest-golds behind them.
        context["closest_gold_caveat"] = any("@" in key for key in shown.report.get("metrics", {}))
        context.update(meta_charts(shown))
    return render(request, "scoring/meta.html", context)


@role_required(Role.ADMIN)
@require_POST
def meta_human_upload(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    uploaded = request.FILES.get("file")
    try:
        if uploaded is None:
            raise ServiceError("choose a human score file to upload", field="file")
        human = meta_services.upload_human_scores(
            version=version,
            name=request.POST.get("name", ""),
            data=uploaded,
            file_name=uploaded.name or "",
            user=request.user,
            replace=request.POST.get("replace") == "1",
        )
    except ServiceError as exc:
        if exc.status == TOO_LARGE:
            raise  # a refused upload answers 413 with its message (core.middleware), not a redirect
        messages.error(request, exc.message)
    else:
        messages.success(request, f"human scores {human.name} stored ({len(human.scores)} systems)")
    return redirect("scoring:meta-evaluation", version_id=version.pk)
