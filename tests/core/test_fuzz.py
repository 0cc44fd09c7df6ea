"""Every GET page and endpoint, every role, every GET parameter its view reads: absurd values
(huge, negative, non-numeric, non-UTF-8, NUL, very long) give a page or a clear 4xx, never 5xx.

The URL patterns are walked from the resolver (nothing to keep in step by hand); each URL's
ids point at objects that exist (a release, a system output, a job ...), built through the
real services. The parameters of each view are read from the source of the module that
defines it (`request.GET.get("x")`, `query_params.get("x")`, ...), so a parameter added to a
view is fuzzed without touching this file.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from core.jobs import start_job
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from review.models import Complaint, StudyItem
from review.services import file_complaint
from review.verdicts import submit_review
from scoring import services as scoring_services
from tests.annotate.workflow import World, make_world, submit_all

pytestmark = pytest.mark.django_db

# Huge (past 64-bit, and past what timedelta takes), negative, non-numeric, a digit that
# str.isdigit() accepts but int() refuses, invalid UTF-8 (percent-encoded raw bytes), NUL and
# a very long value. (Kept short: every value costs a request per parameter, page and role.)
FUZZ_VALUES = [
    "9" * 30,
    "-1",
    "-99999999999999999999",
    "abc",
    "%C2%B2",  # "²": isdigit() is True, int() raises
    "%FF%FE%FD",
    "%00",
    "x" * 3000,
]

# Parameters every list endpoint may read through DRF (pagination, format suffix).
COMMON_PARAMS = ("page", "format")

# URL prefixes left out: Django's own admin (superusers only, Django's code), logout (a POST
# that ends the session) and file downloads (streamed bytes, their own tests).
SKIPPED_PREFIXES = ("django-admin/", "accounts/logout/")

GET_PARAM = re.compile(
    r"""(?:request\.GET|request\.query_params|self\.request\.query_params|self\.request\.GET|query|params)"""
    r"""(?:\.get|\.getlist|\.__getitem__)?\s*(?:\(|\[)\s*["']([A-Za-z_][A-Za-z0-9_]*)["']"""
)
IN_GET = re.compile(
    r"""["']([A-Za-z_][A-Za-z0-9_]*)["']\s+in\s+(?:request|self\.request)\.(?:GET|query_params)"""
)


@dataclass(frozen=True)
class Route:
    template: str  # "scoring/releases/<version_id>/"
    kwargs: tuple[str, ...]
    params: tuple[str, ...]


def _walk(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry, prefix + str(entry.pattern))
        else:
            yield prefix + str(entry.pattern), entry


def _view_module_source(pattern: URLPattern) -> str:
    callback: Any = pattern.callback
    target = getattr(callback, "view_class", None) or getattr(callback, "cls", None) or callback
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    module = inspect.getmodule(target)
    try:
        return inspect.getsource(module) if module is not None else ""
    except (OSError, TypeError):
        return ""


def discover_routes() -> list[Route]:
    routes = []
    for template, pattern in _walk(get_resolver()):
        if template.startswith(SKIPPED_PREFIXES) or "download" in template:
            continue
        if template.startswith("^") or "(?P" in template:
            continue  # regex routes (format suffixes) repeat a path route
        source = _view_module_source(pattern)
        params = set(GET_PARAM.findall(source)) | set(IN_GET.findall(source))
        kwargs = tuple(re.findall(r"<(?:\w+:)?(\w+)>", template))
        routes.append(Route(template, kwargs, tuple(sorted(params | set(COMMON_PARAMS)))))
    return routes


def test_discovery_finds_the_parameters_named_in_the_issue() -> None:
    """The parser must see the parameters that once gave 500s, or the fuzz proves nothing."""
    by_template = {route.template: route for route in discover_routes()}
    assert "stale_hours" in by_template["annotate/admin/"].params
    assert "systems" in by_template["scoring/releases/<int:version_id>/"].params
    assert "hours" in by_template["api/assignments/stale/"].params
    assert len(by_template) > 60


@pytest.fixture
def world() -> tuple[World, dict[str, Any]]:
    world = make_world()
    submit_all(
        world,
        0,
        [
            (["我昨天去图书馆借了三本书。"], ""),
            (["我昨天去图书馆借了三本书。", "我昨天去了图书馆借书三本。"], ""),
            ([], "error_free"),
        ],
    )
    submit_review(
        task_id=world.task().pk,
        user=world.reviewer,
        version=0,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )
    owner = world.annotators[1]
    item = StudyItem.objects.get(assignment__annotator=owner)
    file_complaint(item_id=item.pk, user=owner, text="please look again")
    for sentence in world.dataset.sentences.exclude(golden_references__isnull=False):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=sentence.text,
            origin=ReferenceOrigin.IMPORTED,
            kind=ReferenceKind.CORRECTION,
        )
    version = release_dataset(dataset=world.dataset, user=world.admin)
    hypotheses = "".join(
        f"{s.external_id}\t{s.text}\t{s.text}\n"
        for s in world.dataset.sentences.order_by("position")
    )
    system = scoring_services.upload_system_output(
        version=version,
        name="sys",
        data=hypotheses.encode("utf-8"),
        file_name="out.txt",
        user=world.admin,
    )
    job = start_job(kind="import", user=world.admin)
    ids: dict[str, Any] = {
        "assignment_id": world.assignment(world.annotators[0]).pk,
        "task_id": world.task().pk,
        "item_id": item.pk,
        "complaint_id": Complaint.objects.get().pk,
        "version_id": version.pk,
        "system_id": system.pk,
        "dataset_id": world.dataset.pk,
        "job_id": job.pk,
        "user_id": world.annotators[0].pk,
        "submission_id": world.assignment(world.annotators[0]).submissions.first().pk,  # type: ignore[union-attr]
        "name": world.dataset.name,
    }
    return world, ids


def _url(route: Route, ids: dict[str, Any]) -> str:
    path = route.template
    for kwarg in route.kwargs:
        value = ids.get(kwarg, 1)
        path = re.sub(rf"<(?:\w+:)?{kwarg}>", str(value), path, count=1)
    return "/" + path


def test_no_get_parameter_of_any_page_gives_a_server_error(world) -> None:  # type: ignore[no-untyped-def]
    world_, ids = world
    users = {
        "anonymous": None,
        "annotator": world_.annotators[0],
        "reviewer": world_.reviewer,
        "admin": world_.admin,
    }
    clients = {}
    for role, user in users.items():
        client = Client(raise_request_exception=False)
        if user is not None:
            client.force_login(user)
        clients[role] = client
    failures: list[str] = []
    requests = 0
    for route in discover_routes():
        url = _url(route, ids)
        for role, client in clients.items():
            baseline = client.get(url)
            requests += 1
            if baseline.status_code >= 500:
                failures.append(f"{role} GET {url} -> {baseline.status_code}")
                continue
            if baseline.status_code >= 300:
                continue  # refused before any parameter is read (login, 403, 404, 405)
            for param in route.params:
                for value in FUZZ_VALUES:
                    response = client.get(f"{url}?{param}={value}")
                    requests += 1
                    if response.status_code >= 500:
                        failures.append(
                            f"{role} GET {url}?{param}={value[:40]} -> {response.status_code}"
                        )
    assert requests > 500
    assert not failures, "\n".join(failures)


def test_roles_are_checked_before_the_body_is_parsed() -> None:
    """A POST from an annotator to an endpoint that is not theirs gets 403, whatever the body
    (a JSON body to a multipart-only admin endpoint once answered 415 first); no POST 5xx."""
    from core.roles import Role
    from tests.factories import make_user

    client = Client(raise_request_exception=False)
    client.force_login(make_user(Role.ANNOTATOR))
    admin_only = ["/datasets/api/import/", "/api/scoring/systems/", "/api/assignments/1/reassign/"]
    for url in admin_only:
        for content_type, body in (("application/json", '{"a": 1}'), ("text/plain", "x")):
            response = client.post(url, data=body, content_type=content_type)
            assert response.status_code == 403, (url, content_type, response.content)
    failures = []
    for route in discover_routes():
        if not route.template.startswith(("api/", "datasets/api/")):
            continue
        url = _url(route, {})
        response = client.post(url, data='{"a": 1}', content_type="application/json")
        if response.status_code == 415 or response.status_code >= 500:
            failures.append(f"POST {url} -> {response.status_code}")
    assert not failures, "\n".join(failures)
