"""Benchmark: a judgment campaign's results page and API, cold, served from storage, and
the job that computes them.

    .venv/bin/python benchmarks/judgment_results.py [--shared ../shared] [--before REV]
        [--database-url postgres://USER@127.0.0.1:5432/SCRATCH] [--json OUT.json]

In a fresh database (SQLite in a temporary folder, or --database-url: a scratch database,
flushed first) the product's `import_judgments` loads RevisitCGEC's judgments (1,000 items,
15,000 pairwise comparisons, 6 systems), GJG15's (2,319 items, 109,098 comparisons, 13
systems) and one Appraise item of 20,000 systems. For RevisitCGEC and GJG15:

- nothing stored yet: the import queued the default results' job (tasks are not run in
  process here: CELERY_TASK_ALWAYS_EAGER=0 and no worker takes the message); the first GET
  of the page and of the API in a fresh process (202 / the page's progress bar);
- the job: that queued job (the default results: both methods, 200 bootstrap resamples,
  1,000 TrueSkill runs; the page's and the API's default) run in a process of its own, as a
  worker runs it: wall seconds, the RSS of that process once Django is up and at its peak,
  and the peak RSS of its TrueSkill worker processes and of all together (sampled from
  /proc every 0.2 s);
- cold reads: in a fresh process each (DJANGO_DEBUG=0), the first GET of the results page,
  then of the API, as a campaign admin through Django's test client, then each once more
  (warm): wall seconds and status. "Cold" = the first request of a process that has never
  answered one;
- with --before REV: the same reads against the platform code of REV (a git worktree in the
  temporary folder; the metric library stays this checkout's, which gives the same numbers)
  on the same database: the code that computed the results in the request.

The 20,000-system item: the API's answer (a 400 naming GEC_RESULTS_MAX_SYSTEMS_PER_ITEM), and
the job over it with the items' stored system counts wiped (it stops at the item while
reading): seconds and peak RSS. The load average is printed before each step: on a shared
2-core machine it dominates wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ADMIN = "bench-results-admin"

# Run in a process of its own, with the campaign name as argv[1]: the results job's body,
# as a worker runs it (prints JSON: seconds, RSS).
JOB_SCRIPT = r"""
import json, os, sys, threading, time
import django
django.setup()
from core.jobs import LIVE, run_claimed, start_job
from core.models import BackgroundJob
from judgments import results, results_job
from judgments.models import Campaign, CampaignResults, Item

def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0

