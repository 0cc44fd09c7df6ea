"""Regression: the first English live diff waited on the language model for over a second
and the page said nothing. A diff that is slow to come says it is being worked out (and, on
an English dataset, why the first one is slow)."""

from __future__ import annotations

from typing import Any

import pytest

from core.roles import Role
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_slow_english_diff_says_the_model_is_loading(page: Any) -> None:
    annotator = make_user(Role.ANNOTATOR, username="slowdiff")
    dataset = make_dataset(name="slow-en", sentences=["He go to school yesterday ."], k=1)
    dataset.language = "en"
    dataset.save(update_fields=["language"])
    dataset.annotators.set([annotator])
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=0, by=make_user(Role.ADMIN))
    login(page, annotator.username, PASSWORD)
    held: list[Any] = []
    page.route("**/api/diff/", lambda route: held.append(route))  # never answered
    page.goto("/annotate/next/")
    page.locator("[data-testid=box] textarea").first.fill("He went to school yesterday .")
    note = page.wait_for_selector("[data-testid=diff-loading]", timeout=5000)
    assert "loads the language model" in note.inner_text()
    assert held  # the diff was asked for and is still on its way
