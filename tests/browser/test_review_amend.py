"""Amending a saved review in the browser: a reviewer opens a saved review, amends it by
keyboard (the form starts from the saved verdicts and added reference), gives a reason, saves
with Ctrl+Enter, and sees the new references and the history; no JavaScript error."""

from __future__ import annotations

from typing import Any

import pytest

from datasets.models import GoldenReference
from review.models import ReviewAmendment
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all
from tests.browser.conftest import login
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

FIX = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"
ADDED = "我昨天去图书馆借了三本书回来。"


def test_reviewer_amends_a_saved_review_by_keyboard(page: Any, screenshot: Any) -> None:
    world = make_world()
    submit_all(world, 0, [([FIX, WRONG], ""), ([FIX], ""), ([FIX], "")])
    task = world.task()
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
        added=[ADDED],
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login(page, world.reviewer.username, PASSWORD)
    page.goto(f"/review/t/{task.pk}/")
    page.click("[data-testid=amend-link]")
    page.wait_for_selector("[data-testid=amend-notice]")
    assert page.locator("input[name=verdict-1]:checked").get_attribute("value") == "wrong"
    assert page.locator("#added textarea").input_value() == ADDED
    focused = ".candidate.correction.focused"
    assert page.locator(focused).get_attribute("data-position") == "0"
    page.keyboard.press("j")
    assert page.locator(focused).get_attribute("data-position") == "1"
    page.keyboard.press("c")  # WRONG is correct after all
    assert page.locator("input[name=verdict-1]:checked").get_attribute("value") == "correct"
    page.fill("[data-testid=amend-reason]", "second look")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-testid=amendment-history]")
    screenshot("review-amended")
    assert "second look" in page.inner_text("[data-testid=amendment-history]")
    current = GoldenReference.objects.filter(sentence=task.sentence, is_current=True)
    assert [r.text for r in current] == [FIX, WRONG, ADDED]
    assert ReviewAmendment.objects.get().amended_by == world.reviewer
    assert errors == []
