"""The review page on a 1024 x 640 laptop and a 1440 x 900 screen: a keyboard reviewer sees the
source, the focused correction, the sentence status with its "Preselected" reason and "Save
and next" without scrolling, so Ctrl+Enter never saves a status nobody saw. Screenshots in
artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest

from annotate.models import Assignment
from annotate.services import submit_correction
from core.roles import Role
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "我昨天去了图书馆借书了三本，然后回家写了作业。"
FIXES = [
    "我昨天去图书馆借了三本书，然后回家写了作业。",
    "我昨天去了图书馆借了三本书，然后回家写作业。",
]


def _in_view(page: Any, selector: str, height: int) -> None:
    """The element is inside the window and is what the window shows at its centre (not
    hidden under another element)."""
    element = page.locator(selector).first
    box = element.bounding_box()
    assert box is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)
    on_top = element.evaluate(
        """e => { const r = e.getBoundingClientRect();
                  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                  return e === hit || e.contains(hit); }"""
    )
    assert on_top, f"{selector} is covered by another element"


@pytest.mark.parametrize(("width", "height"), [(1024, 640), (1440, 900)])
def test_review_status_and_save_are_visible_with_the_source(
    page: Any, screenshot: Any, width: int, height: int
) -> None:
    annotators = [make_user(Role.ANNOTATOR, username=f"fold{width}-{i}") for i in (1, 2, 3)]
    reviewer = make_user(Role.REVIEWER, username=f"fold-reviewer{width}")
    dataset = make_dataset(name=f"fold{width}", sentences=[SOURCE])
    dataset.annotators.set(annotators)
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=0, by=make_user(Role.ADMIN))
    for annotator, (texts, tag) in zip(
        annotators, [([FIXES[0]], ""), ([FIXES[1]], ""), ([], "error_free")], strict=True
    ):
        assignment = Assignment.objects.get(annotator=annotator)
        submit_correction(assignment_id=assignment.pk, user=annotator, texts=texts, tag=tag)

    page.set_viewport_size({"width": width, "height": height})
    login(page, reviewer.username, PASSWORD)
    page.click("[data-testid=home-review-queue]")
    page.click("[data-testid=start-review]")
    page.wait_for_selector(".candidate.correction.focused")
    screenshot(f"review-{width}x{height}", full_page=False)
    assert page.evaluate("window.scrollY") == 0
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    for selector in (
        "[data-testid=source]",
        ".candidate.correction.focused .candidate-head",
        "[data-testid=status-choice]",
        "[data-testid=status-reason]",
        "#review-submit",
    ):
        _in_view(page, selector, height)
    assert "Preselected" in page.inner_text("[data-testid=status-reason]")
    # The keyboard legend is one line until opened, and still lists every key when opened.
    legend = page.locator("[data-testid=shortcut-legend]")
    assert legend.bounding_box()["height"] <= 48
    legend.locator("summary").click()
    assert "save and open the next" in legend.inner_text()

    # Moving to the second correction with J keeps it, the status and Save in view.
    page.keyboard.press("j")
    _in_view(page, ".candidate.correction.focused .verdict-choice", height)
    _in_view(page, "#review-submit", height)
