"""What the fault tests share (tests/core/test_faults.py, tests/core/test_frozen_broker.py):
real `celery worker` processes they may kill, data that takes long enough to be killed midway,
polling with a deadline. Nothing here is mocked."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from datasets.models import Dataset, DatasetVersion
from datasets.services.releases import release_dataset

REPO_ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3
VISIBILITY_SECONDS = 6
CHARS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质"


def random_sentence(rng: random.Random) -> str:
    return "".join(rng.choice(CHARS) for _ in range(rng.randint(12, 30))) + "。"


def corrected(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) - 1)
    return text[:at] + rng.choice(CHARS) + text[at + 1 :]


def mucgec_lines(n: int, seed: int) -> tuple[list[str], list[str]]:
    """(MuCGEC import lines "id<TAB>source<TAB>reference", references) of n sentences."""
    rng = random.Random(seed)
    lines, references = [], []
    for index in range(n):
        source = random_sentence(rng)
        reference = corrected(source, rng)
        lines.append(f"{index + 1}\t{source}\t{reference}")
        references.append(reference)
    return lines, references


def released(n: int, seed: int) -> tuple[DatasetVersion, list[str]]:
    """A release of n sentences with one reference each, imported in-process."""
    from config.celery import app
    from datasets.formats import ImportFile
    from datasets.services.imports import import_dataset

    lines, references = mucgec_lines(n, seed=seed)
    name = f"faults-{seed}"
    import_dataset(
        name=name,
        fmt="mucgec",
        files=[ImportFile(name="data.txt", data=("\n".join(lines) + "\n").encode())],
    )
    # Released as in the quick start (no reference extraction queued): the export and the
    # scoring below then extract the references themselves, long enough to be killed midway.
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        version = release_dataset(dataset=Dataset.objects.get(name=name))
    finally:
        app.conf.task_always_eager = previous
    return version, references


def subprocess_database_url() -> str:
    """DATABASE_URL naming the test database (a subprocess must use the same rows)."""
    base_url = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    return f"{base_url}/{connection.settings_dict['NAME']}"


def wait_for(predicate: Any, *, timeout: float, what: str, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


class Worker:
    """A `celery -A config worker` process on `queue` (comma-separated queues), with a short
    lease and visibility timeout; `env` adds to its environment (another REDIS_URL, say)."""

    def __init__(self, queue: str, log: Path, hold_dir: Path, *, env: dict[str, str] | None = None):
        self.queue = queue
        self.log = log
        self.hold_dir = hold_dir
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, *, hold_at_done: int = 0) -> None:
        """Start a worker; with `hold_at_done`, its jobs stop at the first progress report of
        that many units done and wait to be killed (core.jobs._hold_for_fault_test)."""
        env = dict(
            os.environ,
            DATABASE_URL=subprocess_database_url(),
            CELERY_TASK_ALWAYS_EAGER="0",
            GEC_JOB_LEASE_SECONDS=str(LEASE_SECONDS),
            GEC_VISIBILITY_TIMEOUT=str(VISIBILITY_SECONDS),
            GEC_TEST_HOLD_AT_DONE=str(hold_at_done),
            GEC_TEST_HOLD_DIR=str(self.hold_dir),
            PYTHONUNBUFFERED="1",
            **self.env,
        )
        self.starts += 1
        name = f"{self.queue.replace(',', '-')}-{self.starts}@"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        handle = self.log.open("a")
        logged_before = self.log.stat().st_size
        # Its own process group: SIGKILL to the group kills the whole worker (main process
        # and pool children) at once, with no chance to requeue or acknowledge anything.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", self.queue]
            + ["--pool", "prefork", "--concurrency", "1", "--loglevel", "INFO", "-n", name + "%h"],
            cwd=REPO_ROOT,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()

        def ready() -> bool:
            if self.process is not None and self.process.poll() is not None:
                pytest.fail(f"worker exited with {self.process.returncode}; see {self.log}")
            with self.log.open("rb") as log:
                log.seek(logged_before)
                return any(name in line and " ready." in line for line in _lines(log.read()))

        # "<name> ready." is logged once it consumes (on whichever broker its REDIS_URL names).
        wait_for(ready, timeout=60, what=f"the worker to be ready (see {self.log})", step=0.2)

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)


@contextmanager
def worker_on_own_queue(
    name: str,
    log: Path,
    hold_dir: Path,
    *,
    env: dict[str, str] | None = None,
    hold_at_done: int = 0,
) -> Iterator[Worker]:
    """A real worker on a queue of its own, named after `name`; while it runs, this test process
    sends every task to that queue instead of running it in-process. Afterwards the routes and
    the eager setting are restored and whatever a failed test left queued is purged."""
    from config.celery import app

    queue = f"{name}-{os.getpid()}-{random.randrange(10**6)}"
    previous = (app.conf.task_always_eager, app.conf.task_routes)
    app.conf.task_routes = {"*": {"queue": queue}}
    _reload_routes(app)
    subject = Worker(queue, log, hold_dir, env=env)
    try:
        subject.start(hold_at_done=hold_at_done)
        app.conf.task_always_eager = False
        yield subject
    finally:
        subject.stop()
        app.conf.task_always_eager, app.conf.task_routes = previous
        _reload_routes(app)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(queue)


def _reload_routes(app: Any) -> None:
    app.amqp.flush_routes()
    app.amqp.__dict__.pop("router", None)  # a cached_property holding the old routes


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


# --- web requests from a process of their own -------------------------------------------------

# The start of every client script: Django set up with the environment the test gives (another
# REDIS_URL, a short GEC_BROKER_TIMEOUT), a logged-in client, and `timed` recording each
# answer's status, seconds and the start of its body into `results`, printed at the end.
CLIENT_SCRIPT_PRELUDE = r"""
import json, os, time
import django
django.setup()
from django.test import Client
from core.models import User

