"""Worker pools start from a fork server, never by forking the caller.

A caller that has used the broker holds kombu/Redis connections; a child forked from it
ran kombu's after-fork clean-up on those sockets and hung (seen in the PostgreSQL + Redis
suite: a worker round trip, then `parallel_to_m2(workers=2)`). A child whose parent is the
fork server inherits none of the caller's connections.
"""

from __future__ import annotations

import os
import sys

from gecscore.processes import PRELOADED_MODULES, worker_context


def _parent_and_preloaded(_: int) -> tuple[int, bool]:
    return os.getppid(), all(name in sys.modules for name in PRELOADED_MODULES)


def test_workers_are_not_children_of_the_caller_and_start_warm() -> None:
    with worker_context().Pool(2) as pool:
        results = pool.map(_parent_and_preloaded, range(4))
    assert all(parent != os.getpid() for parent, _ in results)
    assert all(preloaded for _, preloaded in results)
