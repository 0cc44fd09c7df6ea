"""Logins that cannot be guessed: the throttle on the login page, the API's token endpoint
and Django admin's login (per account and per client address), its audit entries and the
admins' unlock; one password hash per login; API tokens that expire; a first admin that
shows as one; a demo that refuses to seed production."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.models import AuditLog, User
from core.roles import Role
from core.services import create_user
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
TOKEN = "/api/auth/token/"
ADMIN_LOGIN = "/django-admin/login/"


def _client(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def _login(client: Client, username: str, password: str, url: str = LOGIN) -> Any:
    return client.post(url, {"username": username, "password": password})


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _fail_until_locked(client: Client, username: str, url: str, limit: int) -> list[int]:
    return [_login(client, username, "wrong-password", url).status_code for _ in range(limit)]


# --- the login page ----------------------------------------------------------------------------


def test_wrong_passwords_lock_the_account_and_the_right_one_is_refused_then(settings) -> None:  # type: ignore[no-untyped-def]
    victim = make_user(Role.ANNOTATOR, username="victim")
    other = make_user(Role.ANNOTATOR, username="other")
    limit = settings.AXES_FAILURE_LIMIT
    attacker = _client("203.0.113.7")
    statuses = _fail_until_locked(attacker, victim.username, LOGIN, limit)
    # Every failure before the limit is the form's own answer; the limit-th is the lockout.
    assert statuses == [200] * (limit - 1) + [429]
    refused = _login(attacker, victim.username, PASSWORD)
    assert refused.status_code == 429 and not _logged_in(attacker)
    assert "Too many failed logins" in refused.content.decode()
    assert refused["Retry-After"] == str(settings.GEC_LOGIN_LOCKOUT_MINUTES * 60)
    # Per account: the victim's right password is refused from another address too.
    elsewhere = _client("198.51.100.20")
    assert _login(elsewhere, victim.username, PASSWORD).status_code == 429
    assert not _logged_in(elsewhere)
    # Other accounts log in from other addresses at once.
    colleague = _client("198.51.100.21")
    assert _login(colleague, other.username, PASSWORD).status_code == 302
    assert _logged_in(colleague)
    # Per address: the attacker's address is locked for every account (documented).
    assert _login(_client("203.0.113.7"), other.username, PASSWORD).status_code == 429


def test_one_address_trying_many_usernames_is_locked(settings) -> None:  # type: ignore[no-untyped-def]
    real = make_user(Role.REVIEWER, username="real")
    sprayer = _client("203.0.113.8")
    limit = settings.AXES_FAILURE_LIMIT
    answers = [_login(sprayer, f"guess{n}", "123456").status_code for n in range(limit)]
    assert answers == [200] * (limit - 1) + [429]
    assert _login(sprayer, real.username, PASSWORD).status_code == 429
    assert _login(_client("198.51.100.30"), real.username, PASSWORD).status_code == 302


def test_an_attackers_own_successful_login_does_not_reset_the_count(settings) -> None:  # type: ignore[no-untyped-def]
    victim = make_user(Role.ANNOTATOR, username="target")
    own = make_user(Role.ANNOTATOR, username="mallory")
    attacker = _client("203.0.113.19")
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail_until_locked(attacker, victim.username, LOGIN, limit - 1) == [200] * (limit - 1)
    assert _login(_client("203.0.113.19"), own.username, PASSWORD).status_code == 302
    assert _login(attacker, victim.username, "one-more-guess").status_code == 429


def test_a_lockout_ends_after_the_documented_minutes(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR, username="patient")
    client = _client("203.0.113.9")
    _fail_until_locked(client, user.username, LOGIN, settings.AXES_FAILURE_LIMIT)
    assert _login(client, user.username, PASSWORD).status_code == 429
    almost = timezone.now() - timedelta(minutes=settings.GEC_LOGIN_LOCKOUT_MINUTES - 1)
    AccessAttempt.objects.update(attempt_time=almost)
    assert _login(client, user.username, PASSWORD).status_code == 429
    over = timezone.now() - timedelta(minutes=settings.GEC_LOGIN_LOCKOUT_MINUTES, seconds=1)
    AccessAttempt.objects.update(attempt_time=over)
    assert _login(client, user.username, PASSWORD).status_code == 302 and _logged_in(client)


def test_a_lockout_writes_one_audit_entry_however_often_it_is_hit(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR, username="audited")
    client = _client("203.0.113.10")
    _fail_until_locked(client, user.username, LOGIN, settings.AXES_FAILURE_LIMIT)
    for _ in range(5):
        assert _login(client, user.username, "still-wrong").status_code == 429
    entries = list(AuditLog.objects.filter(action="login.locked_out"))
    assert len(entries) == 1
    entry = entries[0]
    assert (entry.object_type, entry.object_id) == ("core.user", str(user.pk))
    assert entry.data == {
        "username": "audited",
        "ip_address": "203.0.113.10",
        "failures": settings.AXES_FAILURE_LIMIT,
        "path": LOGIN,
        "minutes": settings.GEC_LOGIN_LOCKOUT_MINUTES,
    }
    # Refused attempts are not counted: the lockout still ends on time.
    attempt = AccessAttempt.objects.get()
    assert attempt.failures_since_start == settings.AXES_FAILURE_LIMIT


def test_a_lockout_of_an_unknown_username_is_audited_too(settings) -> None:  # type: ignore[no-untyped-def]
    _fail_until_locked(_client("203.0.113.11"), "nobody", LOGIN, settings.AXES_FAILURE_LIMIT)
    entry = AuditLog.objects.get(action="login.locked_out")
    assert entry.object_type == "axes.accessattempt" and entry.data["username"] == "nobody"


def test_the_test_clients_login_without_a_request_is_not_throttled(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR)
    for _ in range(settings.AXES_FAILURE_LIMIT + 2):
        assert not Client().login(username=user.username, password="wrong")
    assert Client().login(username=user.username, password=PASSWORD)
    assert not AccessAttempt.objects.exists()


# --- the API and Django admin ----------------------------------------------------------------


def test_the_api_token_endpoint_is_throttled_and_answers_json(settings) -> None:  # type: ignore[no-untyped-def]
    script = make_user(Role.ANNOTATOR, username="script")
    other = make_user(Role.ANNOTATOR, username="script2")
    client = _client("203.0.113.12")
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail_until_locked(client, script.username, TOKEN, limit) == [400] * (limit - 1) + [429]
    refused = _login(client, script.username, PASSWORD, TOKEN)
    assert refused.status_code == 429 and "Too many failed logins" in refused.json()["detail"]
    assert not Token.objects.filter(user=script).exists()
    fine = _login(_client("198.51.100.40"), other.username, PASSWORD, TOKEN)
    assert fine.status_code == 200 and fine.json()["token"] == Token.objects.get(user=other).key
    assert AuditLog.objects.get(action="login.locked_out").data["path"] == TOKEN


def test_a_json_token_request_counts_like_a_form_one(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR)
    client = _client("203.0.113.13")
    body = json.dumps({"username": user.username, "password": "wrong"})
    answers = [
        client.post(TOKEN, body, content_type="application/json").status_code
        for _ in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert answers[-1] == 429 and set(answers[:-1]) == {400}


def test_an_overlong_username_is_refused_or_counted_cut_to_a_usernames_length() -> None:
    address = "203.0.113.20"
    for url, status in ((TOKEN, 400), (LOGIN, 200), (ADMIN_LOGIN, 200)):
        response = _login(_client(address), "u" * 300, "wrong", url)
        assert response.status_code == status, url
    # The API's serializer refuses it; the forms pass it to authenticate, and the failure
    # counts against the first 150 characters (the throttle's column holds 255).
    assert list(AccessAttempt.objects.values_list("username", "failures_since_start")) == [
        ("u" * 150, 2)
    ]


def test_django_admin_login_is_throttled(settings) -> None:  # type: ignore[no-untyped-def]
    root = create_user(username="root", password=PASSWORD, is_superuser=True)
    client = _client("203.0.113.14")
    limit = settings.AXES_FAILURE_LIMIT
    assert _fail_until_locked(client, root.username, ADMIN_LOGIN, limit)[-1] == 429
    assert _login(client, root.username, PASSWORD, ADMIN_LOGIN).status_code == 429
    assert not _logged_in(client)


# --- client address ----------------------------------------------------------------------------


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR)
    for n in range(settings.AXES_FAILURE_LIMIT):
        Client(REMOTE_ADDR="203.0.113.15", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").post(
            LOGIN, {"username": f"spray{n}", "password": "x"}
        )
    locked = Client(REMOTE_ADDR="203.0.113.15", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert _login(locked, user.username, PASSWORD).status_code == 429


def test_behind_a_trusted_proxy_the_client_is_the_address_it_forwarded(settings) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_TRUSTED_PROXY_COUNT = 1
    user = make_user(Role.ANNOTATOR)
    limit = settings.AXES_FAILURE_LIMIT
    for n in range(limit):
        # What the client sends itself (the left entries) changes; the proxy's does not.
        Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.16").post(
            LOGIN, {"username": f"spray{n}", "password": "x"}
        )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.16"}
    behind_same_proxy = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.50")
    assert _login(behind_same_proxy, user.username, PASSWORD).status_code == 302


# --- unlocking --------------------------------------------------------------------------------


def test_an_admin_unlocks_an_account_on_the_users_page(settings) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    user = make_user(Role.ANNOTATOR, username="locked-one")
    attacker = _client("203.0.113.17")
    _fail_until_locked(attacker, user.username, LOGIN, settings.AXES_FAILURE_LIMIT)
    page_client = _client("198.51.100.60")
    page_client.force_login(admin)
    page = page_client.get("/users/").content.decode()
    assert page.count('data-testid="login-locked-row"') == 1
    response = page_client.post(f"/users/{user.pk}/unlock/")
    assert response.status_code == 302
    entry = AuditLog.objects.get(action="login.unlocked")
    assert (entry.actor, entry.object_id, entry.data) == (
        admin,
        str(user.pk),
        {"username": "locked-one", "records": 1},
    )
    assert 'data-testid="login-locked-row"' not in page_client.get("/users/").content.decode()
    assert _login(_client("198.51.100.61"), user.username, PASSWORD).status_code == 302


def test_only_admins_unlock_and_superusers_only_by_superusers(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR)
    root = create_user(username="root", password=PASSWORD, is_superuser=True)
    anonymous = Client().post(f"/users/{user.pk}/unlock/")
    assert anonymous.status_code == 302 and LOGIN in anonymous["Location"]
    for role in (Role.ANNOTATOR, Role.REVIEWER):
        client = Client()
        client.force_login(make_user(role))
        assert client.post(f"/users/{user.pk}/unlock/").status_code == 403
    admin = Client()
    admin.force_login(make_user(Role.ADMIN))
    assert admin.get(f"/users/{user.pk}/unlock/").status_code == 405
    assert admin.post("/users/999999/unlock/").status_code == 404
    page = admin.post(f"/users/{root.pk}/unlock/", follow=True).content.decode()
    assert "only a superuser can change that account" in page
    assert not AuditLog.objects.filter(action="login.unlocked").exists()


# --- password hashing per login ----------------------------------------------------------------


class CountingHasher(MD5PasswordHasher):
    """The suite's fast hasher, counting how often a password is hashed."""

    calls = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


