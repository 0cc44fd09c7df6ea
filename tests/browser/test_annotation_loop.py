"""The whole MuCGEC loop in a real browser (Playwright + Debian Chromium).

Three annotators correct a sentence (one gives two corrections, one says ERROR FREE), the
reviewer accepts one correction, edits one, rejects one and adds a reference, golden
references appear, the rejected annotator revises in self-study and complains, and the
reviewer accepts the complaint. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

from typing import Any

import pytest

from annotate.models import Assignment, Submission
from core.roles import Role
from datasets.models import GoldenReference, ReferenceOrigin
from gecscore import extract_edits
from review.models import Complaint, ComplaintStatus, StudyItem
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "我昨天去了图书馆借书了三本。"
FIX_B = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"
FIX_C = "我昨天去了图书馆，借了三本书。"
FIX_C_EDITED = "昨天我去了图书馆，借了三本书。"
ADDED = "我昨天去图书馆借了三本书回来。"
COMPLAINT_FIX = "我昨天去了图书馆借了三本书。"


@pytest.fixture
def other_contexts():  # type: ignore[no-untyped-def]
    """Browser contexts of the other users, closed before the live server stops."""
    contexts: list[Any] = []
    yield contexts
    for context in contexts:
        context.close()


def _page_for(browser: Any, live_server: Any, username: str, contexts: list[Any]) -> Any:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    contexts.append(context)
    page = context.new_page()
    page.set_default_timeout(15000)
    login(page, username, PASSWORD)
    return page


def _wait_for_diff(box: Any, expected_edits: int) -> None:
    box.locator(f"[data-testid=diff][data-edits='{expected_edits}']").wait_for()


def test_whole_mucgec_loop(browser, live_server, page, screenshot, other_contexts) -> None:  # type: ignore[no-untyped-def]
    a1, a2, a3 = (make_user(Role.ANNOTATOR, username=f"loop-annotator{i}") for i in (1, 2, 3))
    reviewer = make_user(Role.REVIEWER, username="loop-reviewer")
    admin = make_user(Role.ADMIN, username="loop-admin")
    dataset = make_dataset(name="loop", sentences=[SOURCE])
    dataset.annotators.set([a1, a2, a3])
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=0, by=admin)

    # --- annotator 1: two corrections, live diff, draft survives a reload, keyboard submit.
    login(page, a1.username, PASSWORD)
    page.click("[data-testid=home-next]")
    page.wait_for_selector("[data-testid=source]")
    assert page.inner_text("[data-testid=source]") == SOURCE
    boxes = page.locator("[data-testid=box]")
    # A sentence typed into the wrong item is flagged while typing.
    boxes.nth(0).locator("textarea").fill("他对中国的历史很感兴趣。")
    assert "shares only" in page.inner_text("[data-testid=client-warnings]")
    boxes.nth(0).locator("textarea").fill(FIX_B)
    assert "shares only" not in page.inner_text("[data-testid=client-warnings]")
    _wait_for_diff(boxes.nth(0), len(extract_edits(SOURCE, FIX_B)))
    page.keyboard.press("Alt+n")
    assert boxes.count() == 2
    # The new box starts from the correction being written, not the source.
    assert boxes.nth(1).locator("textarea").input_value() == FIX_B
    boxes.nth(1).locator("textarea").fill(WRONG)
    _wait_for_diff(boxes.nth(1), len(extract_edits(SOURCE, WRONG)))
    page.reload()
    page.wait_for_selector("#draft-note:not([hidden])")
    assert [boxes.nth(i).locator("textarea").input_value() for i in range(boxes.count())] == [
        FIX_B,
        WRONG,
    ]
    _wait_for_diff(boxes.nth(1), len(extract_edits(SOURCE, WRONG)))
    screenshot("annotation-page")
    boxes.nth(1).locator("textarea").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("text=Nothing left to annotate")
    assert page.inner_text("[data-testid=progress]").startswith("1 / 1")

    # --- annotator 2: one correction; annotator 3: ERROR FREE.
    page2 = _page_for(browser, live_server, a2.username, other_contexts)
    page2.goto("/annotate/next/")
    # The box has the focus on load, so a keyboard-only annotator types at once.
    assert page2.evaluate(
        "document.activeElement === document.querySelector('[data-testid=box] textarea')"
    )
    page2.locator("[data-testid=box] textarea").fill(FIX_C)
    page2.click("#submit-button")
    page2.wait_for_selector("text=Nothing left to annotate")
    page3 = _page_for(browser, live_server, a3.username, other_contexts)
    page3.goto("/annotate/next/")
    page3.click("#tag-error-free")
    assert page3.locator("[data-testid=box] textarea").is_disabled()
    page3.click("#submit-button")
    page3.wait_for_selector("text=Nothing left to annotate")
    assert Submission.objects.count() == 3

    # --- reviewer: accept, edit, reject, add; golden references appear.
    review = _page_for(browser, live_server, reviewer.username, other_contexts)
    review.click("[data-testid=home-review-queue]")
    review.click("[data-testid=start-review]")
    review.wait_for_selector("[data-testid=candidate]")
    positions = review.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('[data-testid=candidate]'))
               .map(c => [c.querySelector('textarea').value, c.dataset.position]))"""
    )
    assert set(positions) == {FIX_B, WRONG, FIX_C}
    supports = review.locator("[data-testid=support]").all_inner_texts()
    assert all(text.startswith("1 of 3") for text in supports)
    # The tag in words, as the annotator's button says it (not the marker or "error_free").
    tag = review.locator("[data-testid=tag-candidate]").inner_text()
    assert tag.count("ERROR FREE") == 1 and "error_free" not in tag

    def candidate(text: str) -> Any:
        return review.locator(f"[data-testid=candidate][data-position='{positions[text]}']")

    candidate(FIX_B).locator("[data-testid=correct]").check()
    candidate(WRONG).locator("[data-testid=wrong]").check()
    candidate(FIX_C).locator("[data-testid=correct]").check()
    candidate(FIX_C).locator("[data-testid=edit]").fill(FIX_C_EDITED)
    _wait_for_diff(candidate(FIX_C), len(extract_edits(SOURCE, FIX_C_EDITED)))
    review.click("#add-reference")
    review.locator("[data-testid=added-reference] textarea").fill(ADDED)
    _wait_for_diff(
        review.locator("[data-testid=added-reference]"), len(extract_edits(SOURCE, ADDED))
    )
    review.check("input[name=judgement][value=annotatable]")
    screenshot_page(review, "review-page")
    review.click("#review-submit")
    review.wait_for_selector("text=Review saved: 3 golden reference(s), 2 study item(s).")
    current = GoldenReference.objects.filter(is_current=True).order_by("position")
    assert [(r.text, r.origin) for r in current] == [
        (FIX_B, ReferenceOrigin.ANNOTATORS),
        (FIX_C_EDITED, ReferenceOrigin.EDITED),
        (ADDED, ReferenceOrigin.ADDED),
    ]
    review.goto(f"/review/t/{current[0].sentence.review_task.pk}/")
    golden = review.inner_text("[data-testid=golden-references]")
    assert (
        "from annotators as-is" in golden
        and "edited by the reviewer" in golden
        and "added by the reviewer" in golden
    )

    # --- annotator 1 studies, revises (revision 2) and complains.
    page.goto("/annotate/")
    page.click("[data-testid=study-items] a")
    page.wait_for_selector("[data-testid=golden-references]")
    assert page.locator("[data-testid=golden-references] li").count() == 3
    # The revision starts from the annotator's own two corrections; the
    # wrong one is deleted, the right one kept.
    study_boxes = page.locator("[data-testid=box]")
    assert [
        study_boxes.nth(i).locator("textarea").input_value() for i in range(study_boxes.count())
    ] == [FIX_B, WRONG]
    study_boxes.nth(1).locator(".delete-box").click()
    assert study_boxes.count() == 1
    _wait_for_diff(page.locator("[data-testid=box]"), len(extract_edits(SOURCE, FIX_B)))
    screenshot("study-page")
    page.click("#submit-button")
    page.wait_for_selector("text=Revision 2 saved.")
    item = StudyItem.objects.get(assignment__annotator=a1)
    assert [s.revision for s in Submission.objects.filter(assignment=item.assignment)] == [1, 2]
    assert [
        c.text
        for c in Submission.objects.get(assignment=item.assignment, revision=1).corrections.all()
    ] == [FIX_B, WRONG]
    page.select_option("#complaint-reference", index=3)
    page.fill("#complaint-text", f"“{ADDED}” changes the meaning; “{COMPLAINT_FIX}” is closer.")
    page.click("#complaint-submit")
    page.wait_for_selector("text=Complaint filed")

    # --- the reviewer discusses and accepts: a new revision, the old one kept.
    review.goto("/review/")
    review.click("[data-testid=open-complaints] a")
    review.fill("#message-text", "Agreed, replacing the added reference.")
    review.click("#message-submit")
    review.wait_for_selector("text=Message posted.")
    review.locator("#resolve-references textarea").nth(2).fill(COMPLAINT_FIX)
    _wait_for_diff(
        review.locator("#resolve-references .box").nth(2), len(extract_edits(SOURCE, COMPLAINT_FIX))
    )
    review.fill("#resolve-note", "Replaced.")
    screenshot_page(review, "complaint-page")
    review.click("#accept-button")
    review.wait_for_selector("text=Complaint accepted.")
    assert Complaint.objects.get().status == ComplaintStatus.ACCEPTED
    revised = list(GoldenReference.objects.filter(is_current=True).order_by("position"))
    assert [(r.revision, r.text) for r in revised] == [
        (2, FIX_B),
        (2, FIX_C_EDITED),
        (2, COMPLAINT_FIX),
    ]
    assert GoldenReference.objects.filter(revision=1, is_current=False).count() == 3

    # --- the annotator sees the resolution on their dashboard.
    page.goto("/annotate/")
    assert "was accepted" in page.inner_text("body")
    assert Assignment.objects.filter(status="submitted").count() == 3


def screenshot_page(page: Any, name: str) -> None:
    from tests.browser.conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
