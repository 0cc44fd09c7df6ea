"""A loud attention check in a real browser: a judge ranks items on the ordinary judging page
with the keyboard; after answering a check (and only then) the next page says it was a check
and what was expected. The admin's results page shows the judge's pass rate.
Screenshot: artifacts/screenshots/attention-feedback.png."""

from __future__ import annotations

from typing import Any

import pytest

from core.roles import Role
from judgments import services
from judgments.models import Assignment
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user
from tests.judgments.attention_kit import ZH_REFERENCES, ZH_SOURCES, ZH_SYSTEMS, make_release_with

pytestmark = pytest.mark.django_db(transaction=True)

FEEDBACK = "This was an attention check; expected"


def test_a_loud_check_shows_feedback_after_the_answer(page: Any, screenshot: Any) -> None:
    admin = make_user(Role.ADMIN, username="att-admin")
    judges = [make_user(Role.ANNOTATOR, username=f"att-judge{i}") for i in (1, 2)]
    campaign = services.create_campaign(
        name="loud-checks",
        release=make_release_with(ZH_SOURCES[:4], ZH_REFERENCES[:4]),
        system_outputs={name: lines[:4] for name, lines in ZH_SYSTEMS.items()},
        judges=judges,
        judges_per_item=1,
        outputs_per_item=3,
        consistency_share=0.0,
        attention_share=0.5,
        attention_feedback="loud",
        created_by=admin,
    )
    judge = judges[0]
    login(page, judge.username, PASSWORD)
    page.goto(f"/judgments/{campaign.pk}/next/")
    seen_feedback = 0
    checks = 0
    for _ in range(20):
        if not page.locator("[data-testid=judge-form]").count():
            break
        assignment_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        is_check = bool(Assignment.objects.get(pk=assignment_id).item.check_kind)
        checks += is_check
        count = page.locator("[data-testid=output]").count()
        for _ in range(count):
            page.keyboard.press("1")  # every output tied first
        with page.expect_navigation():
            page.keyboard.press("Enter")
        # the page after the answer (the next item, or the list when done) says it was a
        # check exactly when it was one
        shown = FEEDBACK in page.content()
        assert shown == is_check, (assignment_id, is_check)
        if shown:
            seen_feedback += 1
            screenshot("attention-feedback")
    assert checks >= 1 and seen_feedback == checks

    page.context.clear_cookies()
    login(page, admin.username, PASSWORD)
    page.goto(f"/judgments/{campaign.pk}/results/")
    row = page.locator("[data-testid=attention-judge]").first
    assert judge.username in row.inner_text()
