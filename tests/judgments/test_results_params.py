"""The results' numbers are bounded on the page and the API alike:
`?bootstrap=100000000` took 6.7 GiB and 47 s, then a 500, on the API (the page capped it);
`?bootstrap=abc` blamed the field "method". A bound's 400 names its setting."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from core.roles import Role
from judgments import services
from tests.factories import make_user
from tests.judgments.factories import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    campaign = make_campaign(judges=judges, created_by=admin)
    for judge in judges:
        while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
            shown = assignment.item.outputs.count()
            services.submit_judgment(
                assignment_id=assignment.pk, judge=judge, ranks=list(range(1, shown + 1))
            )
    client = Client()
    client.force_login(admin)
    return campaign, client


@pytest.mark.parametrize(
    ("query", "field", "setting"),
    [
        ("bootstrap=100000000", "bootstrap", "GEC_RESULTS_MAX_BOOTSTRAP"),
        ("bootstrap=abc", "bootstrap", "GEC_RESULTS_MAX_BOOTSTRAP"),
        ("bootstrap=-1", "bootstrap", "GEC_RESULTS_MAX_BOOTSTRAP"),
        ("runs=0", "runs", "GEC_RESULTS_MAX_RUNS"),
        ("runs=10001", "runs", "GEC_RESULTS_MAX_RUNS"),
        ("runs=99999999999999999999", "runs", "GEC_RESULTS_MAX_RUNS"),
        ("seed=abc", "seed", None),
        ("seed=99999999999999999999", "seed", None),
        ("method=nope", "method", None),
    ],
)
def test_the_results_api_refuses_each_number_out_of_range_naming_it(
    judged, query, field, setting
) -> None:  # type: ignore[no-untyped-def]
    campaign, client = judged
    client.get(f"/api/judgments/campaigns/{campaign.pk}/results/?runs=5")  # warm the process
    started = time.monotonic()
    response = client.get(f"/api/judgments/campaigns/{campaign.pk}/results/?{query}")
    assert time.monotonic() - started < 5
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == field
    assert body.get("setting") == setting
    if setting is not None:
        assert setting in body["detail"]


def test_the_results_api_and_page_take_the_largest_bootstrap_allowed(judged, computed) -> None:  # type: ignore[no-untyped-def]
    campaign, client = judged
    api = computed(client, f"/api/judgments/campaigns/{campaign.pk}/results/?bootstrap=2000&runs=5")
    assert api.status_code == 200 and api.json()["bootstrap"] == 2000
    page = client.get(f"/judgments/{campaign.pk}/results/?bootstrap=100000000")
    assert page.status_code == 200
    html = page.content.decode()
    assert "bootstrap must be a whole number from 0 to 2000" in html
    assert "GEC_RESULTS_MAX_BOOTSTRAP" in html
