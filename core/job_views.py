"""JSON state of a background job, polled by static/core/progress.js."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.exceptions import ServiceError
from core.jobs import cancel_job, get_job_for, job_state


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
