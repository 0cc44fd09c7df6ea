"""Pages of the scoring app. Thin: parse the request, call a service or selector, render.

Leaderboards and system pages are for admins and reviewers; uploads and ensembles are for
admins. Annotator quality and pay are in people_views.py, meta-evaluation in meta_views.py.
Charts are server-rendered SVG (core/charts.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.charts import (
    ChartBox,
    bar_chart,
    grouped_bar_chart,
)
from core.exceptions import ServiceError
from core.models import BackgroundJob
from core.params import MAX_INT32, bounded_int
from core.permissions import role_required
from core.roles import Role, roles_of
from core.uploads import TOO_LARGE
from core.web import call_service, lookup, parse_id
from datasets.models import Dataset, Language
from datasets.selectors import release_by_id
from scoring import closest_gold_selectors, reference_set_views, selectors, services
from scoring.models import ScoreStatus, SystemOutput

PAGE_SIZE = 50
# Leaderboard columns beyond the char-level P/R/F0.5 (selectable with ?cols=...).
OPTIONAL_COLUMNS = (
    "detection",
    "m2",
    "sentm2",
    "gleu",
    "green",
    "cleme",
    "cleme2",
    "ptm2",
    "llm-s",
    "llm-e",
)
DEFAULT_COLUMNS = ("detection", "cleme")
# English releases also report the classic metrics papers print beside ERRANT.
DEFAULT_COLUMNS_EN = ("m2", "sentm2", "gleu", "cleme")
# Computed only when an English release is scored (word-level ERRANT / MaxMatch); a Chinese
# release does not offer them (they used to show "—" with no reason).
ENGLISH_ONLY_COLUMNS = ("m2", "sentm2", "gleu", "ptm2")
CURVE_LABELS_ALL = "All"
# ChERRANT's M/R/S/W and ERRANT's M/R/U (U used to be left out).
ERROR_TYPES = ("M", "R", "U", "S", "W")


def _curve_labels(length: int) -> list[str]:
    return [str(k) for k in range(1, length)] + [CURVE_LABELS_ALL]


# A chart in one card of a two-column grid (the system page): ~447 px on screen at a 1024-px
# window, so a 480-unit view box keeps 12-unit text at 11 px or more.
CARD_CHART = ChartBox(width=480, height=300)


def reference_count_chart(
    series: list[tuple[str, list[float]]], box: ChartBox | None = None
) -> str:
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
        box=box or ChartBox(width=720, height=340),
    )


@role_required(Role.ADMIN, Role.REVIEWER)
def index(request: HttpRequest) -> HttpResponse:
    versions = list(selectors.releases())
    datasets = Dataset.objects.order_by("name")
    return render(request, "scoring/index.html", {"versions": versions, "datasets": datasets})


@role_required(Role.ADMIN, Role.REVIEWER)
def leaderboard(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    rows = selectors.leaderboard(version)
    chosen = {i for i in map(parse_id, request.GET.getlist("systems")) if i is not None}
    curves = selectors.reference_curves(version, chosen or None)
    series = [(c["name"], c["curve"]) for c in curves]
    show_human = request.GET.get("human", "1") == "1"
    human = None
    english = version.dataset.language == Language.ENGLISH
    # Annotator boxes are scored with the release language's metric (ERRANT for English).
    if show_human and version.dataset_id:
        services.refresh_annotator_scores(dataset_id=version.dataset_id, user=request.user)
        # Against the references this release froze, like the systems above it.
        human = services.release_human_scores(version)
        if human["samples"]:
            series.append(("Human", human["ref_count_curve"]))
    wanted = request.GET.getlist("cols")
    defaults = DEFAULT_COLUMNS_EN if english else DEFAULT_COLUMNS
    offered = [c for c in OPTIONAL_COLUMNS if english or c not in ENGLISH_ONLY_COLUMNS]
    columns = [c for c in offered if c in wanted] if "cols" in request.GET else list(defaults)
    if "cols" not in request.GET:  # the judges' columns once a judge run stored them
        columns += [c for c in services.JUDGE_METRICS if any(row.judge(c) for row in rows)]
    not_offered = [c for c in wanted if c in OPTIONAL_COLUMNS and c not in offered]
    context: dict[str, Any] = {
        "version": version,
        "english": english,
        "rows": rows,
        "columns": columns,
        "optional_columns": offered,
        "not_offered": not_offered,
        "signatures": selectors.leaderboard_signatures(rows),
        "chart": reference_count_chart(series),
        "chosen": chosen,
        "human": human,
        "can_manage": Role.ADMIN in _roles(request),
        "scored": [row for row in rows if row.scored],
        "judge_setup": services.judge_setup(),
        **reference_set_views.leaderboard_context(version),
        "closest_gold_tasks": closest_gold_selectors.tasks_of_release(version),
    }
    return render(request, "scoring/leaderboard.html", context)


def _roles(request: HttpRequest) -> set[Role]:
    return set(roles_of(request.user))


@role_required(Role.ADMIN)
@require_POST
def upload(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    uploaded = request.FILES.get("file")
    try:
        if uploaded is None:
            raise ServiceError("choose a file to upload", field="file")
        # Upload and queue in one transaction: with the broker down nothing is stored.
        with transaction.atomic():
            system = services.upload_system_output(
                version=version,
                name=request.POST.get("name", ""),
                data=uploaded,
                file_name=uploaded.name or "",
                user=request.user,
                file_format=request.POST.get("format", "auto"),
                description=request.POST.get("description", ""),
                replace=request.POST.get("replace") == "1",
            )
            services.request_scoring(system=system, user=request.user)
    except ServiceError as exc:
        if exc.status == TOO_LARGE:
            raise  # a refused upload answers 413 with its message (core.middleware), not a redirect
        messages.error(request, exc.message)
        return redirect("scoring:leaderboard", version_id=version.pk)
    messages.success(request, f"{system.name} uploaded; scoring started.")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def ensemble(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
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
    system = lookup(selectors.get_system, system_id)
    score = selectors.score_of(system)
    only = request.GET.get("only", "")
    source_name = request.GET.get("source", "")
    try:
        page = bounded_int(request.GET.get("page"), field="page", low=1, high=MAX_INT32, default=1)
    except ServiceError as exc:
        messages.error(request, exc.message)
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
        names = [n for n in ERROR_TYPES if n in categories]
        context["categories"] = [(n, categories[n]) for n in names]
        context["type_chart"] = grouped_bar_chart(
            title="P / R / F0.5 by error type",
            categories=names,
            series=[
                (m.upper() if m != "f05" else "F0.5", [categories[n][m] for n in names])
                for m in ("p", "r", "f05")
            ],
            y_label="score",
            box=CARD_CHART,
            y_max=1.0,
        )
        context["curve_chart"] = reference_count_chart(
            [(system.name, summary.get("ref_count_curve", []))], box=CARD_CHART
        )
        context["curve"] = list(
            zip(
                _curve_labels(len(summary.get("ref_count_curve", []))),
                summary.get("ref_count_curve", []),
                strict=True,
            )
        )
        context["detection"] = summary.get("detection", {})
        context.update(_extra_metrics(system, summary.get("extra", {})))
        context["by_source"] = summary.get("by_source", {})
        context.update(
            reference_set_views.system_context(system, partial=request.GET.get("partial") == "1")
        )
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


def _extra_metrics(system: Any, extra: dict[str, Any]) -> dict[str, Any]:
    """The system page's context from the score's later metrics (summary["extra"])."""
    context: dict[str, Any] = {
        "cleme": extra.get("cleme"),
        "cleme2": extra.get("cleme2"),
        "ptm2": extra.get("ptm2"),
        "errant_types": _errant_types(extra),
        "weighted_model": services.weighted_model(language=system.version.dataset.language),
        "reffree_metrics": services.configured_reffree_metrics(),
        "reffree_scores": [
            (name, extra[name])
            for name in services.REFFREE_METRICS
            if isinstance(extra.get(name), dict)
        ],
        "judge_scores": [
            (name, extra[name])
            for name in services.JUDGE_METRICS
            if isinstance(extra.get(name), dict)
        ],
    }
    if context["cleme2"]:
        aspects = ("hit", "wrong", "under", "over")
        context["cleme2_chart"] = bar_chart(
            title="CLEME2.0 aspects (corpus, unweighted)",
            labels=list(aspects),
            values=[context["cleme2"][a] for a in aspects],
            y_label="rate",
            box=ChartBox(width=480, height=280),
        )
    return context


def _errant_types(extra: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An English score's ERRANT types, most frequent in the references (TP + FN) first."""
    return sorted(
        (extra.get("errant_types") or {}).items(),
        key=lambda item: (-(item[1]["tp"] + item[1]["fn"]), item[0]),
    )


