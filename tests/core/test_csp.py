"""Content-Security-Policy on every page, no inline code left for it to block, and the API
docs served by the app (pinned ReDoc, no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from core.roles import Role
from tests.core.test_fuzz import _url, discover_routes
from tests.core.test_fuzz import world as world  # noqa: F401  (the fixture, shared)
from tests.factories import make_user

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _policy(response) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    header = response.headers.get("Content-Security-Policy", "")
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def test_every_page_for_every_role_carries_the_policy(world) -> None:  # type: ignore[no-untyped-def]
    world_, ids = world
    clients = {"anonymous": Client()}
    for role, user in (
        ("annotator", world_.annotators[0]),
        ("reviewer", world_.reviewer),
        ("admin", world_.admin),
    ):
        clients[role] = Client()
        clients[role].force_login(user)
    checked = 0
    missing = []
    for route in discover_routes():
        url = _url(route, ids)
        for role, client in clients.items():
            response = client.get(url)
            if response.status_code >= 500:
                continue  # the fuzz test reports those
            policy = _policy(response)
            checked += 1
            if policy.get("script-src") != ["'self'"] or "'unsafe-inline'" in policy.get(
                "default-src", []
            ):
                missing.append(f"{role} {url}: {policy}")
                continue
            if url != "/api/docs/" and policy.get("style-src") != ["'self'"]:
                missing.append(f"{role} {url}: style-src {policy.get('style-src')}")
    assert checked > 200
    assert not missing, "\n".join(missing)


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"""\sstyle\s*=\s*["']|<style\b""", re.I)
INLINE_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*["']""", re.I)
JS_URL = re.compile(r"""href\s*=\s*["']javascript:""", re.I)


def test_no_template_carries_inline_script_or_style() -> None:
    """What the policy would block (and what a browser test would see as 'Refused to ...')."""
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for name, pattern in (
            ("inline <script>", INLINE_SCRIPT),
            ("style attribute or <style>", INLINE_STYLE),
            ("on* handler", INLINE_HANDLER),
            ("javascript: URL", JS_URL),
        ):
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(TEMPLATES)}:{line}: {name}")
    assert not found, "\n".join(found)


def test_server_made_charts_carry_no_style() -> None:
    from core import charts

    source = Path(charts.__file__).read_text(encoding="utf-8")
    assert "style=" not in source and "<style" not in source


def test_api_docs_page_and_its_script_are_served_by_the_app() -> None:
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r"""<script[^>]*\bsrc=["']([^"']+)["']""", page)
    assert sources, page
    assert not re.search(r"""(?:src|href)=["'](?:https?:)?//""", page), "a CDN URL is left"
    for src in sources:
        assert src.startswith("/static/"), src
        located = finders.find(src.removeprefix("/static/"))
        assert located and Path(str(located)).stat().st_size > 100, src
    assert any("redoc.standalone.js" in src for src in sources)
    assert not INLINE_SCRIPT.search(page)
    policy = _policy(response)
    assert policy["script-src"] == ["'self'"]  # ReDoc's styles only are relaxed on this page
    assert "blob:" in policy["worker-src"]


def test_healthz_tells_anonymous_callers_only_whether_it_is_healthy() -> None:
    anonymous = Client().get("/healthz").json()
    assert anonymous["status"] == "ok"
    assert anonymous["database"] == {"ok": True} and anonymous["broker"] == {"ok": True}
    admin = Client()
    admin.force_login(make_user(Role.ADMIN))
    detailed = admin.get("/healthz").json()
    assert detailed["database"]["vendor"] and "mode" in detailed["broker"]


def test_every_html_page_carries_the_navigation_bar_of_its_role(world) -> None:  # type: ignore[no-untyped-def]
    """The bar comes from base.html and core.context_processors for every role."""
    world_, ids = world
    expected = {
        "annotator": (world_.annotators[0], {"My tasks", "Study", "Complaints", "Guidelines"}),
        "reviewer": (world_.reviewer, {"Review queue", "Complaints", "Guidelines"}),
        "admin": (world_.admin, {"Datasets", "Projects", "Users", "Progress", "Scoring"}),
    }
    missing = []
    pages = 0
    for role, (user, labels) in expected.items():
        client = Client()
        client.force_login(user)
        for route in discover_routes():
            if route.template.startswith(("api/", "datasets/api/", "jobs/", "healthz")):
                continue
            url = _url(route, ids)
            response = client.get(url)
            if response.status_code != 200 or "text/html" not in response["Content-Type"]:
                continue
            html = response.content.decode()
            if url == "/api/docs/":
                continue  # ReDoc's own page
            pages += 1
            nav = re.search(r'<nav class="mainnav"[^>]*>(.*?)</nav>', html, re.S)
            shown = set(re.findall(r">([^<>]+)</a>", nav.group(1))) if nav else set()
            if not labels <= shown:
                missing.append(f"{role} {url}: {sorted(labels - shown)}")
    assert pages > 30
    assert not missing, "\n".join(missing)
