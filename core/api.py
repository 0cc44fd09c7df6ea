from __future__ import annotations

from typing import Any

from rest_framework.exceptions import AuthenticationFailed
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.exceptions import ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Service errors become `{"detail": ..., "field": ...}` (and `"setting"`, the setting
    that sets a bound passed) with their own status code."""
    if isinstance(exc, ServiceError):
        body: dict[str, Any] = {"detail": exc.message}
        if exc.field:
            body["field"] = exc.field
        setting = getattr(exc, "setting", None)  # a bound passed: the setting that sets it
        if setting:
            body["setting"] = setting
        return Response(body, status=exc.status)
    if isinstance(exc, AuthenticationFailed):
        # Only the token class raises it: a token was sent and is unknown or expired. DRF
        # answers 403 because the first authentication class (the session) has no
        # challenge; the client must log in again, which is what 401 says.
        exc.status_code = 401
        exc.auth_header = "Token"
    return drf_exception_handler(exc, context)
