"""Put on PYTHONPATH by tests/manage_subprocess.py for the `manage.py` processes the tests
kill, and by nothing else: Python imports `sitecustomize` at start-up, and this one adds an
audit hook (PEP 578) that stops the process with SIGSTOP just before the file operation named
by PUBLISH_TEST_STOP_BEFORE ("<audit event> <glob of the path>", e.g. "open */README.md").
The test then kills the stopped process at a known stage, on a fast machine or a loaded one;
the product has no hook of its own for this.
"""

from __future__ import annotations

import fnmatch
import os
import signal
import sys
from typing import Any

_SPEC = os.environ.get("PUBLISH_TEST_STOP_BEFORE", "")


def _path_of(event: str, args: tuple[Any, ...]) -> str | None:
    # open: (path, mode, flags); os.mkdir: (path, mode, dir_fd); os.rename: (src, dst, ...)
    path = args[1] if event == "os.rename" else args[0]
    if isinstance(path, int):
        return None  # a file descriptor
    return os.fsdecode(os.fspath(path))


def _install(spec: str) -> None:
    wanted_event, pattern = spec.split(" ", 1)
    stopped = False

    def hook(event: str, args: tuple[Any, ...]) -> None:
        nonlocal stopped
        if stopped or event != wanted_event:
            return
        path = _path_of(event, args)
        if path is not None and fnmatch.fnmatch(path, pattern):
            stopped = True
            os.kill(os.getpid(), signal.SIGSTOP)

    sys.addaudithook(hook)


if _SPEC:
    _install(_SPEC)
