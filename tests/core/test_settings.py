from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import database_from_url, env_bool, env_float, env_int, env_list
from tests.conftest import REPO_ROOT


def test_env_bool_reads_common_spellings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEC_X", "yes")
    assert env_bool("GEC_X") is True
    monkeypatch.setenv("GEC_X", "0")
    assert env_bool("GEC_X", True) is False
    monkeypatch.delenv("GEC_X")
    assert env_bool("GEC_X", True) is True


def test_env_bool_rejects_garbage_with_the_variable_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEC_X", "maybe")
    with pytest.raises(ImproperlyConfigured, match="GEC_X"):
        env_bool("GEC_X")


def test_env_int_and_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEC_N", "12")
    monkeypatch.setenv("GEC_HOSTS", "a.example, b.example,,")
    assert env_int("GEC_N", 3) == 12
    assert env_list("GEC_HOSTS") == ["a.example", "b.example"]
    monkeypatch.setenv("GEC_N", "twelve")
    with pytest.raises(ImproperlyConfigured, match="GEC_N"):
        env_int("GEC_N", 3)


def test_env_float(monkeypatch: pytest.MonkeyPatch) -> None:
    assert env_float("GEC_WAIT", 1.0) == 1.0
    monkeypatch.setenv("GEC_WAIT", "0.25")
    assert env_float("GEC_WAIT", 1.0) == 0.25
    monkeypatch.setenv("GEC_WAIT", "a second")
    with pytest.raises(ImproperlyConfigured, match="GEC_WAIT='a second' is not a number"):
        env_float("GEC_WAIT", 1.0)


def test_database_url_becomes_a_postgresql_entry() -> None:
    entry = database_from_url("postgres://gec:s%40cret@db.internal:6543/gec?sslmode=require")
    assert entry["ENGINE"] == "django.db.backends.postgresql"
    assert (entry["NAME"], entry["USER"], entry["PASSWORD"]) == ("gec", "gec", "s@cret")
    assert (entry["HOST"], entry["PORT"]) == ("db.internal", "6543")
    assert entry["OPTIONS"] == {"sslmode": "require"}


@pytest.mark.parametrize("url", ["mysql://h/db", "postgres://host/"])
def test_bad_database_url_is_refused_clearly(url: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        database_from_url(url)


def _manage(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_under_production_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = _manage(
        ["check", "--deploy", "--fail-level", "DEBUG"],
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="x7#k2!pQz9@LmN4$vB8^wR1&yT6*uE3(oI5)aS0-dF7+gH2=jK9_cX4~zV8",
        DJANGO_ALLOWED_HOSTS="gec.example.org",
        GEC_VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_without_secret_key_refuses_to_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = _manage(["check"], DJANGO_DEBUG="0", GEC_VAR_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_quick_start_defaults_are_sqlite_and_in_process_tasks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, "
        "__import__('os').environ['HF_HUB_OFFLINE'])"
    )
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER", "HF_HUB_OFFLINE"}
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", "GEC_VAR_DIR": str(tmp_path)},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True", "1"]
    assert (tmp_path / "db.sqlite3").parent.is_dir()
