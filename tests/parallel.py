"""The suite on several cores (pytest-xdist, `-n 2`): each worker process its own files and
Redis database, so that two workers never share a file, a cache entry or a queue.

pytest-django already gives each worker its own test database (`..._gw0`, `..._gw1`). Our
settings read everything else from the environment once, when Django starts, which in a
worker is before any conftest runs; so the controller sets each worker's environment as it
starts the worker (`pytest_xdist_setupnodes`, execnet's `env:` for the worker process), and
Django, the session's Celery worker and every subprocess a test starts all see the same
per-worker values:

- GEC_VAR_DIR=var/xdist/<slot>: the SQLite test database, uploads (MEDIA_ROOT) and the
  BERTScore weight cache. An explicit DJANGO_MEDIA_ROOT or GEC_WEIGHT_CACHE_DIR gets
  /<slot> appended instead.
- REDIS_URL: database n + slot for worker slot (redis://host/14 -> 14 and 15 with `-n 2`);
  broker queues, results, the cache and Celery's broadcast (`control.ping`) all live in it.
- OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS: the cores divided among the workers
  (`thread_limits`), unless set already. torch and BLAS otherwise start one thread per core
  in every worker; with two workers on two cores their spinning threads fight, and the
  suite's torch tests took 70 s instead of 16 s.

Run without `-n` (or with `-n 0`) nothing here applies. Logs a test writes under artifacts/
take the worker's id in their name (`worker_log`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO_ROOT = Path(__file__).resolve().parents[1]
REDIS_DATABASES = 16  # Redis's default `databases`


def worker_env(slot: int, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment variables worker `slot` (0, 1, ...) runs with."""
    env: dict[str, str] = {}
    var_dir = Path(environ.get("GEC_VAR_DIR") or REPO_ROOT / "var")
    env["GEC_VAR_DIR"] = str(var_dir / "xdist" / f"w{slot}")
    for name in ("DJANGO_MEDIA_ROOT", "GEC_WEIGHT_CACHE_DIR"):
        if environ.get(name):
            env[name] = str(Path(environ[name]) / f"w{slot}")
    redis_url = environ.get("REDIS_URL")
    if redis_url:
        env["REDIS_URL"] = _redis_url_for_slot(redis_url, slot)
    return env


def _redis_url_for_slot(url: str, slot: int) -> str:
    parts = urlsplit(url)
    path = parts.path.strip("/")
    base = int(path) if path.isdigit() else 0
    db = base + slot
    if db >= REDIS_DATABASES:
        raise RuntimeError(
            f"REDIS_URL={url}: parallel test worker {slot} would need Redis database {db}, "
            f"and Redis has 0-{REDIS_DATABASES - 1}; point REDIS_URL at a lower database "
            f"(each worker uses the next one) or run fewer workers (-n)"
        )
    return urlunsplit(parts._replace(path=f"/{db}"))


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def thread_limits(workers: int, cores: int, environ: Mapping[str, str]) -> dict[str, str]:
    """The compute threads each of `workers` processes may start on `cores` cores (at least
    one); a variable the caller set is left as it is. The library's suite has its own copy
    (gecscore/tests/conftest.py): the two `tests` packages cannot import each other."""
    threads = str(max(1, cores // max(1, workers)))
    return {name: threads for name in THREAD_VARIABLES if name not in environ}


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def setup_worker_environments(specs: Sequence[Any]) -> None:
    """pytest_xdist_setupnodes: give each execnet worker spec its own environment."""
    threads = thread_limits(len(specs), available_cores(), os.environ)
    for slot, spec in enumerate(specs):
        spec.env.update(worker_env(slot, os.environ))
        spec.env.update(threads)


def worker_log(name: str) -> Path:
    """artifacts/<name>.log, or artifacts/<name>-gw0.log in xdist worker gw0."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return REPO_ROOT / "artifacts" / (f"{name}-{worker}.log" if worker else f"{name}.log")
