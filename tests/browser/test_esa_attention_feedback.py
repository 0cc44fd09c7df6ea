"""A loud attention check on the ESA page in a real browser: the judge scores every output with
the keyboard (the page posts to the API, then opens the next item); after a check, and only
then, the next page says it was a check, what was expected and whether the answer met it.
The judge fails the first check (the reference scored below the others) and passes the second
(the reference scored highest and, for a planted error, a span marked on it).
Screenshot: artifacts/screenshots/esa-attention-feedback.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from core.roles import Role
from judgments import services
from judgments.models import Assignment, CheckKind
from tests.browser.conftest import login
from tests.browser.test_esa_walk import _decide_proposals
from tests.factories import PASSWORD, make_user
from tests.judgments.attention_kit import ZH_REFERENCES, ZH_SOURCES, ZH_SYSTEMS, make_release_with

pytestmark = pytest.mark.django_db(transaction=True)

FEEDBACK = "This was an attention check; expected"
MET, NOT_MET = "your answer met it.", "your answer did not meet it."


def _mark_planted_error(page: Any, card: Any, start: int) -> None:
    """Put the cursor on the planted error's first character and mark it and the next one
    (any overlap with the planted span counts) as a minor error."""
    card.locator(".esa-ch").nth(start).click()
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("1")
    expect(card.locator(".esa-minor").first).to_be_visible()


def _answer_page(page: Any, assignment: Assignment, *, pass_check: bool) -> None:
    """Every output scored by keyboard, every changed-here span removed; on a check the
    reference gets 90 and the others 70 (passing), or 60 and 90 (failing)."""
    item = assignment.item
    expectation = item.check_expectation
    cards = page.locator("[data-testid=esa-output]")
    for index in range(cards.count()):
        card = cards.nth(index)
        if index:
            page.keyboard.press("j")
        position = int(card.get_attribute("data-position"))
        _decide_proposals(page, card, "x")
        score = "80"
        if item.check_kind:
            is_reference = position == expectation["reference"]
            score = (
                ("90" if is_reference else "70") if pass_check else ("60" if is_reference else "90")
            )
            planted = item.check_kind == CheckKind.PLANTED_ERROR
            if pass_check and planted and position == expectation["other"]:
                _mark_planted_error(page, card, expectation["span"][0])
        page.keyboard.press("g")
        page.keyboard.type(score)
        page.keyboard.press("Enter")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # the next page's script (end of body) handles the keys of the next item
    page.wait_for_load_state()


def test_a_loud_check_on_the_esa_page_says_failed_then_passed(page: Any, screenshot: Any) -> None:
    judge = make_user(Role.ANNOTATOR, username="esa-att-judge")
    campaign = services.create_campaign(
        name="esa-loud",
        release=make_release_with(ZH_SOURCES[:2], ZH_REFERENCES[:2]),
        system_outputs={name: lines[:2] for name, lines in ZH_SYSTEMS.items()},
        mode="esa",
        judges=[judge],
        judges_per_item=1,
        outputs_per_item=3,
        consistency_share=0.0,
        attention_share=0.5,
        attention_feedback="loud",
    )
    login(page, judge.username, PASSWORD)
    page.goto(f"/judgments/{campaign.pk}/next/")
    feedback = page.locator(".messages li", has_text=FEEDBACK)
    verdicts: list[str] = []
    for _ in range(6):
        if not page.locator("[data-testid=esa-form]").count():
            break
        assignment_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        assignment = Assignment.objects.select_related("item").get(pk=assignment_id)
        is_check = bool(assignment.item.check_kind)
        _answer_page(page, assignment, pass_check=bool(verdicts))
        if not is_check:
            expect(feedback).to_have_count(0)
            continue
        # the page after the answer (the next item, or the list when done) says what was
        # expected and how the answer fared
        expect(feedback).to_have_count(1)
        text = feedback.inner_text()
        verdicts.append(MET if MET in text else NOT_MET if NOT_MET in text else text)
        if len(verdicts) == 1:
            screenshot("esa-attention-feedback")
    assert verdicts == [NOT_MET, MET]
    assert not page.locator("[data-testid=esa-form]").count()  # every item answered
