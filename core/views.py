from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from core.health import broker_status, database_status
from core.roles import roles_of


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    database = database_status()
    broker = broker_status()
    healthy = database["ok"] and broker["ok"]
    return JsonResponse(
        {"status": "ok" if healthy else "error", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: one section per role the user has."""
    return render(request, "core/home.html", {"roles": [r.value for r in roles_of(request.user)]})
