from __future__ import annotations

from csp.decorators import csp_update
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from drf_spectacular.views import SpectacularRedocView

from core.health import health_report
from core.roles import Role, has_role, roles_of
from core.services import mark_notifications_read


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    body, status = health_report(detailed=has_role(request.user, Role.ADMIN))
    return JsonResponse(body, status=status)


@method_decorator(
    # ReDoc builds its styles at run time (inline <style>) and its search in a blob: worker;
    # this page alone allows both. Its scripts still come from the app only.
    csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]}),
    name="dispatch",
)
class ApiDocsView(SpectacularRedocView):
    """/api/docs/: ReDoc from drf-spectacular-sidecar (pinned, served by the app), started by
    a static script instead of drf-spectacular's inline one, without web fonts from Google."""

    template_name = "core/redoc.html"


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: one section per role the user has."""
    return render(request, "core/home.html", {"roles": [r.value for r in roles_of(request.user)]})


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    mark_notifications_read(user=request.user)
    return redirect("home")


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page names; send them to the pinned icon. The
    URL is made per request: under the production manifest storage the hashed name exists
    only once collectstatic ran, not when `manage.py check` imports the URLconf."""
    return HttpResponsePermanentRedirect(static("core/favicon.svg"))
