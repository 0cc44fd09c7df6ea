"""Regression: one-time passwords could not be copied or downloaded at once. The new
accounts block copies every username and password together and downloads them as CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.roles import Role
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_new_accounts_are_copied_and_downloaded_at_once(page: Any, tmp_path: Path) -> None:
    admin = make_user(Role.ADMIN, username="copyadmin")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    login(page, admin.username, PASSWORD)
    page.goto("/users/")
    page.fill("#id_accounts", "cp1\ncp2")
    page.check("[data-testid=new-role-annotator]")
    page.click("[data-testid=create-accounts] button[type=submit]")
    page.wait_for_selector("[data-testid=created-accounts]")
    rows = page.locator("[data-testid=created-account]")
    shown = [
        (
            rows.nth(i).locator("[data-testid=created-username]").inner_text(),
            rows.nth(i).locator("[data-testid=created-password]").inner_text(),
        )
        for i in range(rows.count())
    ]
    expected = "username,password\n" + "".join(f"{u},{p}\n" for u, p in shown)
    with page.expect_download() as download:
        page.click("[data-testid=download-accounts]")
    saved = tmp_path / "accounts.csv"
    download.value.save_as(saved)
    assert download.value.suggested_filename == "new-accounts.csv"
    assert saved.read_text(encoding="utf-8") == expected
    page.click("[data-testid=copy-accounts]")
    page.wait_for_selector("#accounts-status:has-text('Copied.')")
    assert page.evaluate("navigator.clipboard.readText()") == expected
    assert errors == []
