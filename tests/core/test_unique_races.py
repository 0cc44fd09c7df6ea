"""Two admins creating the same name at once: exactly one 201, every other
request a 409 that names the object that won, never a 500 from the unique constraint.

The race is made certain, not left to timing: a holder transaction inserts the name first and
does not commit, so every request passes its "does the name exist?" check and then waits on
the unique index; once all of them wait (pg_locks says so) the holder rolls back. One request's
insert goes through; the others' inserts wait on it and are refused when it commits. Without
the savepoint-and-Conflict in core.unique those refusals were IntegrityErrors (500s).
PostgreSQL only: SQLite serialises writers, so the race cannot happen there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, models, transaction
from django.test import Client

from core.exceptions import Conflict
from core.models import User
from core.roles import Role
from core.services import create_accounts
from judgments.models import Campaign
from scoring.models import HumanSystemScores, OutputFormat, SystemOutput
from tests.factories import make_user
from tests.judgments.factories import SOURCES, SYSTEMS, make_release

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 5


@pytest.fixture(autouse=True)
def _postgresql(transactional_db: None) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL): SQLite serialises writers")


def _waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted"
        )
        return int(cursor.fetchone()[0])


def _race_behind_holder(
    hold: Callable[[], models.Model], calls: list[Callable[[], Any]]
) -> list[Any]:
    """Run `calls` at once while `hold()`'s row is inserted and uncommitted; roll it back when
    every call waits on it. Returns each call's result or the exception it raised."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                hold()
                held.set()
                release.wait(60)
                transaction.set_rollback(True)
        finally:
            connection.close()

    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            results[index] = calls[index]()
        except Exception as error:  # noqa: BLE001 - the test inspects what each call got
            results[index] = error
        finally:
            connection.close()

    holding = threading.Thread(target=holder)
    holding.start()
    assert held.wait(30)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while _waiting_on_locks() < len(calls):
        assert time.monotonic() < deadline, "the calls never all waited on the held name"
        assert not any(r is not None for r in results), results  # one finished early
        time.sleep(0.02)
    release.set()
    holding.join(60)
    for thread in threads:
        thread.join(120)
    return results


def _admin_clients(admin: User) -> list[Client]:
    clients = []
    for _ in range(RACERS):
        client = Client()
        client.force_login(admin)
        clients.append(client)
    return clients


def _one_created_rest_conflict(responses: list[Any], name: str) -> list[Any]:
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (RACERS - 1), [r.content[:300] for r in responses]
    losers = [r.json() for r in responses if r.status_code == 409]
    for body in losers:
        assert name in body["detail"] and body["field"] == "name", body
    return losers


def test_campaigns_created_at_once_answer_one_201_and_409s_naming_it() -> None:
    admin = make_user(Role.ADMIN)
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    release = make_release(SOURCES)
    body = {
        "name": "race-campaign",
        "release": release.pk,
        "system_outputs": SYSTEMS,
        "judges": [j.username for j in judges],
    }
    calls = [
        lambda c=c: c.post("/api/judgments/campaigns/", body, content_type="application/json")
        for c in _admin_clients(admin)
    ]
    responses = _race_behind_holder(lambda: Campaign.objects.create(name="race-campaign"), calls)
    losers = _one_created_rest_conflict(responses, "'race-campaign'")
    winner = Campaign.objects.get(name="race-campaign")
    assert all(f"(campaign {winner.pk})" in body["detail"] for body in losers)
    assert Campaign.objects.count() == 1


def test_human_scores_uploaded_at_once_answer_one_201_and_409s_naming_them() -> None:
    admin = make_user(Role.ADMIN)
    release = make_release(SOURCES)
    for name, lines in SYSTEMS.items():
        _store_output(release, name, lines)
    wmt = "".join(f"HUMAN\tzh\ttest\t{s}\t0.{i}\n" for i, s in enumerate(SYSTEMS, 1)).encode()
    url = f"/api/scoring/releases/{release.pk}/human-scores/"
    calls = [
        lambda c=c: c.post(url, {"name": "EW", "file": SimpleUploadedFile("h.tsv", wmt)})
        for c in _admin_clients(admin)
    ]
    responses = _race_behind_holder(
        lambda: HumanSystemScores.objects.create(version=release, name="EW", layout="wmt"), calls
    )
    losers = _one_created_rest_conflict(responses, "'EW'")
    winner = HumanSystemScores.objects.get()
    assert all(f"(human scores {winner.pk})" in body["detail"] for body in losers)


def test_system_outputs_uploaded_at_once_answer_one_201_and_409s_naming_it() -> None:
    admin = make_user(Role.ADMIN)
    release = make_release(SOURCES)
    text = ("\n".join(SYSTEMS["sysA"]) + "\n").encode()
    calls = [
        lambda c=c: c.post(
            "/api/scoring/systems/",
            {
                "dataset": release.dataset.name,
                "release": str(release.number),
                "name": "racer",
                "wait": "true",
                "file": SimpleUploadedFile("out.txt", text),
            },
        )
        for c in _admin_clients(admin)
    ]
    responses = _race_behind_holder(lambda: _store_output(release, "racer", []), calls)
    losers = _one_created_rest_conflict(responses, "'racer'")
    winner = SystemOutput.objects.get(name="racer")
    assert winner.hypotheses == SYSTEMS["sysA"]
    assert all(f"(system {winner.pk})" in body["detail"] for body in losers)


def test_accounts_created_at_once_give_one_account_and_conflicts_naming_it() -> None:
    admin = make_user(Role.ADMIN)
    calls = [
        lambda: create_accounts(by=admin, accounts="racer", roles=["annotator"])
        for _ in range(RACERS)
    ]
    results = _race_behind_holder(lambda: User.objects.create(username="racer"), calls)
    created = [r for r in results if isinstance(r, list)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(created) == 1 and len(conflicts) == RACERS - 1, results
    winner = User.objects.get(username="racer")
    assert all(f"user 'racer' already exists (user {winner.pk})" in c.message for c in conflicts)


def _store_output(release: Any, name: str, lines: list[str]) -> SystemOutput:
    return SystemOutput.objects.create(
        version=release,
        name=name,
        file_format=OutputFormat.LINES,
        hypotheses=lines,
        checksum="",
    )
