"""Cancel of an LLM judge run frees its worker within one request's deadline, through a real
`celery worker` (PostgreSQL + Redis) and an endpoint that drips its answer one byte at a time
on a real socket (gecscore/tests/reffree/misbehaving_server.py): before, Cancel was noticed
only between two judges, after every prompt had waited out its deadline and its retries
(300 s with the operator's settings), and the drip never met a per-read timeout at all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from core.jobs import cancel_job
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring import services
from tests.core.faultkit import Worker, wait_for, worker_on_own_queue
from tests.factories import make_user
from tests.parallel import worker_log
from tests.scoring_app.llm_servers import MisbehavingServer

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TIMEOUT = 2.0  # GEC_LLM_TIMEOUT of the worker
RETRIES = 5  # without Cancel one prompt holds the worker 12 s
SLACK = 3.0  # the watch's poll (0.5 s here), the broker's hand-over, a loaded 2-core machine

SOURCES = ["He go to school .", "She have two cat .", "This is fine .", "They was happy ."]
SYSTEMS = {
    "alpha": ["He goes to school .", "She has two cats .", "This is fine .", "They were happy ."],
    "beta": ["He goes to school .", "She have two cats .", "This is fine .", "They was happy ."],
}


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


@pytest.fixture
def server() -> Iterator[Any]:
    with MisbehavingServer("drip", interval=0.2) as running:
        yield running


@pytest.fixture
def judge_worker(django_db_setup, django_db_blocker, tmp_path, server) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    """A worker on a queue of its own whose LLM endpoint is the misbehaving server."""
    env = {
        "GEC_LLM_URL": server.url,
        "GEC_LLM_MODEL": "tiny-judge",
        "GEC_LLM_TIMEOUT": str(TIMEOUT),
        "GEC_LLM_RETRIES": str(RETRIES),
        "GEC_LLM_RETRY_WAIT": "0",
        "GEC_WEIGHT_CACHE_DIR": str(tmp_path / "cache"),
    }
    with worker_on_own_queue("llm", worker_log("llm-worker"), tmp_path, env=env) as subject:
        yield subject


def _release(admin: Any) -> Any:
    """A release with two scored systems, made in-process (as the quick start does)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        import_dataset(
            name="drip-en",
            fmt="parallel",
            language="en",
            user=admin,
            source_name="tiny",
            files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(SOURCES))],
        )
        version = release_dataset(dataset=Dataset.objects.get(name="drip-en"), user=admin)
        for name, hyps in SYSTEMS.items():
            system = services.upload_system_output(
                version=version, name=name, data=_lines(hyps), file_name=name, user=admin
            )
            assert services.score_now(system=system, user=admin).status == "done"
    finally:
        app.conf.task_always_eager = previous
    return version


def test_cancel_frees_the_worker_within_one_deadline(judge_worker, server, settings) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-judge"  # for the request
    admin = make_user(Role.ADMIN)
    version = _release(admin)
    first = services.request_judge_run(version=version, user=admin, metrics=["llm-s"])
    wait_for(lambda: server.requests, timeout=60, what="the worker's first request")

    cancelled_at = timezone.now()
    cancel_job(first.pk, user=admin)
    # The next job on the same one-process worker starts only once the first has let go.
    second = services.request_judge_run(version=version, user=admin, metrics=["llm-s"])
    started = wait_for(
        lambda: BackgroundJob.objects.get(pk=second.pk).started_at,
        timeout=60,
        what="the second judge run to start",
    )
    freed = (started - cancelled_at).total_seconds()
    assert freed < TIMEOUT + SLACK, f"the worker was held {freed:.1f} s after Cancel"
    first.refresh_from_db()
    assert first.status == JobStatus.CANCELLED and first.message == "cancelled"
    cancel_job(second.pk, user=admin)  # it drips too
    wait_for(
        lambda: len(server.left) == len(server.requests),
        timeout=TIMEOUT + SLACK,
        what="every request of both runs to be cut off",
    )
    # None of the dripping answers got through: no judge entry was stored.
    assert max(server.sent) < 100000
    for system in version.system_outputs.all():
        assert "llm-s" not in system.score.summary.get("extra", {})
