from __future__ import annotations

import json
import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from core.logging import JsonFormatter
from datasets.models import Dataset
from demo.management.commands.seed_demo import DEMO_USERS, demo_password


def test_json_formatter_emits_one_object_with_extra_fields() -> None:
    record = logging.LogRecord("gec.test", logging.INFO, __file__, 1, "scored %s", ("x",), None)
    record.duration_ms = 12.5
    line = JsonFormatter().format(record)
    payload = json.loads(line)
    assert payload["message"] == "scored x"
    assert payload["level"] == "INFO" and payload["logger"] == "gec.test"
    assert payload["duration_ms"] == 12.5


@pytest.mark.django_db
def test_seed_demo_creates_users_who_can_log_in_and_is_idempotent(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = True  # the quick start; production settings refuse (tests/core/test_logins.py)
    out = StringIO()
    call_command("seed_demo", stdout=out)
    call_command("seed_demo", stdout=StringIO())
    printed = out.getvalue()
    for username, _roles in DEMO_USERS:
        assert f"{username}" in printed and demo_password(username) in printed
        assert client.login(username=username, password=demo_password(username))
    dataset = Dataset.objects.get(name="demo-zh")
    assert dataset.sentences.count() == 12
    assert Dataset.objects.filter(name="demo-zh").count() == 1


@pytest.mark.django_db
def test_seed_demo_prints_the_address_make_run_serves(monkeypatch, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = True
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "9123")
    out = StringIO()
    call_command("seed_demo", stdout=out)
    assert "Log in at http://0.0.0.0:9123 as:" in out.getvalue()
