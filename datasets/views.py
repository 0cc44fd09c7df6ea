"""Pages of the datasets part (admins only): list, import, detail with releases and exports,
statistics with charts, job progress, download. Thin: parse, call a service, render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.cache import cached
from core.charts import grouped_bar_chart
from core.exceptions import ServiceError
from core.jobs import get_job_for, job_state
from core.models import JobStatus
from core.permissions import role_required
from core.roles import Role
from datasets.extraction import resources_dir_setting
from datasets.formats import ImportFormat
from datasets.jobs import export_path, request_export, request_import
from datasets.selectors import dataset_summaries, get_dataset, get_version
from datasets.services.exports import ExportFormat
from datasets.services.imports import natural_key
from datasets.services.releases import release_dataset
from datasets.statistics import dataset_statistics

STATS_CACHE_SECONDS = 24 * 3600


@role_required(Role.ADMIN)
def dataset_list(request: HttpRequest) -> HttpResponse:
    return render(request, "datasets/list.html", {"rows": dataset_summaries()})


def _check_file_fields(fmt: str, sources: list[Any], others: list[Any]) -> None:
    """Each file in its own field: the sources file is parallel's alone, the data file every
    other format's (the browser only bubbled "Please select a file" at the other field)."""
    if fmt == ImportFormat.PARALLEL:
        if not sources:
            raise ServiceError(
                "the parallel format needs its sources file in the field “Sources file” "
                "(the reference files go under “Reference or data files”)",
                field="source_file",
            )
        if not others:
            raise ServiceError(
                "the parallel format needs at least one reference file in the field "
                "“Reference or data files”",
                field="files",
            )
        return
    if sources:
        raise ServiceError(
            f"“Sources file” is for the parallel format only: choose the {fmt or 'data'} file "
            "under “Reference or data files” (and leave “Sources file” empty)",
            field="source_file",
        )
    if not others:
        raise ServiceError(
            f"choose the {fmt or 'data'} file to import under “Reference or data files”",
            field="files",
        )


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def dataset_import(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {"formats": [f.value for f in ImportFormat], "values": request.POST}
    if request.method == "POST":
        # Parallel files: a browser's multi-file picker does not keep an order, so the
        # source file has its own field and goes first.
        sources = [(f.name or "", f) for f in request.FILES.getlist("source_file")]
        others = [(f.name or "", f) for f in request.FILES.getlist("files")]
        if sources:
            others.sort(key=lambda item: natural_key(item[0]))
        uploads = sources + others
        fmt = request.POST.get("format", "")
        try:
            _check_file_fields(fmt, sources, others)
            job = request_import(
                user=request.user,
                name=request.POST.get("name", "").strip(),
                fmt=fmt,
                uploads=uploads,
                source_name=request.POST.get("source", "").strip(),
                split=request.POST.get("split", ""),
                language=request.POST.get("language", "zh"),
                reference_style=request.POST.get("reference_style", ""),
            )
        except ServiceError as exc:
            context["error"] = exc.message
            context["error_field"] = exc.field
            return render(request, "datasets/import.html", context, status=exc.status)
        return redirect("datasets:job", job_id=job.pk)
    return render(request, "datasets/import.html", context)


@role_required(Role.ADMIN)
def dataset_detail(request: HttpRequest, name: str) -> HttpResponse:
    try:
        dataset = get_dataset(name)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    return render(
        request,
        "datasets/detail.html",
        {
            "dataset": dataset,
            "sentences": dataset.sentences.count(),
            "sources": list(dataset.sources.values_list("name", flat=True)),
            "versions": list(dataset.versions.select_related("created_by").order_by("-number")),
            "formats": [f.value for f in ExportFormat],
        },
    )


@role_required(Role.ADMIN)
@require_POST
def dataset_release(request: HttpRequest, name: str) -> HttpResponse:
    try:
        dataset = get_dataset(name)
        version = release_dataset(
            dataset=dataset,
            user=request.user,
            note=request.POST.get("note", ""),
            split=request.POST.get("split", ""),
            source_names=[s for s in request.POST.getlist("source") if s],
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"Released {version.label} ({version.counts['sentences']} sentences, "
            f"sha256 {version.checksum[:12]}…).",
        )
    return redirect("datasets:detail", name=name)


@role_required(Role.ADMIN)
@require_POST
def dataset_export(request: HttpRequest, name: str) -> HttpResponse:
    try:
        dataset = get_dataset(name)
        version = get_version(dataset, request.POST.get("release") or None)
        job = request_export(
            user=request.user,
            dataset=dataset,
            fmt=request.POST.get("format", ""),
            version=version,
            include_annotations=request.POST.get("include_annotations") == "on",
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("datasets:detail", name=name)
    return redirect("datasets:job", job_id=job.pk)


def statistics_for(dataset: Any, version: Any) -> dict[str, Any]:
    """Statistics of a release are cached (a release never changes); live ones are not."""
    if version is None:
        return dataset_statistics(dataset=dataset)
    key = f"datasets:stats:{version.pk}:{version.checksum}:{resources_dir_setting() or 'default'}"
    # One extraction (stored by the one builder) serves the export, the scorer and the
    # statistics; with the cache down the statistics are computed on each request.
    return cached(
        key,
        lambda: dataset_statistics(dataset=dataset, version=version, chunks=True),
        STATS_CACHE_SECONDS,
    )


def figure_one(stats: dict[str, Any]) -> str:
    """MuCGEC Figure 1: share of erroneous sentences by number of references, per source."""
    keys = sorted(
        {
            int(k)
            for part in [stats, *stats["by_source"].values()]
            for k in part["erroneous_by_refs"]
        }
    )
    categories = [str(k) for k in keys]
    series = [
        (name, [part["erroneous_by_refs"].get(c, {}).get("share", 0.0) for c in categories])
        for name, part in stats["by_source"].items()
    ]
    if len(series) != 1:
        series.append(
            ("all", [stats["erroneous_by_refs"].get(c, {}).get("share", 0.0) for c in categories])
        )
    return grouped_bar_chart(
        title="Erroneous sentences by number of references",
        categories=categories,
        series=series,
        x_label="number of references",
        y_label="share of erroneous sentences",
        percent=True,
    )


def edit_type_chart(stats: dict[str, Any]) -> str:
    types = ["M", "R", "S", "W"]
    series = [
        (name, [part["edit_types"][t] for t in types]) for name, part in stats["by_source"].items()
    ]
    return grouped_bar_chart(
        title="Edits by type",
        categories=types,
        series=series,
        x_label="edit type (M missing, R redundant, S substitution, W word order)",
        y_label="edits",
    )


@role_required(Role.ADMIN)
def dataset_stats(request: HttpRequest, name: str) -> HttpResponse:
    try:
        dataset = get_dataset(name)
        version = get_version(dataset, request.GET.get("release") or None)
        stats = statistics_for(dataset, version)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    rows = [(source, part) for source, part in stats["by_source"].items()]
    return render(
        request,
        "datasets/stats.html",
        {
            "dataset": dataset,
            "version": version,
            "stats": stats,
            "rows": rows,
            "versions": list(dataset.versions.order_by("-number")),
            "figure_one": figure_one(stats),
            "edit_chart": edit_type_chart(stats),
        },
    )


@role_required(Role.ADMIN)
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        job = get_job_for(user=request.user, job_id=job_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    return render(request, "datasets/job.html", {"job": job, "state": job_state(job)})


@role_required(Role.ADMIN)
def export_download(request: HttpRequest, job_id: int) -> FileResponse:
    try:
        job = get_job_for(user=request.user, job_id=job_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    if job.kind != "datasets.export" or job.status != JobStatus.DONE:
        raise Http404("this export is not finished")
    path = export_path(job)
    if not path.is_file():
        raise Http404("the export file is gone; export again")
    # FileResponse streams the file in blocks: large exports never sit in memory.
    return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)  # noqa: SIM115
