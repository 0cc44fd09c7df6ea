"""The live-diff endpoint gives exactly ChERRANT's char-level edits (ground truth: the M2
file ChERRANT wrote for MuCGEC-dev with `-s first`, in ../shared)."""

from __future__ import annotations

import pytest
from django.test import Client
from gecscore.m2 import read_m2

from core.roles import Role
from datasets.textrules import DEFAULT_MAX_SENTENCE_CHARS
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_with_resources(settings, shared_data):  # type: ignore[no-untyped-def]
    settings.GEC_CHERRANT_RESOURCES = str(shared_data / "cherrant-resources")
    client = Client()
    client.force_login(make_user(Role.ANNOTATOR))
    return client


def test_diff_endpoint_reproduces_cherrant_edits_on_mucgec_dev(
    client_with_resources, shared_data
) -> None:  # type: ignore[no-untyped-def]
    blocks = read_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.first.m2")[:60]
    compared = 0
    for block in blocks:
        source = "".join(block.source_tokens)
        for target in block.targets:
            if target.is_special or target.text is None:
                continue
            response = client_with_resources.post(
                "/api/diff/",
                {"source": source, "target": target.text.replace(" ", "")},
                content_type="application/json",
            )
            assert response.status_code == 200, response.content
            body = response.json()
            got = [(e["start"], e["end"], e["type"], e["target_text"]) for e in body["edits"]]
            want = [
                (
                    e.start,
                    e.end,
                    e.type,
                    "" if e.correction == "-NONE-" else e.correction.replace(" ", ""),
                )
                for e in target.edits
            ]
            assert got == want, (block.line, target.text)
            # The segments drawn on the page rebuild both sentences exactly.
            assert "".join(s["source_text"] for s in body["segments"]) == source
            assert "".join(s["target_text"] for s in body["segments"]) == target.text.replace(
                " ", ""
            )
            compared += 1
    assert compared > 60


@pytest.mark.parametrize(
    ("payload", "status", "field"),
    [
        ({"source": "我去了。", "target": "x" * (DEFAULT_MAX_SENTENCE_CHARS + 1)}, 400, "target"),
        ({"source": "我去了。", "target": "我去\u200b了。"}, 400, "target"),
        ({"source": "我去了。"}, 400, "target"),
        ({"source": "我去了。", "target": "   "}, 400, "target"),
    ],
)
def test_diff_endpoint_bad_input_names_the_field(payload, status, field) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(make_user(Role.ANNOTATOR))
    response = client.post("/api/diff/", payload, content_type="application/json")
    assert response.status_code == status
    assert response.json()["field"] == field


def test_unchanged_and_marker_targets_have_no_edits() -> None:
    client = Client()
    client.force_login(make_user(Role.REVIEWER))
    for target in ("我去了。", "没有错误"):
        response = client.post(
            "/api/diff/", {"source": "我去了。", "target": target}, content_type="application/json"
        )
        assert response.json()["edits"] == []
