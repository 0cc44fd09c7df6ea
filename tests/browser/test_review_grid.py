"""The review page's chunk grid: three corrections aligned on shared CLEME chunks."""

from __future__ import annotations

import pytest
from gecscore.cleme.grid import chunk_grid_from_texts

from annotate.models import Assignment
from annotate.services import submit_correction
from core.roles import Role
from review.models import ReviewTask
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "他是一个很有意思人，我们都喜欢跟他聊天。"
CORRECTIONS = [
    "他是一个很有意思的人，我们都喜欢跟他聊天。",
    "他是一个很有趣的人，我们都喜欢和他聊天。",
    "他是个很有意思的人，我们都喜欢跟他聊天。",
]


def test_reviewer_compares_three_corrections_in_the_chunk_grid(page, screenshot) -> None:  # type: ignore[no-untyped-def]
    annotators = [make_user(Role.ANNOTATOR, username=f"grid-annotator{i}") for i in (1, 2, 3)]
    reviewer = make_user(Role.REVIEWER, username="grid-reviewer")
    admin = make_user(Role.ADMIN, username="grid-admin")
    dataset = make_dataset(name="grid", sentences=[SOURCE])
    dataset.annotators.set(annotators)
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=1, by=admin)
    for annotator, text in zip(annotators, CORRECTIONS, strict=True):
        assignment = Assignment.objects.get(annotator=annotator)
        submit_correction(assignment_id=assignment.pk, user=annotator, texts=[text])
    task = ReviewTask.objects.get(sentence__dataset=dataset)

    login(page, reviewer.username, PASSWORD)
    page.goto(f"/review/t/{task.pk}/")
    grid = page.locator("[data-testid=chunk-grid]")
    assert not grid.is_visible()  # folded until the reviewer asks for it
    page.click("[data-testid=chunk-grid-toggle] summary")
    grid.wait_for()

    expected = chunk_grid_from_texts(SOURCE, CORRECTIONS)
    rows = page.locator("[data-testid=chunk-grid-row]")
    assert rows.count() == 3
    header_cells = grid.locator("thead th")
    assert header_cells.count() == len(expected.columns) + 1
    shown_rows = {tuple(rows.nth(r).locator("td").all_inner_texts()) for r in range(rows.count())}
    expected_rows = {tuple(cell.text or "∅" for cell in row) for row in expected.rows}
    assert shown_rows == expected_rows
    # Every correction changed something, and some column is one the three disagree on.
    assert grid.locator("td.chunk-changed").count() >= 3
    assert grid.locator("th.chunk-disagree").count() >= 1
    screenshot("review-chunk-grid")