client = Client()
client.force_login(User.objects.get(username=os.environ["FAULT_USER"]))
results = {}
args = json.loads(os.environ["FAULT_ARGS"])

def timed(name, method, path, **kwargs):
    started = time.monotonic()
    response = getattr(client, method)(path, **kwargs)
    results[name] = {
        "status": response.status_code,
        "seconds": round(time.monotonic() - started, 2),
        "body": response.content.decode("utf-8", "replace")[:20000],
        "location": response.get("Location", ""),
    }
    return response

# Warm the process first (URL conf, views, task modules, the redis transport): the timings
# are then the broker's share, not a cold start's imports on a busy machine.
import kombu.transport.redis  # noqa: F401
import datasets.tasks, scoring.tasks  # noqa: F401,E401
client.get("/datasets/")
"""


def run_client_script(
    body: str, *, user: Any, args: dict[str, Any], env: dict[str, str], timeout: float = 180
) -> dict[str, dict[str, Any]]:
    """Run CLIENT_SCRIPT_PRELUDE + `body` in a fresh Python process on the test database and
    return its `results` (name -> status, seconds, body, location)."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            CLIENT_SCRIPT_PRELUDE + body + '\nprint("RESULTS " + json.dumps(results))\n',
        ],
        cwd=REPO_ROOT,
        env=dict(
            os.environ,
            DATABASE_URL=subprocess_database_url(),
            CELERY_TASK_ALWAYS_EAGER="0",
            DJANGO_SETTINGS_MODULE="config.settings",
            FAULT_USER=user.username,
            FAULT_ARGS=json.dumps(args),
            **env,
        ),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    line = next((x for x in run.stdout.splitlines() if x.startswith("RESULTS ")), None)
    assert line is not None, run.stdout[-2000:] + run.stderr[-4000:]
    results: dict[str, dict[str, Any]] = json.loads(line.removeprefix("RESULTS "))
    print({k: (v["status"], v["seconds"]) for k, v in results.items()})  # shown with -s
    return results
