"""Login throttling on top of django-axes (settings: "Logins"; docs/operations.md, "Logins").

Every password login - the login page, Django admin's and the API's token endpoint - goes
through `django.contrib.auth.authenticate` with the request, and so past the throttle
backend here: a username, or a client address, with GEC_LOGIN_FAILURE_LIMIT recent
failures is refused before its password is hashed. django-axes counts the failures; this
module says who the client is, what a refused client is told, and which accounts are
locked (for the users page).
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from core.models import User


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuses a login of a locked username or address; never logs anyone in itself.

    A call without a request (the test client's `login()`, a shell) is no attempt by a
    client and is not throttled; every login view passes its request."""

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None:
            return None
        super().authenticate(request, username=username, password=password, **kwargs)
        return None


USERNAME_MAX_LENGTH: int = User._meta.get_field("username").max_length or 150


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username a failure counts against, cut to the longest a username can be: the
    login form passes longer ones on to `authenticate`, and the throttle's records hold
    255 characters (PostgreSQL refuses more)."""
    if credentials:
        value = credentials.get("username")
    else:
        value = getattr(request, "data", request.POST).get("username")
    return value[:USERNAME_MAX_LENGTH] if isinstance(value, str) else None


def client_address(request: HttpRequest) -> str | None:
    """The client's address: REMOTE_ADDR, or with GEC_TRUSTED_PROXY_COUNT = n proxies in
    front, the n-th address from the right of X-Forwarded-For (the one the outermost
    trusted proxy saw; entries to its left are whatever the client chose to send)."""
    remote = request.META.get("REMOTE_ADDR")
    proxies = settings.GEC_TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if len(forwarded) < proxies:
        return remote  # the request did not pass every proxy: only the socket is known
    candidate = forwarded[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


def lockout_minutes() -> int:
    return int(settings.GEC_LOGIN_LOCKOUT_MINUTES)


def lockout_message() -> str:
    return (
        "Too many failed logins for this account or from this address: logins are refused "
        f"until {lockout_minutes()} minutes after the last failed one. Try again later, or "
        "ask an admin to unlock the account."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """429 with Retry-After: JSON `{"detail"}` for the API, the lockout page otherwise."""
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        context = {"message": lockout_message(), "minutes": lockout_minutes()}
        response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(lockout_minutes() * 60)
    return response


def locked_usernames() -> set[str]:
    """Usernames whose recent failures reach the limit (from any address)."""
    since = timezone.now() - timedelta(minutes=lockout_minutes())
    totals = (
        AccessAttempt.objects.filter(attempt_time__gte=since, username__isnull=False)
        .values("username")
        .annotate(failures=Sum("failures_since_start"))
        .filter(failures__gte=settings.AXES_FAILURE_LIMIT)
    )
    return {row["username"] for row in totals}
