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
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from core.jobs import start_job
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from judgments.services import create_campaign, next_assignment, submit_judgment
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
    "100000000",  # a plain number, just large: ?bootstrap= once took 6.7 GiB and 47 s
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
    results = by_template["api/judgments/campaigns/<int:campaign_id>/results/"]
    assert {"bootstrap", "seed", "runs", "method"} <= set(results.params)
    assert "bootstrap" in by_template["judgments/<int:campaign_id>/results/"].params
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
    campaign = create_campaign(
        name="fuzz-campaign",
        release=version,
        system_outputs={
            "sys": list(system.hypotheses),
            "alt": [h + "了" for h in system.hypotheses],
        },
        judges=world.annotators,
        judges_per_item=1,
        created_by=world.admin,
    )
    # Judged, so its results page and API answer 200 and read their parameters.
    for judge in world.annotators:
        while (assignment := next_assignment(campaign=campaign, judge=judge)) is not None:
            shown = assignment.item.outputs.count()
            submit_judgment(
                assignment_id=assignment.pk, judge=judge, ranks=list(range(1, shown + 1))
            )
    ids: dict[str, Any] = {
        "assignment_id": world.assignment(world.annotators[0]).pk,
        "task_id": world.task().pk,
        "item_id": item.pk,
        "complaint_id": Complaint.objects.get().pk,
        "version_id": version.pk,
        "system_id": system.pk,
        "dataset_id": world.dataset.pk,
        "job_id": job.pk,
        "campaign_id": campaign.pk,
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


# A bounded parameter answers at once; an unbounded one (a bootstrap of 10^8) ran for minutes.
MAX_SECONDS_PER_REQUEST = 10.0


def _named_field(response: Any) -> str | None:
    """The field a 400 JSON answer blames (`{"field": ...}`), if it names one."""
    if response.status_code != 400 or "json" not in response.get("Content-Type", ""):
        return None
    body = response.json()
    return body.get("field") if isinstance(body, dict) else None


# The page fuzz runs as this many tests, each the routes `shard::FUZZ_SHARDS` of the resolver's
# list (together every route, role, parameter and value, as one test did), so xdist's workers
# share it: it was the longest test of the suite (68 s on a quiet machine).
FUZZ_SHARDS = 4


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(FUZZ_SHARDS))
def test_no_get_parameter_of_any_page_gives_a_server_error(world, shard: int) -> None:  # type: ignore[no-untyped-def]
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
    for route in discover_routes()[shard::FUZZ_SHARDS]:
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
                    started = time.monotonic()
                    response = client.get(f"{url}?{param}={value}")
                    seconds = time.monotonic() - started
                    requests += 1
                    where = f"{role} GET {url}?{param}={value[:40]}"
                    if response.status_code >= 500:
                        failures.append(f"{where} -> {response.status_code}")
                    elif seconds > MAX_SECONDS_PER_REQUEST:
                        failures.append(f"{where} took {seconds:.1f} s")
                    elif _named_field(response) not in (None, param):
                        failures.append(f"{where} blamed {_named_field(response)!r}")
    assert requests > 500 // FUZZ_SHARDS  # every shard fuzzes: more than 500 in all
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


# --- numbers in API bodies ----------------------------------------------------------------------

BODY_VALUES: list[Any] = [10**30, -(10**30), 100_000_000, 1e308, "abc", "nan", "inf", True, None]


def _blamed(response: Any) -> set[str]:
    """The fields a 400 answer names: `{"field": f}` (a service error) or DRF's `{f: [...]}`."""
    body = response.json()
    if not isinstance(body, dict):
        return set()
    return {body["field"]} if "field" in body else set(body) - {"detail"}


def test_no_number_in_an_api_body_gives_a_server_error_or_blames_another_field(world) -> None:  # type: ignore[no-untyped-def]
    world_, ids = world
    from judgments.models import Campaign

    campaign = Campaign.objects.get(pk=ids["campaign_id"])
    version_id = ids["version_id"]
    valid_campaign = {
        "name": "fuzzed",
        "release": version_id,
        "system_outputs": {
            s.name: s.outputs
            for s in campaign.systems.all()  # type: ignore[attr-defined]
        },
        "judges": [u.username for u in world_.annotators],
    }
    bodies: list[tuple[str, dict[str, Any], list[str]]] = [
        (
            "/api/judgments/campaigns/",
            valid_campaign,
            ["release", "judges_per_item", "outputs_per_item", "agreement_share", "seed"],
        ),
        (f"/api/judgments/campaigns/{campaign.pk}/reassign-stale/", {}, ["minutes"]),
        (
            f"/api/scoring/releases/{version_id}/meta/",
            {"metrics": ["f05"], "human_scores": 1},
            ["human_scores", "campaign", "bootstrap", "sentence_bootstrap", "window", "seed"],
        ),
        ("/api/assignments/assign-dataset/", {"dataset": ids["dataset_id"]}, ["dataset", "seed"]),
        (f"/api/assignments/{ids['assignment_id']}/reassign/", {}, ["annotator"]),
        (f"/api/review-tasks/{ids['task_id']}/reassign/", {}, ["reviewer"]),
    ]
    client = Client(raise_request_exception=False)
    client.force_login(world_.admin)
    failures = []
    for url, base, fields in bodies:
        for field in fields:
            for value in BODY_VALUES:
                started = time.monotonic()
                response = client.post(url, {**base, field: value}, content_type="application/json")
                seconds = time.monotonic() - started
                where = f"POST {url} {field}={str(value)[:20]}"
                if response.status_code >= 500:
                    failures.append(f"{where} -> {response.status_code}")
                elif seconds > MAX_SECONDS_PER_REQUEST:
                    failures.append(f"{where} took {seconds:.1f} s")
                elif response.status_code == 400 and field not in _blamed(response):
                    failures.append(f"{where} blamed {_blamed(response)}")
    assert not failures, "\n".join(failures)
