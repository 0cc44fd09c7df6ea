"""`manage.py` commands run as real subprocesses on the test database, stopped at a known
point and killed there (tests/publishing/test_killed_publish.py,
tests/scoring_app/test_revisitcgec_import.py).

The stop: tests/publishing/stop_before/sitecustomize.py, put on the subprocess's PYTHONPATH,
adds an audit hook that sends SIGSTOP to the process just before the file operation
`stop_before` names ("<audit event> <path glob>"). The product has no hook of its own.

The database: on PostgreSQL the subprocess uses the test database itself (the test must be
`django_db(transaction=True)`, so that its rows are committed); on SQLite it gets a copy of
the test database as its own (GEC_VAR_DIR), read back with `rows_in`."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

REPO_ROOT = Path(__file__).resolve().parents[1]
STOP_BEFORE = REPO_ROOT / "tests" / "publishing" / "stop_before"


def manage_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a `manage.py` subprocess that sees the test's committed rows."""
    env = {k: v for k, v in os.environ.items() if k != "PUBLISH_TEST_STOP_BEFORE"}
    if connection.vendor == "postgresql":
        from tests.core.faultkit import subprocess_database_url

        env["DATABASE_URL"] = subprocess_database_url()
    else:
        env.pop("DATABASE_URL", None)
        var = tmp_path / "subprocess-var"
        var.mkdir()
        source = sqlite3.connect(str(connection.settings_dict["NAME"]))
        copy = sqlite3.connect(str(var / "db.sqlite3"))
        source.backup(copy)
        source.close()
        copy.close()
        env["GEC_VAR_DIR"] = str(var)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(STOP_BEFORE), env.get("PYTHONPATH")]))
    return env


def rows_in(env: dict[str, str], table: str) -> int:
    """Rows of `table` in the database the subprocesses of `env` use."""
    if "GEC_VAR_DIR" in env and "DATABASE_URL" not in env:
        with contextlib.closing(sqlite3.connect(Path(env["GEC_VAR_DIR"]) / "db.sqlite3")) as db:
            return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table}")
        return int(cursor.fetchone()[0])


def start_manage(
    args: list[str], env: dict[str, str], log: Path, *, stop_before: str = ""
) -> subprocess.Popen[bytes]:
    """`manage.py ARGS` in a session of its own (so `end_group` reaches any pool process it
    started), stderr to `log`."""
    with log.open("wb") as handle:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=REPO_ROOT,
            env={**env, "PUBLISH_TEST_STOP_BEFORE": stop_before},
            stdout=subprocess.DEVNULL,
            stderr=handle,
            start_new_session=True,
        )


def wait_until_stopped(process: subprocess.Popen[bytes], log: Path, what: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"the command ended ({process.returncode}) before {what}: {log.read_text()}"
            )
        stat = Path(f"/proc/{process.pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "T":  # stopped
            return
        time.sleep(0.02)
    pytest.fail(f"the command did not reach {what} in 120 s: {log.read_text()}")


def kill_stopped(process: subprocess.Popen[bytes], signum: int) -> int:
    """Send `signum` to the stopped command (and let it run, so that a signal it handles is
    handled), wait for it to end; returns its exit status."""
    os.kill(process.pid, signum)
    os.kill(process.pid, signal.SIGCONT)
    return process.wait(timeout=60)


def end_group(process: subprocess.Popen[bytes]) -> None:
    """Whatever is left of the command's session (a pool process, a command a failed test
    left stopped) is killed."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
