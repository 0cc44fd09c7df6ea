"""The Celery app: queues `default` (CPU work) and `gpu` (model-backed edit weights)."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

app = Celery("gecplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (Queue("default"), Queue("gpu"))
app.autodiscover_tasks()


@worker_process_init.connect
def limit_torch_threads(**_: Any) -> None:
    """One torch thread per worker process: several processes share a machine's cores."""
    try:
        import torch  # lazy: only worker processes pay for importing torch
    except ImportError:  # torch is optional for CPU-only workers
        return
    torch.set_num_threads(1)


@app.task(name="core.ping", ignore_result=False)
def ping(value: str = "pong") -> dict[str, Any]:
    """Round-trip check used by /healthz and the service tests."""
    return {"echo": value, "pid": os.getpid()}
