"""Pages of a release's publication: metadata, report, card preview, publish (admins)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.exceptions import ServiceError
from core.jobs import get_job_for, job_state
from core.markdown import render_markdown
from core.models import JobStatus
from core.permissions import role_required
from core.roles import Role
from datasets.selectors import release_by_id
from publishing import card, charts, checks, jobs, services
from publishing import facts as facts_of
from publishing.models import ReferenceFile, ReferenceStyle
from scoring.prefill_views import anchoring_context

# A finding lists every sentence in the JSON; the page shows this many items per check and
# says how many more there are.
ITEMS_SHOWN = 200


def _version(version_id: int) -> Any:
    try:
        return release_by_id(version_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None


def _metadata_form_data(post: Any) -> dict[str, Any]:
    """The metadata form's fields as update_metadata takes them (JSON fields parsed)."""
    data: dict[str, Any] = {
        name: post.get(name, "")
        for name in ("description", "license", "citation", "contact", "homepage")
    }
    upstream = post.get("upstream_licenses", "").strip()
    try:
        data["upstream_licenses"] = json.loads(upstream) if upstream else []
    except json.JSONDecodeError as exc:
        raise ServiceError(
            f"upstream licences: not JSON ({exc.msg} at character {exc.pos})",
            field="upstream_licenses",
        ) from None
    data["reference_styles"] = {
        key.removeprefix("style_"): value
        for key, value in post.items()
        if key.startswith("style_") and value
    }
    data["blocking_checks"] = post.getlist("blocking_checks")
    return data


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def release_page(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    status = 200
    form_error = None
    if request.method == "POST":
        try:
            services.update_metadata(
                version=version, user=request.user, data=_metadata_form_data(request.POST)
            )
        except ServiceError as exc:
            form_error, status = exc, exc.status
        else:
            messages.success(request, f"Saved the metadata of {version.label}.")
            return redirect("publishing:release", version_id=version.pk)
    metadata = facts_of.metadata_of(version)
    report = services.latest_report(version)
    max_refs = max(
        (len(refs) for refs in version.sentences.values_list("references", flat=True)), default=0
    )
    findings = []
    if report is not None:
        for finding in report.findings:
            findings.append(
                {
                    **finding,
                    "shown": finding["items"][:ITEMS_SHOWN],
                    "more": max(0, finding["count"] - ITEMS_SHOWN),
                    "blocking": finding["check"] in metadata.blocking_checks,
                }
            )
    context = {
        "version": version,
        "metadata": metadata,
        "upstream_json": json.dumps(metadata.upstream_licenses, ensure_ascii=False, indent=1)
        if metadata.upstream_licenses
        else "",
        "reference_numbers": [
            (str(n), metadata.reference_styles.get(str(n), "")) for n in range(1, max_refs + 1)
        ],
        "styles": list(ReferenceStyle.choices),
        "checks": list(checks.CHECKS.items()),
        "report": report,
        "findings": findings,
        "blocked": services.blocking_findings(version, report) if report else [],
        "reference_files": ReferenceFile.objects.all(),
        "form_error": form_error,
        "posted": request.POST if form_error else None,
        **anchoring_context(version.dataset, user=request.user, version=version),
    }
    return render(request, "publishing/release.html", context, status=status)


@role_required(Role.ADMIN)
def card_preview(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    facts = facts_of.card_facts(version, services.latest_report(version))
    text = card.render_card(facts)
    # The front matter is for the Hub, not for readers.
    body = text.split("---\n", 2)[2] if text.startswith("---\n") else text
    return render(
        request,
        "publishing/card.html",
        {"version": version, "card_html": render_markdown(body), "markdown": text},
    )


def _start_job(request: HttpRequest, version_id: int, request_job: Any) -> HttpResponse:
    """Queue a release's job (the report or a publish) and open its page; a refusal goes back
    to the release page as a message."""
    version = _version(version_id)
    try:
        job = request_job(version=version, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("publishing:release", version_id=version.pk)
    return redirect("publishing:job", job_id=job.pk)


@role_required(Role.ADMIN)
@require_POST
def run_report(request: HttpRequest, version_id: int) -> HttpResponse:
    return _start_job(request, version_id, jobs.request_report)


@role_required(Role.ADMIN)
@require_POST
def publish(request: HttpRequest, version_id: int) -> HttpResponse:
    return _start_job(request, version_id, jobs.request_publish)


@role_required(Role.ADMIN)
@require_POST
def upload_reference_file(request: HttpRequest, version_id: int) -> HttpResponse:
    version = _version(version_id)
    upload = request.FILES.get("file")
    try:
        if upload is None:
            raise ServiceError("choose a file", field="file")
        reference = services.add_reference_file(
            name=request.POST.get("name", ""),
            upload=upload,
            file_name=upload.name or "upload",
            user=request.user,
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"Added {reference.name} ({len(reference.sentences)} sentences); run the report "
            "to check the release against it.",
        )
    return redirect("publishing:release", version_id=version.pk)


@role_required(Role.ADMIN)
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        job = get_job_for(user=request.user, job_id=job_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    if job.kind not in (jobs.JOB_KIND_REPORT, jobs.JOB_KIND_PUBLISH):
        raise Http404("not a publishing job")
    return render(
        request,
        "publishing/job.html",
        {"job": job, "state": job_state(job), "version_id": job.params.get("version_id")},
    )


@role_required(Role.ADMIN)
def download(request: HttpRequest, job_id: int) -> FileResponse:
    try:
        job = get_job_for(user=request.user, job_id=job_id)
    except ServiceError as exc:
        raise Http404(exc.message) from None
    if job.kind != jobs.JOB_KIND_PUBLISH or job.status != JobStatus.DONE:
        raise Http404("this publication is not finished")
    path = jobs.publish_archive(job)
    if not path.is_file():
        raise Http404("the archive is gone; publish again")
    version = release_by_id(job.params["version_id"])
    name = version.label.replace("@", "-") + ".zip"
    return FileResponse(open(path, "rb"), as_attachment=True, filename=name)  # noqa: SIM115


@role_required(Role.ADMIN)
def card_figure(request: HttpRequest, version_id: int) -> HttpResponse:
    """The card's figure at the path the card links (figures/reference_counts.svg), so the
    preview shows what the published folder shows."""
    version = _version(version_id)
    facts = facts_of.card_facts(version, services.latest_report(version))
    svg = charts.reference_count_svg(facts["statistics"].get("refs_per_sentence_histogram", {}))
    return HttpResponse(svg, content_type="image/svg+xml")
