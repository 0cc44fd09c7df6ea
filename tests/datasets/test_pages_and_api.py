from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset, DatasetVersion, Sentence
from datasets.services.imports import import_dataset
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """The test runs in one transaction; run the queued task callbacks as a commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def admin_client(settings, tmp_path: Path) -> Client:
    from django.core.cache import cache

    cache.clear()  # release statistics are cached by version id; ids repeat across tests
    settings.MEDIA_ROOT = tmp_path / "media"
    user = make_user(Role.ADMIN, username="boss")
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def small_dataset() -> Dataset:
    text = "1\t他去学校。\t他去了学校。\n2\t我很好。\t没有错误\n"
    return import_dataset(
        name="small",
        fmt="mucgec",
        source_name="hsk",
        split="dev",
        files=[ImportFile("s.txt", text.encode())],
    ).dataset


def test_import_page_runs_the_job_and_shows_the_dataset(admin_client: Client, on_commit) -> None:
    upload = SimpleUploadedFile("a.txt", "1\t他去。\t他去了。\n".encode())
    with on_commit():
        response = admin_client.post(
            "/datasets/import/",
            {
                "name": "web",
                "format": "mucgec",
                "files": upload,
                "source": "hsk",
                "split": "dev",
                "language": "zh",
            },
        )
    assert response.status_code == 302
    job = BackgroundJob.objects.get(kind="datasets.import")
    assert job.status == JobStatus.DONE and job.result["sentences"] == 1
    page = admin_client.get(response.url)
    assert "Open web" in page.content.decode()
    assert Sentence.objects.get().source.name == "hsk"
    # The uploaded copy is removed once the import is done.
    assert not any(Path(f["path"]).exists() for f in job.params["files"])


def test_import_page_shows_the_error_and_writes_nothing(admin_client: Client, on_commit) -> None:
    upload = SimpleUploadedFile("bad.txt", "1\t他去。\n1\t我来。\n".encode())
    with on_commit():
        response = admin_client.post(
            "/datasets/import/", {"name": "web", "format": "mucgec", "files": upload}
        )
    job = BackgroundJob.objects.get()
    assert job.status == JobStatus.FAILED
    assert "bad.txt, line 2, field id: duplicate id '1'" in job.message
    page = admin_client.get(response.url).content.decode()
    assert "duplicate id" in page
    assert not Dataset.objects.exists()


def test_pages_need_the_admin_role(client: Client) -> None:
    annotator = make_user(Role.ANNOTATOR)
    client.login(username=annotator.username, password=PASSWORD)
    assert client.get("/datasets/").status_code == 403
    assert client.get("/datasets/api/").status_code == 403


def test_release_export_and_download_through_pages(admin_client: Client, on_commit) -> None:
    dataset = small_dataset()
    response = admin_client.post(f"/datasets/{dataset.name}/release/", {"note": "web release"})
    assert response.status_code == 302
    version = DatasetVersion.objects.get()
    assert version.note == "web release" and version.created_by.username == "boss"
    with on_commit():
        response = admin_client.post(
            f"/datasets/{dataset.name}/export/", {"format": "mucgec", "release": "1"}
        )
    job = BackgroundJob.objects.get(kind="datasets.export")
    assert job.status == JobStatus.DONE
    download = admin_client.get(f"/datasets/exports/{job.pk}/download/")
    assert (
        b"".join(download.streaming_content).decode()
        == "1\t他去学校。\t他去了学校。\n2\t我很好。\t没有错误\n"
    )
    assert "small-v1.txt" in download["Content-Disposition"]
    detail = admin_client.get(f"/datasets/{dataset.name}/").content.decode()
    assert "small@v1" in detail and version.checksum[:12] in detail
    # Once a release exists, the export form offers it first, not the live
    # references; a second release becomes the default.
    assert '<option value="1" selected>small@v1</option>' in detail
    admin_client.post(f"/datasets/{dataset.name}/release/", {"note": "again"})
    detail = admin_client.get(f"/datasets/{dataset.name}/").content.decode()
    assert '<option value="2" selected>small@v2</option>' in detail
    assert '<option value="1">small@v1</option>' in detail


def test_stats_page_shows_table_and_svg_figure(admin_client: Client) -> None:
    dataset = small_dataset()
    page = admin_client.get(f"/datasets/{dataset.name}/stats/").content.decode()
    assert 'data-testid="stats-table"' in page
    assert page.count("<svg") == 2 and "Erroneous sentences by number of references" in page
    assert "<title" in page


def test_api_import_release_export_and_stats(admin_client: Client, on_commit) -> None:
    upload = SimpleUploadedFile(
        "a.jsonl",
        json.dumps(
            {"id": "x", "source": "他去学校。", "references": ["他去了学校。"]}, ensure_ascii=False
        ).encode()
        + b"\n",
    )
    with on_commit():
        response = admin_client.post(
            "/datasets/api/import/", {"name": "viaapi", "format": "jsonl", "files": upload}
        )
    assert response.status_code == 202
    job_id = response.json()["id"]
    state = admin_client.get(f"/jobs/{job_id}/").json()
    assert state["result"].get("sentences") == 1, state
    response = admin_client.post(
        "/datasets/api/viaapi/releases/", {"note": "n"}, content_type="application/json"
    )
    assert response.status_code == 201 and response.json()["label"] == "viaapi@v1"
    with on_commit():
        response = admin_client.post(
            "/datasets/api/viaapi/exports/",
            {"format": "jsonl", "release": 1},
            content_type="application/json",
        )
    assert response.status_code == 202
    body = b"".join(admin_client.get(response.json()["download"]).streaming_content)
    assert json.loads(body)["references"] == ["他去了学校。"]
    stats = admin_client.get("/datasets/api/viaapi/stats/?release=1").json()
    assert stats["sentences"] == 1 and stats["edit_types"]["M"] == 1
    missing = admin_client.get("/datasets/api/nope/stats/")
    assert missing.status_code == 404 and "no dataset named 'nope'" in missing.json()["detail"]


def test_api_import_error_is_reported_in_the_job(admin_client: Client, on_commit) -> None:
    upload = SimpleUploadedFile("g.txt", "1\t他去。\n".encode("gbk"))
    with on_commit():
        response = admin_client.post(
            "/datasets/api/import/", {"name": "g", "format": "mucgec", "files": upload}
        )
    state = admin_client.get(f"/jobs/{response.json()['id']}/").json()
    assert state["status"] == "failed" and "g.txt, line 1, field encoding" in state["message"]
    assert not Dataset.objects.exists()


def test_api_validates_requests_by_field(admin_client: Client) -> None:
    small_dataset()
    response = admin_client.post(
        "/datasets/api/small/exports/", {"format": "xml"}, content_type="application/json"
    )
    assert response.status_code == 400 and "format" in response.json()
    response = admin_client.post("/datasets/api/import/", {"name": "x", "format": "mucgec"})
    assert response.status_code == 400 and "files" in response.json()
    response = admin_client.post(
        "/datasets/api/small/exports/",
        {"format": "m2", "release": "9"},
        content_type="application/json",
    )
    assert response.status_code == 404 and response.json() == {
        "detail": "dataset 'small' has no release v9",
        "field": "release",
    }
    assert not BackgroundJob.objects.exists()


def test_release_stats_page_shows_cleme_chunks_from_the_stored_extraction(
    admin_client: Client,
) -> None:
    from datasets.models import ReferenceM2Cache
    from datasets.services.releases import release_dataset

    dataset = small_dataset()
    version = release_dataset(dataset=dataset)
    page = admin_client.get(f"/datasets/{dataset.name}/stats/?release=1").content.decode()
    assert 'data-testid="cleme-chunks"' in page
    assert ReferenceM2Cache.objects.filter(version=version).count() == 1
    live = admin_client.get(f"/datasets/{dataset.name}/stats/").content.decode()
    assert 'data-testid="cleme-chunks"' not in live


def test_parallel_upload_takes_the_source_file_first_and_references_in_name_order(
    admin_client: Client, on_commit
) -> None:
    refs = [SimpleUploadedFile(f"ref{i}.txt", f"他去{'了' * i}。\n".encode()) for i in (10, 2, 1)]
    source = SimpleUploadedFile("src.txt", "他去。\n".encode())
    with on_commit():
        admin_client.post(
            "/datasets/import/",
            {"name": "par", "format": "parallel", "source_file": source, "files": refs},
        )
    job = BackgroundJob.objects.get()
    assert job.status == JobStatus.DONE, job.message
    sentence = Sentence.objects.get()
    assert sentence.text == "他去。"
    assert list(sentence.golden_references.order_by("position").values_list("text", flat=True)) == [
        "他去了。",
        "他去了了。",
        "他去" + "了" * 10 + "。",
    ]


@pytest.mark.parametrize(
    ("fmt", "fields", "field_named", "message"),
    [
        ("text", ["source_file"], "Sources file", "“Sources file” is for the parallel format only"),
        ("text", [], "Reference or data files", "choose the text file to import"),
        ("parallel", ["files"], "Sources file", "needs its sources file"),
        ("parallel", ["source_file"], "Reference or data files", "at least one reference file"),
    ],
)
def test_import_form_names_the_field_a_file_belongs_in(
    admin_client: Client, fmt: str, fields: list[str], field_named: str, message: str
) -> None:
    """Each file field has its own label, and a file in the wrong field (a text file under
    "Sources file") gets a clear error from the server, not only a browser bubble."""
    form = admin_client.get("/datasets/import/").content.decode()
    assert '<label for="id_files">Reference or data files</label>' in form
    assert '<label for="id_source_file">Sources file (parallel only)</label>' in form
    assert 'name="files" multiple required' not in form  # the server answers, not a bubble
    body: dict[str, object] = {"name": "wrongfield", "format": fmt}
    for field in fields:
        body[field] = SimpleUploadedFile("data.txt", "他去了。\n".encode())
    response = admin_client.post("/datasets/import/", body)
    page = response.content.decode()
    assert response.status_code == 400
    error = page.split('data-testid="import-error">')[1].split("</p>")[0]
    assert message in error and field_named in error
    assert 'value="wrongfield"' in page  # what was typed is kept
    assert not BackgroundJob.objects.exists() and not Sentence.objects.exists()
