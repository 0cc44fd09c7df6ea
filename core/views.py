from __future__ import annotations

from typing import Any

from csp.decorators import csp_update
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.decorators import method_decorator
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView
from rest_framework.response import Response

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


class CachedSchemaView(SpectacularAPIView):
    """/api/schema/: drf-spectacular's view, with the generated schema kept per process. The
    schema is public (the same for every caller) and changes only with the code, yet
    generating it walks every endpoint, 65-360 ms a request; rendering it stays per request
    (YAML or JSON as asked). Only the default schema is kept (no ?version=, the default
    language): those parameters take any string, and a cache keyed by them would grow with
    every new value a caller sends."""

    _schemas: dict[tuple[str | None, str], dict[str, Any]] = {}

    def _get_schema_response(self, request: Any) -> Response:
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, get_language() or "")
        schema = self._schemas.get(key)
        if schema is None:
            generator = self.generator_class(
                urlconf=self.urlconf, api_version=version, patterns=self.patterns
            )
            schema = generator.get_schema(request=request, public=self.serve_public)
            if key == (None, settings.LANGUAGE_CODE):
                self._schemas[key] = schema
        filename = self._get_filename(request, version)
        return Response(
            data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'}
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


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page names; send them to the pinned icon. The
    URL is made per request: under the production manifest storage the hashed name exists
    only once collectstatic ran, not when `manage.py check` imports the URLconf."""
    return HttpResponsePermanentRedirect(static("core/favicon.svg"))