@role_required(Role.ADMIN)
@require_POST
def rescore(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    services.request_scoring(system=system, user=request.user)
    messages.success(request, f"scoring of {system.name} started again (results are replaced).")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def weighted(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    if call_service(request, services.request_weighted_scoring, system=system, user=request.user):
        messages.success(request, "weighted scoring (PT-M2) queued on the gpu queue")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def reffree(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    if call_service(request, services.request_reffree_scoring, system=system, user=request.user):
        messages.success(request, "reference-free scoring queued on the gpu queue")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def judges(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    if call_service(request, services.request_judge_run, version=version, user=request.user):
        messages.success(request, "LLM judges (LLM-S, LLM-E) queued on the gpu queue")
    return redirect("scoring:leaderboard", version_id=version.pk)


@role_required(Role.ADMIN)
@require_POST
def cancel(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    score = selectors.score_of(system)
    if score is None:
        messages.error(request, "this output has not been scored")
    elif call_service(request, services.cancel_scoring, score=score, user=request.user):
        messages.success(request, "scoring cancelled")
    return redirect("scoring:system", system_id=system.pk)


@role_required(Role.ADMIN)
@require_POST
def delete(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    version_id = system.version_id
    services.delete_system_output(system=system, user=request.user)
    messages.success(request, f"{system.name} deleted")
    return redirect("scoring:leaderboard", version_id=version_id)
