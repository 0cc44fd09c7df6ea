"""JSON state of a background job, polled by static/core/progress.js."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import NoReverseMatch, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.exceptions import ServiceError
from core.jobs import cancel_job, get_job_for, job_state, retry_job


def _json_error(exc: ServiceError) -> JsonResponse:
    return JsonResponse({"detail": exc.message}, status=exc.status)


@never_cache
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> JsonResponse:
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "log in first"}, status=401)
    try:
        job = get_job_for(user=request.user, job_id=job_id)
    except ServiceError as exc:
        return _json_error(exc)
    return JsonResponse(job_state(job))


@require_POST
def job_cancel(request: HttpRequest, job_id: int) -> JsonResponse:
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "log in first"}, status=401)
    try:
        job = cancel_job(job_id, user=request.user)
    except ServiceError as exc:
        return _json_error(exc)
    return JsonResponse(job_state(job))


@require_POST
def job_retry(request: HttpRequest, job_id: int) -> HttpResponse:
    """Queue a failed-and-retryable job again: JSON for scripts, back to the page for a form."""
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "log in first"}, status=401)
    wants_json = "json" in request.headers.get("Accept", "")
    try:
        job = retry_job(job_id=job_id, user=request.user)
    except ServiceError as exc:
        if wants_json:
            return _json_error(exc)
        messages.error(request, exc.message)
        return _back(request, job_id)
    if wants_json:
        return JsonResponse(job_state(job), status=202)
    messages.success(request, f"job {job.pk} queued again")
    return _back(request, job.pk)


def _back(request: HttpRequest, job_id: int) -> HttpResponse:
    """To `next` when it is a page of this site, else to the job's own page."""
    target = request.POST.get("next", "")
    if not target or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}
    ):
        # The page that shows any job (its progress, result and Retry) is served by the
        # datasets app; named here by its URL name, not imported.
        try:
            target = reverse("datasets:job", args=[job_id])
        except NoReverseMatch:
            target = "/"
    return redirect(target)