def test_a_login_hashes_the_password_once_and_a_refused_one_not_at_all(settings) -> None:  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["tests.core.test_logins.CountingHasher"]
    user = make_user(Role.ANNOTATOR)
    checks = [
        (LOGIN, user.username, PASSWORD),
        (TOKEN, user.username, PASSWORD),
        (LOGIN, user.username, "wrong"),
        (LOGIN, "no-such-user", "wrong"),  # Django hashes once for unknown users too
    ]
    for n, (url, username, password) in enumerate(checks):
        CountingHasher.calls = 0
        _login(_client(f"198.51.100.{70 + n}"), username, password, url)
        assert CountingHasher.calls == 1, (url, username, password)
    attacker = _client("203.0.113.18")
    _fail_until_locked(attacker, user.username, LOGIN, settings.AXES_FAILURE_LIMIT)
    CountingHasher.calls = 0
    for _ in range(5):
        assert _login(attacker, user.username, PASSWORD).status_code == 429
    assert CountingHasher.calls == 0


# --- API tokens expire ---------------------------------------------------------------------


def test_an_expired_api_token_gets_401_and_a_new_token_is_issued(settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR)
    issued = _login(Client(), user.username, PASSWORD, TOKEN).json()
    key = issued["token"]
    token = Token.objects.get(key=key)
    assert (
        issued["expires"]
        == (token.created + timedelta(hours=settings.GEC_API_TOKEN_HOURS)).isoformat()
    )
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/assignments/").status_code == 200
    # The same live token is handed out again: other scripts holding it keep working.
    assert _login(Client(), user.username, PASSWORD, TOKEN).json()["token"] == key
    lived = timedelta(hours=settings.GEC_API_TOKEN_HOURS, seconds=1)
    Token.objects.filter(key=key).update(created=timezone.now() - lived)
    expired = api.get("/api/assignments/")
    assert expired.status_code == 401 and "expired" in expired.json()["detail"]
    assert expired["WWW-Authenticate"] == "Token"
    assert (
        Client(HTTP_AUTHORIZATION="Token not-a-token").get("/api/assignments/").status_code == 401
    )
    fresh = _login(Client(), user.username, PASSWORD, TOKEN).json()["token"]
    assert fresh != key and not Token.objects.filter(key=key).exists()
    assert Client(HTTP_AUTHORIZATION=f"Token {fresh}").get("/api/assignments/").status_code == 200


