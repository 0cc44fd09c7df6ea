"""Concurrent verifiers never exceed k on PostgreSQL: many reviewers submit the same item at
the same moment (threads released by one barrier, each on its own connection); the item's
row lock makes them take turns, so exactly k verifications are stored and the others are told
the item is done."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from core.exceptions import Conflict
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import ClosestGoldVerification
from tests.factories import make_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

VERIFIERS = 6
K = 2
SOURCES = ["我明天去学校了。", "他们在公园里玩的很开心。", "这个问题很难回答。", "他很高兴的笑了。"]


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


def test_concurrent_verifiers_never_exceed_k(settings: Any) -> None:
    settings.GEC_LLM_URL = settings.GEC_LLM_MODEL = ""
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="cg-race",
        fmt="parallel",
        language="zh",
        user=admin,
        source_name="tiny",
        files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(SOURCES))],
    )
    version = release_dataset(dataset=Dataset.objects.get(name="cg-race"), user=admin)
    system = services.upload_system_output(
        version=version, name="alpha", data=_lines(SOURCES), file_name="alpha", user=admin
    )
    task = services.create_closest_gold_task(
        version=version, systems=[system], user=admin, per_item=K
    )
    verifiers = [make_user(Role.REVIEWER) for _ in range(VERIFIERS)]
    items = list(task.items.order_by("position"))
    for item in items:
        barrier = threading.Barrier(VERIFIERS)
        outcomes: list[str] = []

        def submit(
            verifier: Any, item_id: int = item.pk, gate: Any = barrier, out: list[str] = outcomes
        ) -> None:
            try:
                gate.wait(timeout=30)
                services.submit_verification(
                    item_id=item_id, verifier=verifier, decision="output-correct"
                )
                out.append("saved")
            except Conflict:
                out.append("conflict")
            finally:
                connection.close()

        threads = [threading.Thread(target=submit, args=(v,)) for v in verifiers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(outcomes) == ["conflict"] * (VERIFIERS - K) + ["saved"] * K
        assert ClosestGoldVerification.objects.filter(item=item).count() == K
