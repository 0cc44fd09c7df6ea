"""Regression: on a 1024 x 640 laptop the annotation page's diff and Submit were below the
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


# A MuCGEC dev sentence of 239 characters and its reference.
LONG_SOURCE = (
    "说起孩子的成长过程，父母毫无疑问对孩子举轻重的作用。尤其是在孩子上小学和初中的年龄中，父母言行"
    "肯定会影响孩子在思想、心理等方面的发展。当我们用“修养”这个来形容某个人的素质，这一般是指这个人在"
    "童年中受到什么样的教育及教养：在父母积极的熏陶下，孩子逐渐地成为一个心理素质高的颇具修养的成年人，"
    "这样一来在以后的生活中走上一条充满成功的道路；相对而言，特別是在陷入贫困处境的家庭里，孩子可能会受"
    "到庸俗文化的坏影响，结果在以后生活中没法取得出色的成就，，反而沦为黑社会等恶劣的社会领域。"
)
LONG_FIX = (
    "说起孩子的成长过程，父母毫无疑问对孩子起着举足轻重的作用。尤其是在孩子上小学和初中的过程中，父母"
    "言行肯定会影响孩子思想、心理等方面的发展。当我们用“修养”这个词来形容某个人的素质，这一般是指这个人"
    "在童年中受到什么样的教育及影响：在父母积极的熏陶下，孩子逐渐地成为一个心理素质高的颇具修养的成年人，"
    "这样一来在以后的生活中走上一条充满成功的道路；相对而言，特别是在陷入贫困处境的家庭里，孩子可能会受"
    "到庸俗文化的坏影响，结果在以后生活中没法取得出色的成就，，反而沦为黑社会等恶劣的社会领域的人士。"
)


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1024, 640)])
def test_a_long_sentence_grows_its_box_and_keeps_submit_in_view(
    page: Any, screenshot: Any, width: int, height: int
) -> None:
    """The box grows to its text (a 239-character sentence scrolled inside two rows), so the
    whole correction and its diff can be read; Submit stays in the window."""
    assert len(LONG_SOURCE) == 239
    annotator = make_user(Role.ANNOTATOR, username=f"long{width}")
    dataset = make_dataset(name=f"long{width}", sentences=[LONG_SOURCE], k=1)
    dataset.annotators.set([annotator])
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=0, by=make_user(Role.ADMIN))
    page.set_viewport_size({"width": width, "height": height})
    login(page, annotator.username, PASSWORD)
    page.goto("/annotate/next/")
    area = page.locator("[data-testid=box] textarea").first
    # Opened with the source in it, the box already shows all of it.
    assert area.evaluate("e => e.scrollHeight - e.clientHeight") <= 1
    area.fill(LONG_FIX)
    page.wait_for_selector("[data-testid=box] .diff .edit-ins")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(f"annotate-long-{width}x{height}", full_page=False)
    assert area.evaluate("e => e.scrollHeight - e.clientHeight") <= 1
    submit = page.locator("#submit-button").bounding_box()
    assert submit is not None and submit["y"] >= 0 and submit["y"] + submit["height"] <= height
    hit = page.evaluate(
        """() => { const b = document.getElementById('submit-button').getBoundingClientRect();
                   const e = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
                   return !!e.closest('#submit-button'); }"""
    )
    assert hit, "Submit is covered"
    if height >= 900:
        # On a 1440 x 900 screen the box and its whole diff are in view as well.
        for selector in ("[data-testid=box] textarea", "[data-testid=box] .diff"):
            box = page.locator(selector).first.bounding_box()
            assert box is not None
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)
