from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import Client, RequestFactory

from core.audit import log_action
from core.models import AuditLog
from core.permissions import role_required
from core.roles import Role, has_role, roles_of
from core.services import create_user, set_roles
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_migrations_create_one_group_per_role() -> None:
    assert set(Group.objects.values_list("name", flat=True)) >= {"annotator", "reviewer", "admin"}


def test_roles_follow_group_membership() -> None:
    user = make_user(Role.ANNOTATOR)
    assert roles_of(user) == [Role.ANNOTATOR]
    set_roles(user=user, roles=[Role.REVIEWER])
    assert has_role(user, Role.REVIEWER) and not has_role(user, Role.ANNOTATOR)


def test_inactive_user_has_no_role() -> None:
    user = make_user(Role.ADMIN)
    user.is_active = False
    assert roles_of(user) == []


def test_role_required_sends_anonymous_users_to_login_and_refuses_other_roles() -> None:
    @role_required(Role.REVIEWER)
    def view(request):  # type: ignore[no-untyped-def]
        return HttpResponse("ok")

    factory = RequestFactory()
    request = factory.get("/secret")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    response = view(request)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    request.user = make_user(Role.ANNOTATOR)
    with pytest.raises(PermissionDenied):
        view(request)
    request.user = make_user(Role.REVIEWER)
    assert view(request).status_code == 200


def test_home_requires_login_and_shows_one_section_per_role(client: Client) -> None:
    assert client.get("/").status_code == 302
    user = make_user(Role.ANNOTATOR, Role.REVIEWER)
    client.login(username=user.username, password=PASSWORD)
    page = client.get("/").content.decode()
    assert 'data-testid="annotator-home"' in page
    assert 'data-testid="reviewer-home"' in page
    assert 'data-testid="admin-home"' not in page


def test_a_superuser_admin_is_not_shown_an_annotators_to_do_list(client: Client) -> None:
    """Regression: a superuser admin (as the demo's) saw My tasks / Next sentence / Study
    and "Nothing left to annotate": blanket permissions are not the annotator role."""
    admin = create_user(
        username="root-admin", password=PASSWORD, roles=[Role.ADMIN], is_superuser=True
    )
    client.force_login(admin)
    page = client.get("/").content.decode()
    assert 'data-testid="admin-home"' in page
    assert 'data-testid="annotator-home"' not in page
    assert "My tasks" not in page and "Next sentence" not in page
    assert client.get("/annotate/").status_code == 200  # access itself is unchanged
    both = create_user(
        username="root-annotator",
        password=PASSWORD,
        roles=[Role.ADMIN, Role.ANNOTATOR],
        is_superuser=True,
    )
    client.force_login(both)
    page = client.get("/").content.decode()
    assert 'data-testid="annotator-home"' in page and "My tasks" in page


def test_login_page_renders(client: Client) -> None:
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b'name="username"' in response.content


def test_healthz_reports_database_and_in_process_broker(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.REDIS_URL = ""
    client.force_login(make_user(Role.ADMIN))  # the detail is for admins
    response = client.get("/healthz")
    body = json.loads(response.content)
    assert response.status_code == 200
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"] == {"ok": True, "mode": "in-process"}


def test_healthz_says_503_when_the_broker_is_unreachable(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    body = json.loads(response.content)
    assert response.status_code == 503
    # Anonymous callers learn that the broker is down, not which broker it is.
    assert body["broker"] == {"ok": False} and "vendor" not in body["database"]
    client.force_login(make_user(Role.ADMIN))
    body = json.loads(client.get("/healthz").content)
    assert body["broker"]["ok"] is False and body["broker"]["mode"] == "redis"


def test_log_action_records_actor_object_and_data() -> None:
    user = make_user(Role.ADMIN)
    entry = log_action(user, user, "user.promoted", {"to": "admin"})
    stored = AuditLog.objects.get(pk=entry.pk)
    assert (stored.actor, stored.action, stored.object_type, stored.object_id) == (
        user,
        "user.promoted",
        "core.user",
        str(user.pk),
    )
    assert stored.data == {"to": "admin"}


def test_api_schema_is_served_to_logged_in_users(client: Client) -> None:
    user = make_user(Role.ANNOTATOR)
    client.login(username=user.username, password=PASSWORD)
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"openapi" in response.content


def test_the_cached_schema_is_drf_spectaculars_own_in_yaml_and_json(client: Client) -> None:
    from drf_spectacular.views import SpectacularAPIView

    from core.views import CachedSchemaView

    user = make_user(Role.ANNOTATOR)
    client.force_login(user)
    for accept in ("application/vnd.oai.openapi", "application/vnd.oai.openapi+json"):
        first = client.get("/api/schema/", HTTP_ACCEPT=accept)
        again = client.get("/api/schema/", HTTP_ACCEPT=accept)
        request = RequestFactory().get("/api/schema/", HTTP_ACCEPT=accept)
        request.user = user
        fresh = SpectacularAPIView.as_view()(request)
        fresh.render()
        assert first.status_code == again.status_code == 200
        assert first.content == again.content == fresh.content
        assert first["Content-Type"] == fresh["Content-Type"]
        assert first["Content-Disposition"] == fresh["Content-Disposition"]
    assert list(CachedSchemaView._schemas) == [(None, "en-us")]  # kept, not made per request
    # Any other ?version= or ?lang= is generated as before and not kept: no caller can grow
    # the cache.
    for query in ("version=x1", "version=x2", "lang=de", "lang=zz-nope"):
        assert client.get(f"/api/schema/?{query}").status_code == 200
    assert list(CachedSchemaView._schemas) == [(None, "en-us")]


def test_favicon_is_served_to_anyone(client: Client) -> None:
    """Regression: every first page load asked for /favicon.ico and got a 404."""
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    location = response["Location"]
    assert location.startswith("/static/"), location
    # whitenoise serves collected files; the test settings have none, so find it as it does.
    located = finders.find(location.removeprefix("/static/"))
    assert located and "<svg" in Path(located).read_text(encoding="utf-8")
    assert location in client.get("/accounts/login/").content.decode()  # and pages name it
