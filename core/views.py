from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from core.health import broker_status, database_status
from core.roles import roles_of
from core.services import mark_notifications_read


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


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    mark_notifications_read(user=request.user)
    return redirect("home")
