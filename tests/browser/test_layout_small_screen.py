"""Issue 28 D25: on a 1024 x 640 laptop the annotation page's diff and Submit were below the
fold. At 1024 x 640 and 1400 x 900: no horizontal overflow, the correction box, its live
diff and Submit visible without scrolling. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest

from core.roles import Role
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "我昨天去了图书馆借书了三本，然后回家写了作业。"


@pytest.mark.parametrize(("width", "height"), [(1024, 640), (1400, 900)])
def test_annotation_page_fits_the_screen(
    page: Any, screenshot: Any, width: int, height: int
) -> None:
    annotator = make_user(Role.ANNOTATOR, username=f"fit{width}")
    dataset = make_dataset(name=f"fit{width}", sentences=[SOURCE], k=1)
    dataset.annotators.set([annotator])
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=0, by=make_user(Role.ADMIN))
    page.set_viewport_size({"width": width, "height": height})
    login(page, annotator.username, PASSWORD)
    page.goto("/annotate/next/")
    area = page.locator("[data-testid=box] textarea").first
    area.fill("我昨天去图书馆借了三本书，然后回家写了作业。")
    page.wait_for_selector(
        "[data-testid=box] .diff ins, [data-testid=box] .diff del, [data-testid=box] .diff .edit-ins, [data-testid=box] .diff .edit-del"
    )
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(f"annotate-{width}x{height}")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    for selector in ("[data-testid=box] textarea", "[data-testid=box] .diff", "#submit-button"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)
