"""Admins' pages about people: annotator quality (samples scored against the golden
references) and pay."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal, InvalidOperation

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from core.charts import (
    ChartBox,
    bar_chart,
)
from core.exceptions import ServiceError
from core.models import BackgroundJob
from core.params import bounded_float
from core.permissions import role_required
from core.roles import Role
from core.web import lookup, parse_id
from datasets.models import Dataset
from datasets.selectors import dataset_by_id
from scoring import selectors, services
from scoring.annotator_metric import box_metric
from scoring.views import reference_count_chart


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def annotators(request: HttpRequest, dataset_id: int) -> HttpResponse:
    dataset = lookup(dataset_by_id, dataset_id)
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
            "box_metric": box_metric(dataset.language).name,
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


MAX_PAY_FACTOR = 100.0


def _pay_number(request: HttpRequest, field: str, *, high: float) -> float:
    return bounded_float(request.POST.get(field, ""), field=field, low=0.0, high=high, default=-1)


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def pay(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            services.set_pay_rates(
                user=request.user,
                per_submission=Decimal(request.POST.get("per_submission", "")),
                per_review=Decimal(request.POST.get("per_review", "")),
                target_f05=_pay_number(request, "target_f05", high=1.0),
                min_factor=_pay_number(request, "min_factor", high=MAX_PAY_FACTOR),
                max_factor=_pay_number(request, "max_factor", high=MAX_PAY_FACTOR),
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
