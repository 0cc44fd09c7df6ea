from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from core.exceptions import ServiceError

logger = logging.getLogger("gec.request")


class RequestLogMiddleware:
    """One structured log line per request: method, path, status, duration, user."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        user = getattr(request, "user", None)
        logger.info(
            "request",
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                "user": user.username if user is not None and user.is_authenticated else None,
            },
        )
        return response


class ServiceErrorMiddleware:
    """A service error that no view caught (ServiceUnavailable when the task broker cannot
    be reached, for one) answers with its own status and message instead of a bare 500:
    JSON for the API, a short page otherwise."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ServiceError):
            return None
        if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
            return JsonResponse({"detail": exception.message}, status=exception.status)
        return render(
            request,
            "core/service_error.html",
            {"message": exception.message, "status": exception.status},
            status=exception.status,
        )


class NullCharacterMiddleware:
    """Refuse a query parameter or form field holding a NUL character with a clear 400.

    No text of the platform may hold U+0000 (datasets.textrules), and PostgreSQL cannot store
    it: a NUL in a system name or a dataset name once reached the database as a 500. The check
    runs before any view, so every page and endpoint answers alike; JSON bodies are checked by
    the API serializers and services.
    """

    FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        sources = [("query parameter", request.GET)]
        if request.method == "POST" and request.content_type in self.FORM_TYPES:
            sources.append(("form field", request.POST))
        for kind, data in sources:
            for key, values in data.lists():
                if "\x00" in key or any("\x00" in value for value in values):
                    return self._refuse(request, f"{kind} {key.replace(chr(0), '')!r}")
        return self.get_response(request)

    @staticmethod
    def _refuse(request: HttpRequest, where: str) -> HttpResponse:
        message = f"{where} holds a NUL character (U+0000), which no text may contain; remove it"
        if "/api/" in request.path or "json" in request.headers.get("Accept", ""):
            return JsonResponse({"detail": message}, status=400)
        return render(
            request, "core/service_error.html", {"message": message, "status": 400}, status=400
        )