def descendants(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found

peak = {"self": 0.0, "others": 0.0, "total": 0.0}
running = True
def sample():
    me = os.getpid()
    while running:
        own = rss_mb(me)
        others = sum(rss_mb(pid) for pid in descendants(me))
        peak["self"] = max(peak["self"], own)
        peak["others"] = max(peak["others"], others)
        peak["total"] = max(peak["total"], own + others)
        time.sleep(0.2)

name, wipe = sys.argv[1], sys.argv[2] == "wipe"
campaign = Campaign.objects.get(name=name)
if wipe:  # counts from before they were stored: the job must stop at the item as it reads
    from django.conf import settings
    settings.GEC_RESULTS_MAX_SYSTEMS = 10**9
    Item.objects.filter(campaign=campaign).update(system_count=2)
params = results.parameters({}, campaign)
row, _ = CampaignResults.objects.get_or_create(campaign=campaign, **params.as_dict())
job = row.job if row.job is not None and row.job.status in LIVE else None
if job is None:  # as the import queued it, else as a read would
    job = start_job(kind=results.JOB_KIND_RESULTS, params={"results": row.pk},
                    total=results_job.progress_units(params.method, params.runs, edits=False))
    CampaignResults.objects.filter(pk=row.pk).update(job=job)
start = rss_mb(os.getpid())
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
started = time.perf_counter()
run_claimed(job.pk, results_job.run_results_job)
seconds = time.perf_counter() - started
running = False
sampler.join()
job = BackgroundJob.objects.get(pk=job.pk)
print(json.dumps({
    "seconds": round(seconds, 2), "status": job.status, "message": job.message,
    "rss_start_mb": round(start, 1), "rss_peak_mb": round(peak["self"], 1),
    "workers_peak_mb": round(peak["others"], 1), "all_processes_peak_mb": round(peak["total"], 1),
}))
"""

# A fresh process: GET the page, then the API (cold), then each again (warm).
READ_SCRIPT = r"""
import json, sys, time
import django
django.setup()
from django.test import Client
from core.models import User
from judgments.models import Campaign
campaign = Campaign.objects.get(name=sys.argv[1])
client = Client()
client.force_login(User.objects.get(username=sys.argv[2]))
out = {}
for label, url in (("page", f"/judgments/{campaign.pk}/results/"),
                   ("api", f"/api/judgments/campaigns/{campaign.pk}/results/")):
    for attempt in ("cold", "warm"):
        started = time.perf_counter()
        response = client.get(url, secure=True)
        out[f"{label}_{attempt}_s"] = round(time.perf_counter() - started, 3)
        out[f"{label}_{attempt}_status"] = response.status_code
print(json.dumps(out))
"""

SETUP_SCRIPT = r"""
import json, sys
import django
django.setup()
from core.roles import Role
from core.services import create_user
from judgments.models import Campaign
admin = create_user(username=sys.argv[1], password="bench-results-password-1",
                    roles=[Role.ADMIN], is_superuser=False)
for campaign in Campaign.objects.all():
    campaign.admins.add(admin)
print(json.dumps({"admin": admin.username}))
"""


def _wide_xml(path: Path, systems: int) -> Path:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<appraise-results>",
        '<error-correction-ranking-result id="wide">',
        '<ranking-item src-id="1" id="1" user="ann1">',
        *(f'<translation rank="{i % 5 + 1}" system="s{i:05d}"/>' for i in range(systems)),
        "</ranking-item>",
        "</error-correction-ranking-result>",
        "</appraise-results>",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(env: dict[str, str], code: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *args], env=env, cwd=code, capture_output=True, text=True
    )
    if done.returncode:
        sys.stderr.write(done.stderr[-4000:])
        done.check_returncode()
    return done


def _python(env: dict[str, str], code: Path, script: str, *args: str) -> dict[str, Any]:
    out = _run(env, code, "-c", script, *args)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--before", help="a git revision: also read through its code")
    parser.add_argument("--database-url", help="a scratch PostgreSQL database (flushed)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = args.shared / "data"
    campaigns = {
        "RevisitCGEC": data / "revisitcgec" / "judgments.xml",
        "GJG15": data / "conll14" / "human" / "judgments.xml",
    }
    report: dict[str, Any] = {"cores": os.cpu_count(), "steps": []}
    with tempfile.TemporaryDirectory(prefix="gec-judgment-results-") as tmp:
        folder = Path(tmp)
        env = {
            **os.environ,
            "GEC_VAR_DIR": str(folder / "var"),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "benchmark-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz",
            "DJANGO_ALLOWED_HOSTS": "testserver",
            "DJANGO_STATIC_MANIFEST": "0",
            "PYTHONPATH": str(REPO),
        }
        # No broker: a queued task's message goes to Celery's in-memory transport and no
        # worker takes it (as when the worker is busy); the job is run by hand below, as a
        # worker runs it. CELERY_TASK_ALWAYS_EAGER=0, so nothing runs inside a request.
        env.pop("REDIS_URL", None)
        env["CELERY_TASK_ALWAYS_EAGER"] = "0"
        env.pop("DATABASE_URL", None)
        if args.database_url:
            env["DATABASE_URL"] = args.database_url
        _run(env, REPO, "manage.py", "migrate", "-v0")
        if args.database_url:
            _run(env, REPO, "manage.py", "flush", "--noinput")
        wide = _wide_xml(folder / "wide.xml", 20_000)
        for name, path in {**campaigns, "wide-20000": wide}.items():
            started = time.perf_counter()
            _run(env, REPO, "manage.py", "import_judgments", str(path), "--campaign", name)
            print(f"imported {name} in {time.perf_counter() - started:.1f} s")
        _python(env, REPO, SETUP_SCRIPT, ADMIN)
        before_code: Path | None = None
        if args.before:
            before_code = folder / "before"
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(before_code), args.before],
                cwd=REPO,
                check=True,
                capture_output=True,
            )
        try:
            for name in campaigns:
                if before_code is not None:
                    old_env = {**env, "PYTHONPATH": str(before_code)}
                    step = {"campaign": name, "code": args.before, "load": _load()}
                    step.update(_python(old_env, before_code, READ_SCRIPT, name, ADMIN))
                    print(json.dumps(step))
                    report["steps"].append(step)
                step = {"campaign": name, "code": "this checkout", "load": _load()}
                # nothing stored yet: the import queued the job, no worker has run it
                empty = _python(env, REPO, READ_SCRIPT, name, ADMIN)
                step["nothing_stored"] = {k: v for k, v in empty.items() if "cold" in k}
                step["job"] = _python(env, REPO, JOB_SCRIPT, name, "keep")
                step["load_after_job"] = _load()
                step.update(_python(env, REPO, READ_SCRIPT, name, ADMIN))
                print(json.dumps(step))
                report["steps"].append(step)
            step = {"campaign": "wide-20000", "code": "this checkout", "load": _load()}
            step.update(_python(env, REPO, READ_SCRIPT, "wide-20000", ADMIN))
            step["job_with_wiped_counts"] = _python(env, REPO, JOB_SCRIPT, "wide-20000", "wipe")
            print(json.dumps(step))
            report["steps"].append(step)
        finally:
            if before_code is not None:
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(before_code)],
                    cwd=REPO,
                    capture_output=True,
                )
    report["load_end"] = _load()
    print(f"load average {report['load_end']} on {os.cpu_count()} cores")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
