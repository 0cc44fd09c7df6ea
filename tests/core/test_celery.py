from __future__ import annotations

import pytest

from config.celery import app, ping


def test_queues_and_routing_send_gpu_tasks_to_the_gpu_queue() -> None:
    assert {queue.name for queue in app.conf.task_queues} == {"default", "gpu"}
    router = app.amqp.router
    assert router.route({}, "scoring.tasks.gpu_weighted_scores")["queue"].name == "gpu"
    assert router.route({}, "scoring.tasks.score_system")["queue"].name == "default"
    assert app.conf.task_acks_late is True


def test_tasks_run_in_process_without_a_broker(settings) -> None:  # type: ignore[no-untyped-def]
    if not app.conf.task_always_eager:
        pytest.skip("this run uses a real broker")
    result = ping.delay("hello")
    assert result.get(timeout=5)["echo"] == "hello"


@pytest.mark.services
def test_a_task_goes_through_redis_to_a_real_worker_process_and_back(celery_worker) -> None:  # type: ignore[no-untyped-def]
    import os

    result = ping.delay("through redis")
    payload = result.get(timeout=30)
    assert payload["echo"] == "through redis"
    # The answer came from the worker process, not from this test process.
    assert payload["pid"] == celery_worker.pid != os.getpid()
