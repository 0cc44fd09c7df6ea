"""The publishing pages and API: admins only, each refusal tested; the metadata form keeps
what was typed when it refuses; report and publish run as jobs and their results show."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from core.models import BackgroundJob, JobStatus
from core.roles import Role
from publishing import services
from publishing.models import ReleaseMetadata, ReleaseReport
from tests.factories import make_user
from tests.publishing.test_publish import TEST_FILE, release_with_defects

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(settings: Any, tmp_path: Path) -> Client:
    settings.MEDIA_ROOT = tmp_path / "media"
    client = Client()
    client.force_login(make_user(Role.ADMIN, username="publisher"))
    return client


def urls(version_id: int) -> dict[str, tuple[str, str]]:
    return {
        "page": ("get", reverse("publishing:release", args=[version_id])),
        "card": ("get", reverse("publishing:card", args=[version_id])),
        "run-report": ("post", reverse("publishing:run-report", args=[version_id])),
        "publish": ("post", reverse("publishing:publish", args=[version_id])),
        "reference-file": ("post", reverse("publishing:reference-file", args=[version_id])),
        "api-metadata": ("get", reverse("publishing:api-metadata", args=[version_id])),
        "api-report": ("post", reverse("publishing:api-report", args=[version_id])),
        "api-publish": ("post", reverse("publishing:api-publish", args=[version_id])),
        "api-reference-files": ("post", reverse("publishing:api-reference-files")),
    }


@pytest.mark.parametrize("role", [None, Role.ANNOTATOR, Role.REVIEWER])
def test_only_admins_reach_any_publishing_view(role: Role | None) -> None:
    version = release_with_defects()
    client = Client()
    if role is not None:
        client.force_login(make_user(role))
    for name, (method, url) in urls(version.pk).items():
        response = getattr(client, method)(url)
        if role is None and not name.startswith("api"):
            assert response.status_code == 302 and "/login" in response["Location"], name
        else:
            assert response.status_code in (401, 403), (name, response.status_code)
    assert not BackgroundJob.objects.exists() and not ReleaseReport.objects.exists()
    assert not ReleaseMetadata.objects.exclude(license="").exists()


def test_metadata_form_saves_and_keeps_the_typed_text_when_it_refuses(admin: Client) -> None:
    version = release_with_defects()
    url = reverse("publishing:release", args=[version.pk])
    bad = {
        "description": "A long description someone typed.",
        "license": "CC BY 4.0",
        "upstream_licenses": "",
        "style_1": "minimal",
    }
    response = admin.post(url, bad)
    assert response.status_code == 400
    page = response.content.decode()
    assert "not an SPDX identifier" in page and "A long description someone typed." in page
    assert ReleaseMetadata.objects.get(version=version).description == ""
    good = {**bad, "license": "CC-BY-4.0", "blocking_checks": ["overlap_exact"]}
    response = admin.post(url, good)
    assert response.status_code == 302
    metadata = ReleaseMetadata.objects.get(version=version)
    assert metadata.license == "CC-BY-4.0" and metadata.reference_styles == {"1": "minimal"}
    assert metadata.blocking_checks == ["overlap_exact"]
    response = admin.post(url, {**good, "upstream_licenses": "[{"})
    assert response.status_code == 400 and "not JSON" in response.content.decode()


def test_report_and_publish_from_the_page(
    admin: Client, django_capture_on_commit_callbacks: Any
) -> None:
    version = release_with_defects()
    upload = SimpleUploadedFile("test.txt", TEST_FILE.encode("utf-8"))
    admin.post(
        reverse("publishing:reference-file", args=[version.pk]), {"name": "known", "file": upload}
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(reverse("publishing:run-report", args=[version.pk]))
    job = BackgroundJob.objects.get(kind="publishing.report")
    assert response["Location"] == reverse("publishing:job", args=[job.pk])
    assert job.status == JobStatus.DONE and job.result["counts"]["overlap_exact"] == 1
    page = admin.get(reverse("publishing:release", args=[version.pk])).content.decode()
    assert 'data-testid="finding-overlap_exact"' in page and "file known, line 2" in page
    assert 'data-testid="finding-duplicate_sources"' in page
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(reverse("publishing:publish", args=[version.pk]))
    job = BackgroundJob.objects.get(kind="publishing.publish")
    assert job.status == JobStatus.DONE, job.message
    response = admin.get(reverse("publishing:download", args=[job.pk]))
    content = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    archive = zipfile.ZipFile(io.BytesIO(content))
    names = archive.namelist()
    assert "learners-v1/README.md" in names and "learners-v1/data/train.parquet" in names
    card = admin.get(reverse("publishing:card", args=[version.pk])).content.decode()
    assert "<h1>Dataset Card for learners@v1</h1>" in card and "<table>" in card


def test_api_metadata_report_and_blocking(
    admin: Client, django_capture_on_commit_callbacks: Any
) -> None:
    version = release_with_defects()
    url = reverse("publishing:api-metadata", args=[version.pk])
    response = admin.patch(
        url,
        {"license": "Apache-2.0", "blocking_checks": ["duplicate_sources"]},
        content_type="application/json",
    )
    assert response.status_code == 200 and response.json()["license"] == "Apache-2.0"
    response = admin.patch(url, {"licence": "x"}, content_type="application/json")
    assert (
        response.status_code == 400
        and "unknown metadata field 'licence'" in response.json()["detail"]
    )
    response = admin.patch(
        url, {"reference_styles": {"0": "minimal"}}, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["field"] == "reference_styles"
    report_url = reverse("publishing:api-report", args=[version.pk])
    assert admin.get(report_url).status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(report_url).status_code == 202
    report = admin.get(report_url).json()
    assert [f["check"] for f in report["blocking"]] == ["duplicate_sources"]
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(reverse("publishing:api-publish", args=[version.pk]))
    assert response.status_code == 202
    job = BackgroundJob.objects.get(kind="publishing.publish")
    assert job.status == JobStatus.FAILED and "blocking checks" in job.message
    missing = reverse("publishing:api-metadata", args=[version.pk + 999])
    assert admin.get(missing).status_code == 404


@pytest.mark.parametrize("report_first", [False, True])
def test_publish_job_counts_its_steps(
    admin: Client, django_capture_on_commit_callbacks: Any, report_first: bool
) -> None:
    """The publish job's page said "done 0/0: published" (a release with a report counted
    nothing): it counts the steps of the publish (services.PUBLISH_STEPS), with or without a
    report computed first."""
    version = release_with_defects()
    if report_first:
        with django_capture_on_commit_callbacks(execute=True):
            admin.post(reverse("publishing:run-report", args=[version.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(reverse("publishing:publish", args=[version.pk]))
    job = BackgroundJob.objects.get(kind="publishing.publish")
    assert job.status == JobStatus.DONE, job.message
    steps = services.PUBLISH_STEPS
    assert steps > 0
    assert (job.done, job.total, job.message) == (steps, steps, "published")
    page = admin.get(reverse("publishing:job", args=[job.pk])).content.decode()
    assert f"done {steps}/{steps}: published" in page and "0/0" not in page
