"""No Docker engine runs here, so the compose file is checked against the code base."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

COMPOSE = REPO_ROOT / "docker" / "compose.yaml"
APP_SERVICES = ("web", "worker", "gpu-worker")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def _command_words(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    words = shlex.split(command) if isinstance(command, str) else list(command)
    # `sh -c "a && b"` hides the real commands inside one word: split that word too.
    return [part for word in words for part in (shlex.split(word) if " " in word else [word])]


def test_compose_has_the_five_services_with_health_checks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"web", "worker", "gpu-worker", "postgres", "redis"}
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no healthcheck"
    assert {"pgdata", "redisdata", "media"} <= set(compose["volumes"])


def test_web_command_points_at_the_real_wsgi_application(compose: dict[str, Any]) -> None:
    words = _command_words(compose["services"]["web"])
    target = next(w for w in words if w.endswith(":application"))
    module_name, attribute = target.split(":")
    module = importlib.import_module(module_name)
    assert callable(getattr(module, attribute))
    assert "gunicorn" in words and "migrate" in " ".join(words)


@pytest.mark.parametrize(("service_name", "queue"), [("worker", "default"), ("gpu-worker", "gpu")])
def test_workers_consume_queues_that_the_celery_app_declares(
    compose: dict[str, Any], service_name: str, queue: str
) -> None:
    from config.celery import app

    words = _command_words(compose["services"][service_name])
    assert words[:3] == ["celery", "-A", "config"]
    assert importlib.import_module("config").celery_app is app
    queues = words[words.index("-Q") + 1].split(",")
    assert queues == [queue]
    assert queue in {q.name for q in app.conf.task_queues}


def test_gpu_worker_reserves_an_nvidia_device_and_prefetches_one(compose: dict[str, Any]) -> None:
    gpu = compose["services"]["gpu-worker"]
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
    words = _command_words(gpu)
    assert words[words.index("--prefetch-multiplier") + 1] == "1"


def test_every_environment_variable_is_read_by_the_settings(compose: dict[str, Any]) -> None:
    settings_text = (REPO_ROOT / "config" / "settings.py").read_text()
    settings_text += (REPO_ROOT / "config" / "celery.py").read_text()
    for name in APP_SERVICES:
        for variable in compose["services"][name]["environment"]:
            assert f'"{variable}"' in settings_text, f"{name}: {variable} is not read by the code"


def test_dockerfile_installs_files_that_exist_and_serves_the_wsgi_app() -> None:
    dockerfile = (REPO_ROOT / "docker" / "Dockerfile").read_text()
    for requirement_file in re.findall(r"requirements[\w-]*\.txt", dockerfile):
        assert Path(REPO_ROOT / requirement_file).is_file(), requirement_file
    assert "config.wsgi:application" in dockerfile
    assert "FROM python:3.11" in dockerfile
    # The image installs the metric library with its compiled aligner, and fails to build
    # without it.
    assert "GEC_REQUIRE_NATIVE=1 pip install --no-deps ./gecscore" in dockerfile


# The slowest client rate an upload must be received at (docs/operations.md, "The web
# server's timeout"): the largest allowed upload at this rate, plus the broker wait, must fit.
SLOWEST_UPLOAD_BYTES_PER_SECOND = 2 * 1000 * 1000


def _gunicorn_option(words: list[str], option: str) -> float:
    assert option in words, f"gunicorn runs without {option} (its default is not a decision)"
    return float(words[words.index(option) + 1])


def test_web_timeout_is_deliberate_and_covers_the_largest_upload_and_the_broker_wait(
    compose: dict[str, Any],
) -> None:
    from django.conf import settings

    words = _command_words(compose["services"]["web"])
    timeout = _gunicorn_option(words, "--timeout")
    needed = (
        settings.GEC_MAX_UPLOAD_BYTES / SLOWEST_UPLOAD_BYTES_PER_SECOND
        + settings.GEC_BROKER_TIMEOUT
    )
    assert timeout >= needed, (timeout, needed)
    assert timeout != 30  # gunicorn's default, kept by accident before
    assert _gunicorn_option(words, "--graceful-timeout") <= timeout
    # The image's own command (docker run without compose) says the same.
    dockerfile = (REPO_ROOT / "docker" / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    image_words = [w.strip('"') for w in cmd.removeprefix("CMD ").strip("[]").split(", ")]
    assert _gunicorn_option(image_words, "--timeout") == timeout
    assert _gunicorn_option(image_words, "--graceful-timeout") == _gunicorn_option(
        words, "--graceful-timeout"
    )
