"""Playwright on Debian's Chromium (never `playwright install`).

Every test here is marked `browser`. Screenshots go to artifacts/screenshots/ so a person
can look at what the test saw.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("GEC_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Playwright's sync API runs an event loop; Django must allow ORM calls from the test thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("GEC_REQUIRE_BROWSER") == "1":
            pytest.fail(f"Chromium not found at {CHROMIUM}; install Debian's chromium package")
        pytest.skip(
            f"Chromium not found at {CHROMIUM} (apt-get install chromium fonts-wqy-microhei)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture
def screenshot(page):  # type: ignore[no-untyped-def]
    """Call screenshot("name") to save artifacts/screenshots/name.png: the whole page, or with
    full_page=False the window only (the API docs page is 50,000 pixels tall: 64 megapixels
    rendered and PNG-encoded took seconds of the browser's CPU)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(name: str, full_page: bool = True) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


def login(page, username: str, password: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=current-user]")


def created_passwords(page) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The accounts page's one-time list of created accounts: username -> password."""
    rows = page.locator("[data-testid=created-account]")
    return {
        rows.nth(i).locator("[data-testid=created-username]").inner_text(): rows.nth(i)
        .locator("[data-testid=created-password]")
        .inner_text()
        for i in range(rows.count())
    }


def release_and_download_m2(page, slug: str, target: Path) -> str:  # type: ignore[no-untyped-def]
    """Release v1 of the dataset on its page, export that release's M2, save it to `target`
    and return its text."""
    page.goto(f"/datasets/{slug}/")
    page.click("[data-testid=release-form] button")
    page.wait_for_selector(f"text=Released {slug}@v1")
    page.select_option("#id_release", label=f"{slug}@v1")
    page.select_option("#id_eformat", "m2")
    page.click("[data-testid=export-form] button[type=submit]")
    page.wait_for_selector("[data-testid=download]")
    with page.expect_download() as download_info:
        page.click("[data-testid=download]")
    download_info.value.save_as(target)
    return target.read_text(encoding="utf-8")
