"""Admin imports a file through the page, sees the job finish, releases it and reads the
statistics page with its SVG Figure 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.roles import Role
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_admin_imports_releases_and_reads_statistics(
    page, screenshot, tmp_path: Path, settings
) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    admin = make_user(Role.ADMIN, username="dsadmin")
    data = tmp_path / "small.txt"
    data.write_text(
        "1\t他去学校。\t他去了学校。\t他去学校了。\n2\t我很好。\t没有错误\n3\t今天天气很好。\t今天的天气很好。\n",
        encoding="utf-8",
    )
    login(page, admin.username, PASSWORD)
    page.click("[data-testid=datasets-link]")
    page.click("[data-testid=import-link]")
    page.fill("#id_name", "browser-ds")
    page.select_option("#id_format", "mucgec")
    page.set_input_files("#id_files", str(data))
    page.fill("#id_source", "hsk")
    page.click("[data-testid=import-form] button[type=submit]")
    page.wait_for_selector("[data-testid=dataset-link]")
    screenshot("datasets-import-done")
    page.click("[data-testid=dataset-link]")
    page.fill("#id_note", "first")
    page.click("[data-testid=release-form] button")
    page.wait_for_selector("text=Released browser-ds@v1")
    page.click("text=browser-ds@v1 >> nth=-1")
    page.wait_for_selector("[data-testid=stats-table]")
    overall = page.inner_text("[data-testid=stats-overall]")
    assert overall.split()[1] == "3"  # sentences
    bars = page.locator("[data-testid=figure-1] svg rect.bar")
    assert bars.count() >= 1
    assert "Erroneous sentences by number of references" in page.inner_html(
        "[data-testid=figure-1]"
    )
    screenshot("datasets-stats")