def test_a_token_just_inside_its_lifetime_still_works(settings) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_API_TOKEN_HOURS = 2
    user = make_user(Role.ANNOTATOR)
    key = _login(Client(), user.username, PASSWORD, TOKEN).json()["token"]
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(minutes=119))
    assert Client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/assignments/").status_code == 200


# --- the first admin and the demo ------------------------------------------------------------


def test_createsuperuser_makes_an_admin_the_users_page_shows_as_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command(
        "createsuperuser",
        interactive=False,
        username="first-admin",
        email="first@example.org",
        stdout=StringIO(),
    )
    first = User.objects.get(username="first-admin")
    assert first.is_superuser and list(first.groups.values_list("name", flat=True)) == ["admin"]
    client = Client()
    assert client.login(username="first-admin", password=PASSWORD)
    page = client.get("/users/").content.decode()
    row = page[page.index('data-username="first-admin"') :]
    row = row[: row.index("</tr>")]
    assert 'value="admin" checked' in row and 'value="annotator" checked' not in row


def test_a_superuser_made_by_the_service_holds_the_admin_role() -> None:
    root = create_user(username="root", password=PASSWORD, is_superuser=True)
    assert list(root.groups.values_list("name", flat=True)) == ["admin"]


def test_seed_demo_refuses_production_settings_unless_told(settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--allow-demo-accounts") as refused:
        call_command("seed_demo", stdout=StringIO())
    assert "DJANGO_DEBUG=0" in str(refused.value) and "createsuperuser" in str(refused.value)
    assert not User.objects.exists()
    call_command("seed_demo", allow_demo_accounts=True, stdout=StringIO())
    assert User.objects.get(username="admin").is_superuser


def test_seed_demo_runs_in_the_quick_start(settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = True
    call_command("seed_demo", stdout=StringIO())
    assert User.objects.filter(username__startswith="annotator").count() == 3
