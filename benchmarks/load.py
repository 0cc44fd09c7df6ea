"""Load test: N concurrent annotators against gunicorn + PostgreSQL + Redis + a
Celery worker, each with a real logged-in session, looping GET /annotate/next/ -> GET the
annotate page -> POST a correction, bounded in requests and in time.

Prints, per endpoint, client-side and server-side (the `gec.request` log line's
duration_ms) p50/p95/p99, errors, throughput and the load average; then checks in the
database that every accepted submission is stored exactly once.

It builds its own database (dropped and created: `--database-url`, default
postgres://gec_ci@127.0.0.1:5432/gec_load), a Redis DB of its own (`--redis-url`), a
temporary var dir and static root, and runs the server as in production: DEBUG off, the
proxy's `X-Forwarded-Proto: https` header sent by the client.

    .venv/bin/python benchmarks/load.py --annotators 50 --duration 60 --workers 3 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CHARS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return f"{at(0.50):7.1f} {at(0.95):7.1f} {at(0.99):7.1f}"


def recreate_database(url: str) -> None:
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def server_env(args: argparse.Namespace, var_dir: str) -> dict[str, str]:
    return dict(
        os.environ,
        DATABASE_URL=args.database_url,
        REDIS_URL=args.redis_url,
        GEC_VAR_DIR=var_dir,
        DJANGO_STATIC_ROOT=str(Path(var_dir) / "static"),
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_LOG_LEVEL="INFO",
        CELERY_TASK_ALWAYS_EAGER="0",
        PYTHONUNBUFFERED="1",
    )


def prepare(args: argparse.Namespace, env: dict[str, str]) -> list[tuple[str, str]]:
    """Migrate, collect static files, create annotators (with sessions) and a dataset with
    k assignments per sentence. Returns (username, session key) per annotator."""
    os.environ.update(env)
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from core.roles import Role
    from core.services import create_user
    from datasets.models import Dataset, Sentence, Source
    from review.workflow import assign_dataset

    annotators = [
        create_user(username=f"load-a{i}", password="x" * 12, roles=[Role.ANNOTATOR])
        for i in range(args.annotators)
    ]
    reviewer = create_user(username="load-r", password="x" * 12, roles=[Role.REVIEWER])
    rng = random.Random(16)
    dataset = Dataset.objects.create(name="load", annotators_per_sentence=args.k)
    source = Source.objects.create(dataset=dataset, name="load")
    Sentence.objects.bulk_create(
        [
            Sentence(
                dataset=dataset,
                source=source,
                split="dev",
                external_id=str(i + 1),
                position=i,
                text="".join(rng.choice(CHARS) for _ in range(rng.randint(15, 40))) + "。",
            )
            for i in range(args.sentences)
        ]
    )
    dataset.annotators.set(annotators)
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=1, by=None)
    sessions = []
    for user in annotators:
        # A real database session, as the login view writes it (the login form itself is
        # not what is measured; PBKDF2 would cost 50 x 0.5 s of server CPU first).
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions.append((user.username, str(store.session_key)))
    return sessions


class Annotator(threading.Thread):
    def __init__(
        self,
        base: str,
        session_key: str,
        stop_at: float,
        budget: Any,
        seed: int,
        measure_from: float = 0.0,
    ):
        super().__init__(daemon=True)
        import requests

        self.base = base
        self.http = requests.Session()
        csrf = secrets.token_hex(16)  # 32 characters: an unmasked CSRF secret
        self.csrf = csrf
        self.http.headers.update(
            {
                # The proxy in front of gunicorn says the request came over HTTPS; secure
                # cookies are therefore sent by hand.
                "X-Forwarded-Proto": "https",
                "Cookie": f"sessionid={session_key}; csrftoken={csrf}",
            }
        )
        self.stop_at = stop_at
        # Requests before this (the warm-up: each gunicorn worker loads the edit-extraction
        # resources on its first correction) are made but not timed.
        self.measure_from = measure_from
        self.budget = budget
        self.rng = random.Random(seed)
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.accepted: list[int] = []

    def _request(self, name: str, method: str, url: str, **kwargs: Any) -> Any:
        if not self.budget.take():
            return None
        started = time.perf_counter()
        try:
            response = self.http.request(
                method, self.base + url, allow_redirects=False, timeout=30, **kwargs
            )
        except Exception as exc:
            self.errors.append(f"{name}: {exc}")
            return None
        if started >= self.measure_from_perf:
            self.timings[name].append((time.perf_counter() - started) * 1000)
        return response

    @property
    def measure_from_perf(self) -> float:
        return time.perf_counter() - (time.monotonic() - self.measure_from)

    def run(self) -> None:
        while time.monotonic() < self.stop_at:
            response = self._request("GET next", "GET", "/annotate/next/")
            if response is None:
                return
            location = response.headers.get("Location", "")
            if response.status_code != 302:
                self.errors.append(f"GET next: {response.status_code}")
                continue
            match = re.search(r"/annotate/a/(\d+)/", location)
            if match is None:
                return  # nothing left for this annotator
            page_url = f"/annotate/a/{match.group(1)}/"
            page = self._request("GET page", "GET", page_url)
            if page is None:
                return
            token = CSRF.search(page.text) if page.status_code == 200 else None
            if token is None:
                self.errors.append(f"GET page: {page.status_code}")
                continue
            source = re.search(r'"source": "((?:[^"\\]|\\.)*)"', page.text)
            text = json.loads(f'"{source.group(1)}"') if source else "改正。"
            at = self.rng.randrange(max(1, len(text) - 1))
            replacement = self.rng.choice([c for c in CHARS[:40] if c != text[at]])
            corrected = text[:at] + replacement + text[at + 1 :]
            posted = self._request(
                "POST correction",
                "POST",
                page_url,
                data={
                    "csrfmiddlewaretoken": self.csrf,
                    "text": corrected,
                    "tag": "",
                    "time_spent_seconds": "7",
                },
                # HTTPS requests need a same-origin Referer for CSRF (as a browser sends).
                headers={"Referer": self.base.replace("http://", "https://") + page_url},
            )
            if posted is None:
                return
            if posted.status_code == 302 and "/annotate/next/" in posted.headers.get(
                "Location", ""
            ):
                self.accepted.append(int(match.group(1)))
            else:
                self.errors.append(f"POST correction: {posted.status_code}")


class Budget:
    def __init__(self, total: int):
        self.left = total
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True


def server_timings(log: Path, since: float) -> dict[str, list[float]]:
    """Durations from the `gec.request` lines logged after `since` (epoch seconds)."""
    from datetime import datetime

    timings: dict[str, list[float]] = defaultdict(list)
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"gec.request"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        ended_at = datetime.fromisoformat(record["time"]).timestamp()
        if ended_at - float(record.get("duration_ms", 0)) / 1000 < since:
            continue  # started during the warm-up
        path, method = record.get("path", ""), record.get("method", "")
        if path == "/annotate/next/":
            name = "GET next"
        elif re.fullmatch(r"/annotate/a/\d+/", path):
            name = f"{method} {'page' if method == 'GET' else 'correction'}"
        else:
            continue
        timings[name].append(float(record["duration_ms"]))
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of measured load")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of untimed load first")
    parser.add_argument("--max-requests", type=int, default=15000)
    # The defaults are what suits 2 cores (docs/benchmarks.md); --threads 1 gives sync workers.
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--database-url", default="postgres://gec_ci@127.0.0.1:5432/gec_load")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="gec-load-")
    recreate_database(args.database_url)
    env = server_env(args, var_dir)
    subprocess.run(["redis-cli", "-u", args.redis_url, "flushdb"], check=False, capture_output=True)
    started = time.perf_counter()
    sessions = prepare(args, env)
    print(
        f"set-up: {len(sessions)} annotators, {args.sentences} sentences x k={args.k} "
        f"in {time.perf_counter() - started:.1f} s; var dir {var_dir}"
    )

    log = Path(var_dir) / "gunicorn.log"
    worker_log = Path(var_dir) / "worker.log"
    python_bin = Path(sys.executable)
    gunicorn = subprocess.Popen(
        [
            str(python_bin.parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{args.port}",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--timeout",
            "60",
        ],
        cwd=REPO,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "default",
            "--concurrency",
            "1",
            "--loglevel",
            "WARNING",
        ],
        cwd=REPO,
        env=env,
        stdout=worker_log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        import requests

        base = f"http://127.0.0.1:{args.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                health = requests.get(
                    base + "/healthz", headers={"X-Forwarded-Proto": "https"}, timeout=5
                )
                if health.status_code in (200, 503):
                    break
            except requests.RequestException:
                pass
            time.sleep(0.5)
        else:
            print("gunicorn did not start; see", log, file=sys.stderr)
            return 1
        load_before = os.getloadavg()
        budget = Budget(args.max_requests)
        measure_from = time.monotonic() + args.warmup
        stop_at = measure_from + args.duration
        clients = [
            Annotator(base, key, stop_at, budget, seed=i, measure_from=measure_from)
            for i, (_, key) in enumerate(sessions)
        ]
        measure_from_epoch = time.time() + args.warmup
        for client in clients:
            client.start()
        load_during: list[tuple[float, float, float]] = []
        while any(c.is_alive() for c in clients):
            time.sleep(5)
            if time.monotonic() >= measure_from:
                load_during.append(os.getloadavg())
        wall = min(args.duration, time.monotonic() - measure_from)
        load_after = os.getloadavg()
    finally:
        gunicorn.terminate()
        worker.terminate()
        gunicorn.wait(timeout=30)
        worker.wait(timeout=30)

    client_timings: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    accepted: list[int] = []
    for client in clients:
        for name, values in client.timings.items():
            client_timings[name].extend(values)
        errors.extend(client.errors)
        accepted.extend(client.accepted)
    on_server = server_timings(log, measure_from_epoch)
    total = sum(len(v) for v in client_timings.values())
    print(
        f"\n{args.annotators} annotators, gunicorn {args.workers} workers x {args.threads} "
        f"threads, {os.cpu_count()} cores; {total} requests in {wall:.1f} s "
        f"({total / wall:.0f} req/s) after {args.warmup:.0f} s of warm-up; "
        f"{len(accepted)} submissions accepted in all, {len(errors)} errors"
    )
    print(f"{'endpoint':18} {'n':>6}  client ms p50/p95/p99   server ms p50/p95/p99")
    for name in ("GET next", "GET page", "POST correction"):
        print(
            f"{name:18} {len(client_timings[name]):6d}  {percentiles(client_timings[name])}"
            f"   {percentiles(on_server[name])}"
        )
    peak = max((x[0] for x in load_during), default=load_after[0])
    print(
        f"load average (1/5/15 min): before {load_before[0]:.2f}/{load_before[1]:.2f}/"
        f"{load_before[2]:.2f}, peak 1-min during {peak:.2f}, after {load_after[0]:.2f}/"
        f"{load_after[1]:.2f}/{load_after[2]:.2f}"
    )
    if errors:
        print("first errors:", errors[:5])

    # Every accepted submission stored exactly once, nothing stored that was not accepted.
    from django.db.models import Count

    from annotate.models import Submission

    per_assignment = dict(
        Submission.objects.filter(assignment__sentence__dataset__name="load")
        .values_list("assignment_id")
        .annotate(n=Count("id"))
        .values_list("assignment_id", "n")
    )
    duplicates = {a: n for a, n in per_assignment.items() if n != 1}
    lost = sorted(set(accepted) - set(per_assignment))
    unexpected = sorted(set(per_assignment) - set(accepted))
    repeated_accepts = len(accepted) - len(set(accepted))
    print(
        f"stored: {len(per_assignment)} assignments with submissions; duplicated "
        f"{len(duplicates)}, lost {len(lost)}, stored but not accepted {len(unexpected)}, "
        f"accepted twice {repeated_accepts}"
    )
    ok = not errors and not duplicates and not lost and not unexpected and not repeated_accepts
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
