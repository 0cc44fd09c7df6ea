"""Cancel of an LLM suggestion job frees its worker within one request's deadline, through a
real `celery worker` (PostgreSQL + Redis) and an endpoint that drips its answer one byte at a
time (gecscore/tests/reffree/misbehaving_server.py), as for the LLM judges
(tests/scoring_app/test_llm_cancel_services.py, whose worker fixture this reuses)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from annotate.llm_suggestions import request_llm_suggestions
from annotate.models import Suggestion
from core.jobs import cancel_job
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from tests.core.faultkit import wait_for
from tests.factories import make_dataset, make_user
from tests.scoring_app.llm_servers import MisbehavingServer
from tests.scoring_app.test_llm_cancel_services import SLACK, TIMEOUT, judge_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["judge_worker"]  # the worker fixture, used by name


@pytest.fixture
def server() -> Iterator[Any]:
    with MisbehavingServer("drip", interval=0.2) as running:
        yield running


def test_cancel_frees_the_worker_and_stores_nothing(judge_worker, server, settings) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-corrector"
    admin = make_user(Role.ADMIN)
    dataset = make_dataset(sentences=["我昨天去了图书馆借书了三本。", "我们应该要保护环境。"])
    first = request_llm_suggestions(dataset=dataset, user=admin)
    wait_for(lambda: server.requests, timeout=60, what="the worker's first request")
    cancelled_at = timezone.now()
    cancel_job(first.pk, user=admin)
    second = request_llm_suggestions(dataset=dataset, user=admin)
    started = wait_for(
        lambda: BackgroundJob.objects.get(pk=second.pk).started_at,
        timeout=60,
        what="the second suggestion job to start",
    )
    freed = (started - cancelled_at).total_seconds()
    assert freed < TIMEOUT + SLACK, f"the worker was held {freed:.1f} s after Cancel"
    first.refresh_from_db()
    assert first.status == JobStatus.CANCELLED
    cancel_job(second.pk, user=admin)
    wait_for(
        lambda: BackgroundJob.objects.get(pk=second.pk).status == JobStatus.CANCELLED,
        timeout=TIMEOUT + SLACK,
        what="the second job to end",
    )
    assert not Suggestion.objects.exists()
