"""Reference styles per import and per annotator pool, stored per reference, and the
annotators of golden references, pseudonymised in the published Parquet files."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from core.exceptions import ServiceError
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset, GoldenReference, ReferenceOrigin
from datasets.services.imports import import_dataset
from datasets.services.projects import set_annotator_reference_style
from datasets.services.releases import release_dataset
from publishing import formats, services
from review.verdicts import submit_review
from tests.annotate.workflow import World, make_world, submit_all
from tests.factories import make_user

pytestmark = pytest.mark.django_db

SOURCE_0 = "我昨天去了图书馆借书了三本。"
FIX_B = "我昨天去图书馆借了三本书。"
FIX_A = "我昨天去了图书馆，借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"
ADDED = "我昨天去图书馆借了三本书回来。"
FIX_1 = "他对中国历史很感兴趣。"


def mucgec(lines: list[tuple[str, ...]]) -> ImportFile:
    text = "".join("\t".join(line) + "\n" for line in lines)
    return ImportFile(name="part.txt", data=text.encode("utf-8"))


def test_an_import_stores_its_style_on_every_reference_and_it_wins_over_the_default(
    tmp_path: Path,
) -> None:
    import_dataset(
        name="mixed",
        fmt="mucgec",
        files=[mucgec([("m1", "他去学校了昨天。", "他昨天去学校了。", "昨天他去了学校。")])],
        reference_style="minimal",
    )
    import_dataset(
        name="mixed",
        fmt="mucgec",
        files=[mucgec([("f1", "我很喜欢吃苹果的。", "我很爱吃苹果。")])],
        reference_style="fluency",
    )
    import_dataset(name="mixed", fmt="mucgec", files=[mucgec([("u1", "他们去了。", "他们走了。")])])
    stored = dict(
        GoldenReference.objects.filter(sentence__dataset__name="mixed").values_list("text", "style")
    )
    assert stored == {
        "他昨天去学校了。": "minimal",
        "昨天他去了学校。": "minimal",
        "我很爱吃苹果。": "fluency",
        "他们走了。": "",
    }
    version = release_dataset(dataset=Dataset.objects.get(name="mixed"))
    # Position defaults fill only what has no style of its own (u1's reference).
    services.update_metadata(
        version=version, user=None, data={"reference_styles": {"1": "fluency", "2": "fluency"}}
    )
    services.publish_release(version=version, out=tmp_path / "out")
    records = {r["id"]: r for r in formats.read_parquet_folder(tmp_path / "out")["all"]}
    assert records["m1"]["reference_styles"] == ["minimal", "minimal"]
    assert records["f1"]["reference_styles"] == ["fluency"]
    assert records["u1"]["reference_styles"] == ["fluency"]
    assert [r["annotator_ids"] for r in records.values()] == [[None, None], [None], [None]]
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "minimal 2 (50.0%), fluency 2 (50.0%)" in card
    croissant = json.loads((tmp_path / "out" / "croissant.json").read_text(encoding="utf-8"))
    names = [f["name"] for f in croissant["recordSet"][0]["field"]]
    assert "reference_styles" in names and "annotator_ids" in names


def test_a_bad_import_style_is_refused_and_nothing_is_written() -> None:
    with pytest.raises(ServiceError, match="'nice' is not one of") as error:
        import_dataset(
            name="bad",
            fmt="mucgec",
            files=[mucgec([("1", "他去。", "他去了。")])],
            reference_style="nice",
        )
    assert error.value.field == "reference_style"
    assert not Dataset.objects.filter(name="bad").exists()


def test_the_import_command_takes_a_style(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("1\t他去学校了昨天。\t他昨天去学校了。\n", encoding="utf-8")
    call_command(
        "import_dataset", str(path), "--name", "cmd", "--format", "mucgec",
        "--reference-style", "fluency", stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    assert list(GoldenReference.objects.values_list("style", flat=True)) == ["fluency"]
    with pytest.raises(CommandError):
        call_command(
            "import_dataset", str(path), "--name", "cmd2", "--format", "mucgec",
            "--reference-style", "nice", stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip


def _client(role: Role | None, settings: Any, tmp_path: Path) -> Client:
    settings.MEDIA_ROOT = tmp_path / "media"
    client = Client()
    if role is not None:
        client.force_login(make_user(role))
    return client


def test_the_import_api_and_page_take_a_style(
    settings: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    admin = _client(Role.ADMIN, settings, tmp_path)
    upload = SimpleUploadedFile("a.txt", "1\t他去学校。\t他去了学校。\n".encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            "/datasets/api/import/",
            {"name": "viaapi", "format": "mucgec", "files": upload, "reference_style": "minimal"},
        )
    assert response.status_code == 202, response.content
    upload = SimpleUploadedFile("b.txt", "1\t他来学校。\t他来了学校。\n".encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            "/datasets/import/",
            {"name": "viapage", "format": "mucgec", "files": upload, "reference_style": "fluency"},
        )
    assert response.status_code == 302
    styles = dict(
        GoldenReference.objects.values_list("sentence__dataset__name", "style").order_by("pk")
    )
    assert styles == {"viaapi": "minimal", "viapage": "fluency"}
    bad = admin.post(
        "/datasets/api/import/",
        {"name": "x", "format": "mucgec", "files": upload, "reference_style": "nice"},
    )
    assert bad.status_code == 400 and "reference_style" in bad.json()
    assert 'name="reference_style"' in admin.get("/datasets/import/").content.decode()


def _reviewed_world() -> World:
    """Sentence 0: annotators 1 and 2 both write FIX_B (1 first), annotator 1 also WRONG,
    annotator 3 says error free; the review accepts FIX_B, edits WRONG into FIX_A and adds
    ADDED. Sentence 1: annotator 3 writes FIX_1, accepted; the others say error free."""
    world = make_world()
    submit_all(world, 0, [([FIX_B, WRONG], ""), ([FIX_B], ""), ([], "error_free")])
    submit_all(world, 1, [([], "error_free"), ([], "error_free"), ([FIX_1], "")])
    for position, verdicts, added in (
        (0, [{"position": 0, "correct": True}, {"position": 1, "correct": False, "text": FIX_A}], [ADDED]),
        (1, [{"position": 0, "correct": True}], []),
    ):  # fmt: skip
        task = world.task(position)
        submit_review(
            task_id=task.pk, user=world.reviewer, version=task.version,
            judgement="annotatable", verdicts=verdicts, added=added,
        )  # fmt: skip
    return world


def test_a_review_records_each_references_annotator_and_the_pool_style() -> None:
    world = make_world()
    set_annotator_reference_style(dataset=world.dataset, by=world.admin, style="minimal")
    submit_all(world, 0, [([FIX_B, WRONG], ""), ([FIX_B], ""), ([], "error_free")])
    task = world.task(0)
    submit_review(
        task_id=task.pk, user=world.reviewer, version=task.version, judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False, "text": FIX_A}],
        added=[ADDED],
    )  # fmt: skip
    a1 = world.annotators[0]
    current = GoldenReference.objects.filter(is_current=True).order_by("position")
    assert [(r.text, r.origin, r.annotator_id, r.style) for r in current] == [
        (FIX_B, ReferenceOrigin.ANNOTATORS, a1.pk, "minimal"),  # a1 submitted it first
        (FIX_A, ReferenceOrigin.EDITED, a1.pk, "minimal"),  # edited from a1's WRONG
        (ADDED, ReferenceOrigin.ADDED, None, ""),
    ]
    # Changing the pool's style restamps the current references from annotators only.
    assert set_annotator_reference_style(dataset=world.dataset, by=None, style="fluency") == 2
    assert list(current.values_list("style", flat=True)) == ["fluency", "fluency", ""]
    with pytest.raises(ServiceError, match="'nice' is not minimal"):
        set_annotator_reference_style(dataset=world.dataset, by=None, style="nice")


def test_parquet_annotator_ids_round_trip_pseudonymised_and_stable(tmp_path: Path) -> None:
    world = _reviewed_world()
    version = release_dataset(dataset=world.dataset)
    services.publish_release(version=version, out=tmp_path / "one")
    records = {r["id"]: r for r in formats.read_parquet_folder(tmp_path / "one")["dev"]}
    assert records["1"]["references"] == [FIX_B, FIX_A, ADDED]
    # Numbered by first appearance in the release: a1 (sentence 1), then a3 (sentence 2).
    assert records["1"]["annotator_ids"] == ["annotator-1", "annotator-1", None]
    assert records["2"]["annotator_ids"] == ["annotator-2"]
    a1, _, a3 = world.annotators
    # The pseudonym maps back to the annotator only through the database.
    back = {"annotator-1": a1.pk, "annotator-2": a3.pk}
    for record in records.values():
        sentence = world.dataset.sentences.get(external_id=record["id"])
        stored = list(
            GoldenReference.objects.filter(sentence=sentence, is_current=True)
            .order_by("position")
            .values_list("annotator_id", flat=True)
        )
        assert [back.get(p) if p else None for p in record["annotator_ids"]] == stored
    published = (tmp_path / "one" / "data" / "dev.parquet").read_bytes()
    # Publishing the same release again gives the same file (the ids are stable).
    services.publish_release(version=version, out=tmp_path / "two")
    assert (tmp_path / "two" / "data" / "dev.parquet").read_bytes() == published
    card = (tmp_path / "one" / "README.md").read_text(encoding="utf-8")
    assert "Annotator ids: 2 annotators, pseudonymised" in card


@pytest.mark.parametrize("role", [None, Role.ANNOTATOR, Role.REVIEWER])
def test_only_admins_set_the_pool_style(role: Role | None, settings: Any, tmp_path: Path) -> None:
    dataset = Dataset.objects.create(name="pooled")
    client = _client(role, settings, tmp_path)
    page = client.post(
        f"/annotate/admin/projects/{dataset.name}/reference-style/",
        {"annotator_reference_style": "fluency"},
    )
    api = client.patch(
        f"/api/projects/{dataset.name}/",
        {"annotator_reference_style": "fluency"},
        content_type="application/json",
    )
    assert page.status_code in (302, 403) and api.status_code in (401, 403)
    if role is None:
        assert "/login" in page["Location"]
    dataset.refresh_from_db()
    assert dataset.annotator_reference_style == ""


def test_admins_set_the_pool_style_on_the_page_and_the_api(settings: Any, tmp_path: Path) -> None:
    dataset = Dataset.objects.create(name="pooled")
    admin = _client(Role.ADMIN, settings, tmp_path)
    page = admin.get(f"/annotate/admin/projects/{dataset.name}/").content.decode()
    assert 'name="annotator_reference_style"' in page
    response = admin.post(
        f"/annotate/admin/projects/{dataset.name}/reference-style/",
        {"annotator_reference_style": "fluency"},
    )
    assert response.status_code == 302
    dataset.refresh_from_db()
    assert dataset.annotator_reference_style == "fluency"
    response = admin.patch(
        f"/api/projects/{dataset.name}/",
        {"annotator_reference_style": "minimal", "stale_after_hours": 12},
        content_type="application/json",
    )
    assert response.status_code == 200 and response.json()["annotator_reference_style"] == "minimal"
    # A bad style refuses the whole change: the stale deadline stays as it was.
    response = admin.patch(
        f"/api/projects/{dataset.name}/",
        {"annotator_reference_style": "nice", "stale_after_hours": 30},
        content_type="application/json",
    )
    assert response.status_code == 400 and "not minimal, fluency" in response.content.decode()
    dataset.refresh_from_db()
    assert (dataset.annotator_reference_style, dataset.stale_after_hours) == ("minimal", 12)
