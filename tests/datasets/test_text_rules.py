"""The one text rule (datasets.textrules) at every door: imports in every format, system
uploads, the annotation service and API, the diff API; a long sentence round-trips."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from django.test import Client

from annotate.models import Correction
from annotate.services import submit_correction
from core.exceptions import ServiceError
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin, Sentence
from datasets.services.exports import export_dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from datasets.textrules import (
    DEFAULT_MAX_SENTENCE_CHARS,
    looks_binary,
    max_sentence_chars,
    text_problem,
)
from scoring import services as scoring_services
from tests.annotate.workflow import make_world
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

# A long sentence of mixed scripts, spaces and punctuation, below the maximum.
LONG_UNIT = "我们今天去学校学习了很多新的知识，老师说：“Good job!” 他非常高兴。"
LONG_SENTENCE = (LONG_UNIT * (5000 // len(LONG_UNIT) + 1))[:4999] + "。"

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def _import(fmt: str, *files: tuple[str, bytes], name: str = "t") -> None:
    import_dataset(name=name, fmt=fmt, files=[ImportFile(n, d) for n, d in files])


def test_the_default_maximum_fits_real_datasets(shared_data: Path) -> None:
    """Longest CoNLL-14 source sentence and longest MuCGEC dev field are far below the max."""
    longest = 0
    for line in (shared_data / "conll14").rglob("*.m2"):
        for row in line.read_text(encoding="utf-8").splitlines():
            if row.startswith("S "):
                longest = max(longest, len(row) - 2)
    for path in (shared_data / "mucgec-dev").iterdir():
        if path.name == "MuCGEC_dev.txt":
            for row in path.read_text(encoding="utf-8", errors="replace").splitlines():
                longest = max(longest, *(len(field) for field in row.split("\t")))
    assert 1000 < longest < max_sentence_chars() == DEFAULT_MAX_SENTENCE_CHARS


def test_a_long_sentence_round_trips_byte_for_byte(tmp_path: Path) -> None:
    assert len(LONG_SENTENCE) == 5000 == max_sentence_chars()
    reference = LONG_SENTENCE.replace("很多", "许多", 1)
    data = f"1\t{LONG_SENTENCE}\t{reference}\n".encode()
    _import("mucgec", ("long.txt", data), name="long")
    sentence = Sentence.objects.get(dataset__name="long")
    assert sentence.text == LONG_SENTENCE
    out = tmp_path / "long.out.txt"
    export_dataset(dataset=sentence.dataset, fmt="mucgec", out=out)
    assert out.read_bytes() == data


def test_a_sentence_above_the_maximum_is_refused_with_its_line() -> None:
    text = "短句。\n" + "长" * (max_sentence_chars() + 1) + "\n"
    with pytest.raises(ServiceError) as caught:
        _import("text", ("in.txt", text.encode()))
    assert "in.txt, line 2, field source" in caught.value.message
    assert "5,001 characters, above the maximum sentence length of 5,000" in caught.value.message
    assert not Sentence.objects.exists()  # all or nothing


@pytest.mark.parametrize(
    ("fmt", "files", "where"),
    [
        ("text", [("a.txt", "好\n坏\x00句\n")], "a.txt, line 2"),
        ("mucgec", [("a.tsv", "1\t好\t好\n2\t坏\u200b句\t坏句\n")], "a.tsv, line 2"),
        ("parallel", [("s.txt", "好\n坏\n"), ("r.txt", "好\n坏\x07\n")], "r.txt, line 2"),
        (
            "jsonl",
            [("a.jsonl", '{"source": "好"}\n{"source": "坏\\u0000句"}\n')],
            "a.jsonl, line 2",
        ),
        (
            "jsonl",
            [("a.jsonl", '{"source": "好", "references": ["a\\ud800"]}\n')],
            "a.jsonl, line 1",
        ),
        ("m2", [("a.m2", "S 好 句\nA 0 1|||S|||坏\x00|||REQUIRED|||-NONE-|||0\n")], "a.m2, line 2"),
    ],
)
def test_every_import_format_refuses_characters_the_box_refuses(
    fmt: str, files: list[tuple[str, str]], where: str
) -> None:
    with pytest.raises(ServiceError) as caught:
        _import(fmt, *((name, text.encode("utf-8", "surrogatepass")) for name, text in files))
    assert caught.value.message.startswith(where), caught.value.message
    assert "U+" in caught.value.message
    assert not Sentence.objects.exists()


def test_a_png_uploaded_as_text_is_called_binary_not_gbk() -> None:
    assert looks_binary(PNG) and not looks_binary("正常的句子\n".encode())
    with pytest.raises(ServiceError) as caught:
        _import("text", ("photo.png", PNG))
    assert "binary file" in caught.value.message
    assert "GBK" not in caught.value.message
    # A real GBK file still gets the GBK hint.
    with pytest.raises(ServiceError) as caught:
        _import("text", ("gbk.txt", "中文句子\n".encode("gbk")))
    assert "GBK/GB18030" in caught.value.message


def test_text_problem_names_the_character() -> None:
    assert text_problem("正常的句子") is None
    assert "control character U+200B at position 2 (ZERO WIDTH SPACE)" in (
        text_problem("a\u200bb") or ""
    )
    assert "U+0000 at position 3 (NUL)" in (text_problem("ab\x00") or "")
    assert text_problem("a\tb") is not None  # a tab inside one sentence is refused too


@pytest.fixture
def release():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=["我很喜欢吃平果", "今天天气很好"])
    for sentence in dataset.sentences.all():
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=sentence.text,
            origin=ReferenceOrigin.IMPORTED,
            kind=ReferenceKind.CORRECTION,
        )
    return release_dataset(dataset=dataset)


@pytest.mark.parametrize(
    "data",
    [
        "我很喜欢吃苹果\n今天天\x00气很好\n".encode(),
        "1\t我很喜欢吃平果\t我很喜欢吃苹果\n2\t今天天气很好\t今天\x00天气很好\n".encode(),
        PNG,
    ],
)
def test_system_uploads_refuse_nul_bytes_and_binary_files(release, data: bytes) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError) as caught:
        scoring_services.upload_system_output(
            version=release, name="sys", data=data, file_name="out.txt", user=None
        )
    message = caught.value.message
    assert message.startswith("out.txt"), message
    assert "line 2" in message or "binary" in message


def test_system_upload_page_and_api_answer_a_nul_byte_with_a_message(release) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    client = Client()
    client.force_login(admin)
    bad = "我很喜欢吃苹果\n今天天\x00气很好\n".encode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    page = client.post(
        f"/scoring/releases/{release.pk}/upload/",
        {"name": "sys", "file": SimpleUploadedFile("out.txt", bad)},
        follow=True,
    )
    assert page.status_code == 200
    assert "U+0000 (NUL)" in page.content.decode()
    api = client.post(
        "/api/scoring/systems/",
        {
            "dataset": release.dataset.name,
            "release": str(release.number),
            "name": "sys2",
            "file": SimpleUploadedFile("out.txt", bad),
        },
    )
    assert api.status_code == 400, api.content
    assert "U+0000" in json.dumps(api.json())


def test_annotation_service_and_api_use_the_same_rule() -> None:
    world = make_world(sentences=[LONG_SENTENCE, "他对中国的历史很感兴趣。"])
    user = world.annotators[0]
    long_correction = LONG_SENTENCE.replace("很多", "许多", 1)
    submit_correction(
        assignment_id=world.assignment(user).pk, user=user, texts=[long_correction], tag=""
    )
    assert Correction.objects.get(submission__assignment__annotator=user).text == long_correction
    client = Client()
    client.force_login(world.annotators[1])
    assignment = world.assignment(world.annotators[1])
    too_long = client.post(
        f"/api/assignments/{assignment.pk}/submit/",
        {"texts": ["长" * (max_sentence_chars() + 1)]},
        content_type="application/json",
    )
    assert too_long.status_code == 400
    assert "above the maximum sentence length" in json.dumps(too_long.json(), ensure_ascii=False)
    invisible = client.post(
        f"/api/assignments/{assignment.pk}/submit/",
        {"texts": ["我昨天\u200b去了"]},
        content_type="application/json",
    )
    assert invisible.status_code == 400
    assert "U+200B" in json.dumps(invisible.json())
    diff = client.post(
        "/api/diff/", {"source": "我们", "target": "我\x00们"}, content_type="application/json"
    )
    assert diff.status_code == 400  # DRF's CharField refuses NUL first, with its message
    assert "Null characters are not allowed" in json.dumps(diff.json())
    zero_width = client.post(
        "/api/diff/", {"source": "我们", "target": "我\u200b们"}, content_type="application/json"
    )
    assert zero_width.status_code == 400
    assert "U+200B" in json.dumps(zero_width.json())


def test_annotation_box_has_no_maxlength_that_would_cut_text() -> None:
    world = make_world(sentences=[LONG_SENTENCE])
    user = world.annotators[0]
    client = Client()
    client.force_login(user)
    page = client.get(f"/annotate/a/{world.assignment(user).pk}/").content.decode()
    assert "maxlength" not in page
    assert f'data-max-chars="{max_sentence_chars()}"' in page
    assert f'"maxChars": {max_sentence_chars()}' in page


def test_nul_on_line_301_ends_the_import_job_failed_with_the_line_shown_once(  # type: ignore[no-untyped-def]
    settings, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    """Such an import once stayed 'running: checked; writing' for ever on PostgreSQL."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from core.models import BackgroundJob, JobStatus

    settings.MEDIA_ROOT = tmp_path / "media"
    admin_client = Client()
    admin_client.force_login(make_user(Role.ADMIN))

    lines = [f"第{n}句话。" for n in range(1, 401)]
    lines[300] = "第301句\x00话。"
    upload = SimpleUploadedFile("nul.txt", ("\n".join(lines) + "\n").encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/datasets/api/import/", {"name": "nul", "format": "text", "files": upload}
        )
    assert response.status_code == 202
    job = BackgroundJob.objects.get(pk=response.json()["id"])
    assert job.status == JobStatus.FAILED
    assert job.message.startswith("nul.txt, line 301, field text: U+0000 (NUL) at column 6")
    assert not Sentence.objects.exists()
    page = admin_client.get(f"/datasets/jobs/{job.pk}/").content.decode()
    assert page.count("U+0000 (NUL)") == 1  # each import error shown once


