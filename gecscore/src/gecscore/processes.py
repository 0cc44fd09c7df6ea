"""Worker processes for the library's parallel paths (``--workers``, large exports).

Workers start from a fork server, never by forking the caller. A caller that has talked to
a message broker (a Celery worker, a Django process that queued a task) holds kombu/Redis
connections; in a plainly forked child, kombu's after-fork clean-up tries to close them
over the inherited socket and blocks forever. The fork server is a fresh interpreter that
has only imported the metric modules (``gecscore.warmup``), so workers start warm and
inherit nothing the caller holds; what they need (options, resources) is passed to them.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

__all__ = [
    "PRELOADED_MODULES",
    "worker_context",
]

PRELOADED_MODULES = ["gecscore.warmup"]


def worker_context() -> BaseContext:
    """The multiprocessing context every pool of the product uses."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Takes effect when this process first starts its fork server; later calls no-op.
        context.set_forkserver_preload(PRELOADED_MODULES)
        return context
    return multiprocessing.get_context("spawn")
