"""The dataset card of a MuCGEC-dev-sized release reads correctly in a browser: its sections,
statistics table and Figure 1 render, nothing overflows the page, and a screenshot is kept
(artifacts/screenshots/publishing-card.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from core.roles import Role
from datasets.formats import ImportFile
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from publishing import services
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_card_of_the_mucgec_dev_release_renders(
    page: Any, screenshot: Any, shared_data: Path, tmp_path: Path, settings: Any
) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    admin = make_user(Role.ADMIN, username="cardadmin")
    dataset = import_dataset(
        name="mucgec-dev",
        fmt="mucgec",
        files=[ImportFile.from_path(shared_data / "mucgec-dev" / "MuCGEC_dev.txt")],
        source_name="mucgec",
        split="dev",
    ).dataset
    version = release_dataset(dataset=dataset, user=admin)
    services.update_metadata(
        version=version,
        user=admin,
        data={"license": "Apache-2.0", "description": "MuCGEC's dev set, 1,137 sentences."},
    )
    services.compute_report(version=version, user=admin)
    login(page, admin.username, PASSWORD)
    page.goto(f"/publishing/releases/{version.pk}/")
    page.click("[data-testid=card-link]")
    card = page.locator("[data-testid=dataset-card]")
    card.wait_for()
    assert page.inner_text("[data-testid=dataset-card] h1") == "Dataset Card for mucgec-dev@v1"
    headings = page.locator("[data-testid=dataset-card] h2").all_inner_texts()
    assert headings[:4] == ["Dataset Details", "Uses", "Dataset Structure", "Dataset Creation"]
    assert "| sentences | 1137 |" not in card.inner_text()  # the Markdown table rendered
    first_table = page.locator("[data-testid=dataset-card] table").first
    assert "1137" in first_table.inner_text() and "2467" in first_table.inner_text()
    figure_url = f"/publishing/releases/{version.pk}/card/figures/reference_counts.svg"
    response = page.request.get(figure_url)
    assert response.status == 200, (response.status, response.text()[:300])
    figure = page.locator("[data-testid=dataset-card] img").first
    expect(figure).to_have_js_property("complete", True)
    assert figure.evaluate("img => img.naturalWidth") > 0  # the SVG loaded and drew
    # Nothing wider than the window (long ids, the checksum, BibTeX wrap or scroll inside).
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert "[TO WRITE]" in card.inner_text()
    screenshot("publishing-card")