@pytest.mark.parametrize(
    ("url", "fields", "expected"),
    [
        ("/scoring/releases/{v}/upload/", {"name": "sys\x00"}, "form field 'name'"),
        ("/scoring/releases/{v}/upload/", {"name": "s", "description": "\x00"}, "'description'"),
        ("/api/scoring/systems/", {"dataset": "{d}", "name": "s\x00"}, "form field 'name'"),
        ("/datasets/import/", {"name": "a\x00", "format": "text"}, "form field 'name'"),
        ("/datasets/api/import/", {"name": "b", "format": "text", "source": "\x00"}, "'source'"),
    ],
)
def test_a_nul_in_any_form_field_is_a_clear_400_before_the_database(  # type: ignore[no-untyped-def]
    release, url: str, fields: dict[str, str], expected: str
) -> None:
    """PostgreSQL cannot store U+0000: a NUL in a system or dataset name was a 500 there."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from scoring.models import SystemOutput

    client = Client()
    client.force_login(make_user(Role.ADMIN))
    data: dict[str, object] = {
        key: value.replace("{d}", release.dataset.name) for key, value in fields.items()
    }
    data["file" if "scoring" in url else "files"] = SimpleUploadedFile(
        "out.txt", "我很喜欢吃苹果\n今天天气很好\n".encode()
    )
    response = client.post(url.replace("{v}", str(release.pk)), data)
    assert response.status_code == 400
    body = html.unescape(response.content.decode())
    assert expected in body and "NUL character (U+0000)" in body
    assert not SystemOutput.objects.exists()
    query = client.get(f"/scoring/releases/{release.pk}/?systems=1%00")
    assert query.status_code == 400
    assert "query parameter 'systems'" in html.unescape(query.content.decode())
