"""Pages of the scoring app. Thin: parse the request, call a service or selector, render.

Leaderboards and system pages are for admins and reviewers; uploads, ensembles, annotator
quality and pay are for admins. Charts are server-rendered SVG (core/charts.py).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from core.charts import (
    AxisRange,
    ChartBox,
    bar_chart,
    grouped_bar_chart,
    range_line_chart,
    scatter_chart,
)
from core.exceptions import ServiceError
from core.models import BackgroundJob
from core.permissions import role_required
from core.roles import Role, roles_of
from core.web import parse_id
from datasets.models import Dataset, DatasetVersion, Language
from scoring import selectors, services
from scoring.models import HumanSystemScores, MetaEvaluation, ScoreStatus, SystemOutput
from scoring.services import meta as meta_services

PAGE_SIZE = 50
# Leaderboard columns beyond the char-level P/R/F0.5 (selectable with ?cols=...).
OPTIONAL_COLUMNS = ("detection", "m2", "sentm2", "gleu", "cleme", "cleme2", "ptm2")
DEFAULT_COLUMNS = ("detection", "cleme")
# English releases also report the classic metrics papers print beside ERRANT.
DEFAULT_COLUMNS_EN = ("m2", "sentm2", "gleu", "cleme")
CURVE_LABELS_ALL = "All"


def _version(version_id: int) -> DatasetVersion:
    version = DatasetVersion.objects.select_related("dataset").filter(pk=version_id).first()
    if version is None:
        raise Http404("no such release")
    return version


def _system(system_id: int) -> SystemOutput:
    try:
        return selectors.get_system(system_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None


def _dataset(dataset_id: int) -> Dataset:
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        raise Http404("no such dataset")
    return dataset


def _curve_labels(length: int) -> list[str]:
    return [str(k) for k in range(1, length)] + [CURVE_LABELS_ALL]


def reference_count_chart(series: list[tuple[str, list[float]]]) -> str:
    """Figure 3: F0.5 with the first 1, 2, 3 references and all of them, per system.

    A curve is [k=1, ..., All]; a shorter one (a corpus with fewer references per sentence)
    is padded with its All value, which is exactly its first-k score for every larger k.
    """
    series = [(name, curve) for name, curve in series if curve]
    if not series:
        return ""
    length = max(len(curve) for _, curve in series)
    padded = [
        (name, curve[:-1] + [curve[-1]] * (length - len(curve) + 1)) for name, curve in series
    ]
    return grouped_bar_chart(
        title="F0.5 by number of references (first k, then all)",
        categories=_curve_labels(length),
        series=padded,
        x_label="references used",
        y_label="F0.5",
        box=ChartBox(width=720, height=340),
    )


@role_required(Role.ADMIN, Role.REVIEWER)
def index(request: HttpRequest) -> HttpResponse:
    versions = list(selectors.releases())
    datasets = Dataset.objects.order_by("name")
    return render(request, "scoring/index.html", {"versions": versions, "datasets": datasets})


@role_required(Role.ADMIN, Role.REVIEWER)
def leaderboard(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    rows = selectors.leaderboard(version)
    chosen = {i for i in map(parse_id, request.GET.getlist("systems")) if i is not None}
    curves = selectors.reference_curves(version, chosen or None)
    series = [(c["name"], c["curve"]) for c in curves]
    show_human = request.GET.get("human", "1") == "1"
    human = None
    english = version.dataset.language == Language.ENGLISH
    # Annotator samples are scored with the char-level metric: Chinese datasets only.
    if show_human and version.dataset_id and not english:
        services.refresh_annotator_scores(dataset_id=version.dataset_id, user=request.user)
        human = selectors.human_scores(version.dataset)
        if human["samples"]:
            series.append(("Human", human["ref_count_curve"]))
    wanted = request.GET.getlist("cols")
    defaults = DEFAULT_COLUMNS_EN if english else DEFAULT_COLUMNS
    columns = (
        [c for c in OPTIONAL_COLUMNS if c in wanted] if "cols" in request.GET else list(defaults)
    )
    context: dict[str, Any] = {
        "version": version,
        "english": english,
        "rows": rows,
        "columns": columns,
        "optional_columns": OPTIONAL_COLUMNS,
        "signatures": selectors.leaderboard_signatures(rows),
        "chart": reference_count_chart(series),
        "chosen": chosen,
        "human": human,
        "can_manage": Role.ADMIN in _roles(request),
        "scored": [row for row in rows if row.scored],
    }
    return render(request, "scoring/leaderboard.html", context)


def _roles(request: HttpRequest) -> set[Role]:
    return set(roles_of(request.user))


@role_required(Role.ADMIN)
@require_POST
def upload(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    uploaded = request.FILES.get("file")
    try:
        if uploaded is None:
            raise ServiceError("choose a file to upload", field="file")
        # Upload and queue in one transaction: with the broker down nothing is stored.
        with transaction.atomic():
            system = services.upload_system_output(
                version=version,
                name=request.POST.get("name", ""),
                data=uploaded.read(),
                file_name=uploaded.name or "",
                user=request.user,
                file_format=request.POST.get("format", "auto"),
                description=request.POST.get("description", ""),
                replace=request.POST.get("replace") == "1",
            )
            services.request_scoring(system=system, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("scoring:leaderboard", version_id=version.pk)
    messages.success(request, f"{system.name} uploaded; scoring started.")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def ensemble(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    ids = [i for i in map(parse_id, request.POST.getlist("systems")) if i is not None]
    systems = list(SystemOutput.objects.filter(pk__in=ids, version=version))
    try:
        with transaction.atomic():
            combined = services.create_ensemble(
                systems=systems, name=request.POST.get("name", ""), user=request.user
            )
            services.request_scoring(system=combined, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("scoring:leaderboard", version_id=version.pk)
    messages.success(
        request, f"ensemble {combined.name} of {len(systems)} systems created; scoring started."
    )
    return redirect("scoring:system", system_id=combined.pk)


@role_required(Role.ADMIN, Role.REVIEWER)
def system_page(request: HttpRequest, system_id: int) -> HttpResponse:
    system = _system(system_id)
    score = selectors.score_of(system)
    only = request.GET.get("only", "")
    source_name = request.GET.get("source", "")
    try:
        page = max(1, int(request.GET.get("page", "1")))
    except ValueError:
        page = 1
    context: dict[str, Any] = {
        "system": system,
        "score": score,
        "only": only,
        "source": source_name,
        "can_manage": Role.ADMIN in _roles(request),
    }
    if score is not None and score.background_job_id:
        context["job"] = BackgroundJob.objects.filter(pk=score.background_job_id).first()
    if score is not None and score.status == ScoreStatus.DONE:
        summary = score.summary
        categories = summary.get("categories", {})
        names = [n for n in ("M", "R", "S", "W") if n in categories]
        context["categories"] = [(n, categories[n]) for n in names]
        context["type_chart"] = grouped_bar_chart(
            title="P / R / F0.5 by error type",
            categories=names,
            series=[
                (m.upper() if m != "f05" else "F0.5", [categories[n][m] for n in names])
                for m in ("p", "r", "f05")
            ],
            y_label="score",
            box=ChartBox(width=560, height=300),
            y_max=1.0,
        )
        context["curve_chart"] = reference_count_chart(
            [(system.name, summary.get("ref_count_curve", []))]
        )
        context["curve"] = list(
            zip(
                _curve_labels(len(summary.get("ref_count_curve", []))),
                summary.get("ref_count_curve", []),
                strict=True,
            )
        )
        context["detection"] = summary.get("detection", {})
        extra = summary.get("extra", {})
        context["cleme"] = extra.get("cleme")
        context["cleme2"] = extra.get("cleme2")
        context["ptm2"] = extra.get("ptm2")
        context["weighted_model"] = services.weighted_model(
            language=system.version.dataset.language
        )
        if context["cleme2"]:
            aspects = ("hit", "wrong", "under", "over")
            context["cleme2_chart"] = bar_chart(
                title="CLEME2.0 aspects (corpus, unweighted)",
                labels=list(aspects),
                values=[context["cleme2"][a] for a in aspects],
                y_label="rate",
                box=ChartBox(width=480, height=280),
            )
        context["by_source"] = summary.get("by_source", {})
        sentences, total = selectors.sentence_results(
            score,
            only=only,
            source_name=source_name,
            offset=(page - 1) * PAGE_SIZE,
            limit=PAGE_SIZE,
        )
        context.update(
            sentences=sentences,
            total=total,
            page=page,
            pages=max(1, (total + PAGE_SIZE - 1) // PAGE_SIZE),
            members=list(system.ensemble_of.all()),
        )
    return render(request, "scoring/system.html", context)


@role_required(Role.ADMIN)
@require_POST
def rescore(request: HttpRequest, system_id: int) -> HttpResponse:
    system = _system(system_id)
    services.request_scoring(system=system, user=request.user)
    messages.success(request, f"scoring of {system.name} started again (results are replaced).")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def weighted(request: HttpRequest, system_id: int) -> HttpResponse:
    system = _system(system_id)
    try:
        services.request_weighted_scoring(system=system, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "weighted scoring (PT-M2) queued on the gpu queue")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def cancel(request: HttpRequest, system_id: int) -> HttpResponse:
    system = _system(system_id)
    score = selectors.score_of(system)
    try:
        if score is None:
            raise ServiceError("this output has not been scored")
        services.cancel_scoring(score=score, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "scoring cancelled")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def delete(request: HttpRequest, system_id: int) -> HttpResponse:
    system = _system(system_id)
    version_id = system.version_id
    services.delete_system_output(system=system, user=request.user)
    messages.success(request, f"{system.name} deleted")
    return redirect("scoring:leaderboard", version_id=version_id)


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def annotators(request: HttpRequest, dataset_id: int) -> HttpResponse:
    dataset = _dataset(dataset_id)
    if request.method == "POST":
        services.start_annotator_rescoring(dataset_id=dataset.pk, user=request.user)
        messages.success(request, "re-scoring every sample of the dataset")
        return redirect("scoring:annotators", dataset_id=dataset.pk)
    job = services.refresh_annotator_scores(dataset_id=dataset.pk, user=request.user)
    if job is None:
        job = BackgroundJob.objects.filter(
            kind=services.JOB_KIND_ANNOTATORS,
            params__dataset=dataset.pk,
            status__in=["queued", "running"],
        ).first()
    source_name = request.GET.get("source", "")
    rows = selectors.annotator_quality(dataset, source_name=source_name)
    human = selectors.human_scores(dataset)
    chart = ""
    if rows:
        chart = bar_chart(
            title="Annotator F0.5, ordered by sentences annotated",
            labels=[f"{row.name} ({row.sentences})" for row in rows],
            values=[row.f05 for row in rows],
            x_label="annotator (sentences annotated)",
            y_label="F0.5",
            box=ChartBox(width=max(480, 70 * len(rows) + 100), height=320),
        )
    sources = sorted({name for row in rows for name in row.by_source})
    curve_chart = (
        reference_count_chart([("Human", human["ref_count_curve"])]) if human["samples"] else ""
    )
    return render(
        request,
        "scoring/annotators.html",
        {
            "dataset": dataset,
            "rows": rows,
            "human": human,
            "chart": chart,
            "curve_chart": curve_chart,
            "sources": sources,
            "source": source_name,
            "job": job,
            "all_sources": list(dataset.sources.values_list("name", flat=True)),
        },
    )


def _parse_day(value: str, default: datetime) -> datetime:
    if not value:
        return default
    try:
        day = datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise ServiceError(f"date {value!r} is not YYYY-MM-DD", field="start") from None
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def pay(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            services.set_pay_rates(
                user=request.user,
                per_submission=Decimal(request.POST.get("per_submission", "")),
                per_review=Decimal(request.POST.get("per_review", "")),
                target_f05=float(request.POST.get("target_f05", "")),
                min_factor=float(request.POST.get("min_factor", "")),
                max_factor=float(request.POST.get("max_factor", "")),
                currency=request.POST.get("currency", "CNY")[:8] or "CNY",
            )
        except (InvalidOperation, ValueError):
            messages.error(request, "rates and factors must be numbers")
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, "pay rates saved")
        return redirect("scoring:pay")
    today = timezone.localdate()
    default_start = timezone.make_aware(datetime.combine(today.replace(day=1), time.min))
    default_end = timezone.make_aware(datetime.combine(today + timedelta(days=1), time.min))
    dataset = None
    try:
        start = _parse_day(request.GET.get("start", ""), default_start)
        end = _parse_day(request.GET.get("end", ""), default_end)
        if end <= start:
            raise ServiceError("the end of the period must be after its start", field="end")
        if request.GET.get("dataset"):
            dataset_id = parse_id(request.GET["dataset"])
            dataset = (
                Dataset.objects.filter(pk=dataset_id).first() if dataset_id is not None else None
            )
            if dataset is None:
                raise ServiceError("no such dataset", field="dataset")
            services.refresh_annotator_scores(dataset_id=dataset.pk, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("scoring:pay")
    rates = selectors.current_pay_rates()
    rows = selectors.pay_report(start=start, end=end, dataset=dataset, rates=rates)
    if request.GET.get("format") == "csv":
        body = selectors.pay_report_csv(rows, rates=rates, start=start, end=end)
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="pay-{start:%Y%m%d}-{end:%Y%m%d}.csv"'
        )
        return response
    return render(
        request,
        "scoring/pay.html",
        {
            "rows": rows,
            "rates": rates,
            "start": start,
            "end": end,
            "dataset": dataset,
            "datasets": Dataset.objects.order_by("name"),
            "total": sum((row.total for row in rows), Decimal("0")),
            "query": request.GET.urlencode(),
        },
    )


# --- meta-evaluation (issue 18) -------------------------------------------------------------


def _int_or_none(value: str | None) -> int | None:
    value = (value or "").strip()
    return parse_id(value)


def _whole_number(value: str | None, field: str, default: int | None) -> int | None:
    value = (value or "").strip()
    if not value:
        return default
    if parse_id(value) is None:
        raise ServiceError(f"{field} must be a whole number (got {value!r})", field=field)
    return int(value)


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


def _meta_rows(evaluation: MetaEvaluation) -> list[dict[str, Any]]:
    report = evaluation.report
    best = report.get("best")
    rows = []
    for key, entry in report.get("metrics", {}).items():
        rows.append(
            {
                "key": key,
                **entry,
                "best": key == best,
                "signatures": evaluation.signatures.get(key, []),
            }
        )
    return rows


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def meta_evaluation(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
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
                bootstrap=_whole_number(
                    request.POST.get("bootstrap"), "bootstrap", meta_services.DEFAULT_BOOTSTRAP
                )
                or 0,
                sentence_bootstrap=_whole_number(
                    request.POST.get("sentence_bootstrap"), "sentence bootstrap", 0
                )
                or 0,
                window=_whole_number(request.POST.get("window"), "window", None),
                exclude=request.POST.getlist("exclude"),
            )
        except ServiceError as exc:
            messages.error(request, exc.message)
            return redirect("scoring:meta-evaluation", version_id=version.pk)
        messages.success(request, "meta-evaluation started")
        return redirect(
            f"{reverse('scoring:meta-evaluation', args=[version.pk])}?run={evaluation.pk}"
        )
    runs = list(MetaEvaluation.objects.filter(version=version)[:20])
    chosen_id = _int_or_none(request.GET.get("run"))
    shown = next((r for r in runs if r.pk == chosen_id), None)
    if shown is None and chosen_id is not None:
        shown = MetaEvaluation.objects.filter(pk=chosen_id, version=version).first()
    if shown is None and chosen_id is None:
        shown = next((r for r in runs if r.status == ScoreStatus.DONE), None)
    if shown is not None:
        shown = meta_services.settle_with_job(shown)
    context: dict[str, Any] = {
        "version": version,
        "metric_choices": meta_services.available_metrics(version),
        "uploads": list(HumanSystemScores.objects.filter(version=version)),
        "campaigns": meta_services.campaigns_for_release(version),
        "chosen_campaign": _int_or_none(request.GET.get("campaign")),
        "runs": runs,
        "evaluation": shown,
        "default_bootstrap": meta_services.DEFAULT_BOOTSTRAP,
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
        context.update(meta_charts(shown))
    return render(request, "scoring/meta.html", context)


@role_required(Role.ADMIN)
@require_POST
def meta_human_upload(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    uploaded = request.FILES.get("file")
    try:
        if uploaded is None:
            raise ServiceError("choose a human score file to upload", field="file")
        human = meta_services.upload_human_scores(
            version=version,
            name=request.POST.get("name", ""),
            data=uploaded.read(),
            file_name=uploaded.name or "",
            user=request.user,
            replace=request.POST.get("replace") == "1",
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"human scores {human.name} stored ({len(human.scores)} systems)")
    return redirect("scoring:meta-evaluation", version_id=version.pk)
