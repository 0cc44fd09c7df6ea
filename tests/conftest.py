"""Suite-wide fixtures.

`shared_dir` points at the read-only ground-truth folder that lives beside the
repository (`../shared`). Tests and benchmarks may read it; the product never does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.parallel import setup_worker_environments, worker_log

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("GEC_SHARED_DIR", REPO_ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED_DIR / "data").is_dir():
        message = f"ground-truth folder {SHARED_DIR} is not present (set GEC_SHARED_DIR)"
        if os.environ.get("GEC_REQUIRE_SHARED") == "1":  # as .ci/run sets: fail, never skip
            pytest.fail(f"GEC_REQUIRE_SHARED=1 and the {message}")
        pytest.skip(message)
    return SHARED_DIR


@pytest.fixture(scope="session")
def shared_data(shared_dir: Path) -> Path:
    return shared_dir / "data"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):  # type: ignore[no-untyped-def]
    """Every test hashes passwords with MD5 first. Django's PBKDF2 (1,000,000 iterations)
    costs 0.4-0.6 s per user or password login on this 2-core machine, and the suite creates
    hundreds of users: it was a third of the platform's run. The production hashers stay
    listed after it, so a hash made elsewhere still verifies; subprocesses (the Celery worker,
    the fault kit's web process) log in with force_login or not at all."""
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[object]) -> None:
    """`-n 2`: each worker its own var/ folder and Redis database (tests/parallel.py)."""
    setup_worker_environments(specs)


# --- services: PostgreSQL, Redis and a real Celery worker ------------------------------------
# Tests marked `services` run only when DATABASE_URL (PostgreSQL) and REDIS_URL are set.
# With GEC_REQUIRE_SERVICES=1 (as .ci/run sets) a missing service fails instead of skipping.


def services_configured() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(
        os.environ.get("REDIS_URL")
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if services_configured():
        return
    if os.environ.get("GEC_REQUIRE_SERVICES") == "1":
        return  # the `celery_worker_process` fixture / DB access will fail loudly
    skip = pytest.mark.skip(reason="needs DATABASE_URL=postgres://... and REDIS_URL (see .ci/run)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    """A real `celery worker` process consuming both queues from Redis, on the test database."""
    import subprocess
    import sys
    import time

    from django.db import connection

    if not services_configured():
        pytest.fail("celery_worker_process needs DATABASE_URL (PostgreSQL) and REDIS_URL")
    with django_db_blocker.unblock():
        test_db_name = connection.settings_dict["NAME"]
    base_url = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    env = dict(
        os.environ,
        DATABASE_URL=f"{base_url}/{test_db_name}",
        CELERY_TASK_ALWAYS_EAGER="0",
        PYTHONUNBUFFERED="1",
    )
    log_path = worker_log("celery-worker")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "default,gpu",
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            "-n",
            f"test-{os.getpid()}@%h",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    from config.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            pytest.fail(f"celery worker exited with {worker.returncode}; see {log_path}")
        replies = app.control.ping(timeout=1.0)
        if replies:
            break
    else:
        worker.terminate()
        pytest.fail(f"celery worker did not answer within 60 s; see {log_path}")
    yield worker
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
    log.close()


@pytest.fixture
def celery_worker(celery_worker_process):  # type: ignore[no-untyped-def]
    """Within the test, tasks go through Redis to the real worker process (not in-process).

    The worker reads the database over its own connection, so such tests must use
    `transactional_db` (rows committed), not `db`.
    """
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield celery_worker_process
    app.conf.task_always_eager = previous
