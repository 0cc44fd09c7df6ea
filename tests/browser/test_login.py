from __future__ import annotations

import pytest

from core.roles import Role
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_annotator_logs_in_sees_their_home_and_logs_out(page, screenshot) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR, username="browser-annotator")
    page.goto("/")
    assert "/accounts/login/" in page.url
    login(page, user.username, PASSWORD)
    assert page.inner_text("[data-testid=current-user]") == "browser-annotator"
    assert page.is_visible("[data-testid=annotator-home]")
    assert not page.is_visible("[data-testid=admin-home]")
    screenshot("home-annotator")
    page.click("text=Log out")
    page.wait_for_url("**/accounts/login/")


def test_wrong_password_shows_a_clear_message(page) -> None:  # type: ignore[no-untyped-def]
    make_user(Role.REVIEWER, username="browser-reviewer")
    page.goto("/accounts/login/")
    page.fill("#id_username", "browser-reviewer")
    page.fill("#id_password", "not-the-password")
    page.click("button[type=submit]")
    assert "didn't match" in page.inner_text(".error")


def test_guessing_a_password_pauses_logins_with_a_page_that_says_why(page, settings) -> None:  # type: ignore[no-untyped-def]
    user = make_user(Role.ANNOTATOR, username="browser-guessed")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        page.goto("/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", "a-wrong-guess")
        page.click("button[type=submit]")
    assert "Too many failed logins" in page.inner_text("[data-testid=login-locked]")
    page.goto("/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    assert page.is_visible("[data-testid=login-locked]")
    assert not page.is_visible("[data-testid=current-user]")
