"""The review page at annotator speed: a reviewer judges two sentences with the
keyboard only, sees "n of m" in the queue and the status preselected by the majority."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from annotate.models import Assignment
from annotate.services import submit_correction
from core.roles import Role
from datasets.models import GoldenReference, Judgement
from review.models import ReviewStatus, ReviewTask, Verdict
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

FIRST = "我昨天去了图书馆借书了三本。"
FIRST_FIXES = ["我昨天去图书馆借了三本书。", "我昨天去了图书馆借了三本书。"]
SECOND = "他对中国的历史很感兴趣。"
SECOND_FIX = "他对中国历史很感兴趣。"


def _focused_position(page: Any) -> str:
    return str(page.locator(".candidate.correction.focused").get_attribute("data-position"))


def _verdict(page: Any, position: str) -> str | None:
    checked = page.locator(f"input[name=verdict-{position}]:checked")
    return checked.get_attribute("value") if checked.count() else None


def _status(page: Any) -> str:
    return str(page.locator("input[name=judgement]:checked").get_attribute("value"))


def test_reviewer_works_through_the_queue_with_the_keyboard(page, screenshot) -> None:  # type: ignore[no-untyped-def]
    annotators = [make_user(Role.ANNOTATOR, username=f"kb-annotator{i}") for i in (1, 2, 3)]
    reviewer = make_user(Role.REVIEWER, username="kb-reviewer")
    admin = make_user(Role.ADMIN, username="kb-admin")
    dataset = make_dataset(name="keyboard", sentences=[FIRST, SECOND])
    dataset.annotators.set(annotators)
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=3, by=admin)
    answers = {
        FIRST: [([FIRST_FIXES[0]], ""), ([FIRST_FIXES[1]], ""), ([], "error_free")],
        SECOND: [([], "error_free"), ([SECOND_FIX], ""), ([], "error_free")],
    }
    for text, per_annotator in answers.items():
        for annotator, (texts, tag) in zip(annotators, per_annotator, strict=True):
            assignment = Assignment.objects.get(annotator=annotator, sentence__text=text)
            submit_correction(assignment_id=assignment.pk, user=annotator, texts=texts, tag=tag)
    first_task = ReviewTask.objects.get(sentence__text=FIRST)
    second_task = ReviewTask.objects.get(sentence__text=SECOND)
    # The queue is ordered by when the review became ready: make FIRST come first.
    ReviewTask.objects.filter(pk=first_task.pk).update(
        opened_at=timezone.now() - timedelta(hours=2)
    )
    ReviewTask.objects.filter(pk=second_task.pk).update(
        opened_at=timezone.now() - timedelta(hours=1)
    )

    login(page, reviewer.username, PASSWORD)
    page.click("[data-testid=home-review-queue]")
    page.click("[data-testid=start-review]")
    page.wait_for_selector("[data-testid=shortcut-legend]")
    assert page.inner_text("[data-testid=source]") == FIRST
    assert page.inner_text("[data-testid=queue-position]") == "1 of 2"
    page.click("[data-testid=shortcut-legend] summary")  # one line until opened
    legend = page.inner_text("[data-testid=shortcut-legend]")
    for shortcut in ("next / previous correction", "correct / wrong", "save and open the next"):
        assert shortcut in legend
    # 2 of 3 annotators corrected the sentence: "annotatable" is preselected, with the reason.
    assert _status(page) == Judgement.ANNOTATABLE
    assert "2 of 3 annotators corrected the sentence" in page.inner_text(
        "[data-testid=status-reason]"
    )
    positions = page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('[data-testid=candidate]'))
               .map(c => [c.querySelector('textarea').value, c.dataset.position]))"""
    )
    first, second = (positions[text] for text in FIRST_FIXES)
    assert _focused_position(page) == "0"

    # C on the focused correction marks it correct and moves to the next without a verdict.
    focused = _focused_position(page)
    page.keyboard.press("c")
    assert _verdict(page, focused) == "correct"
    other = second if focused == first else first
    assert _focused_position(page) == other
    page.keyboard.press("k")
    assert _focused_position(page) == focused
    page.keyboard.press("j")
    assert _focused_position(page) == other
    page.keyboard.press("w")
    assert _verdict(page, other) == "wrong"
    # 2 / 3 / 1 set the status; typed letters in a text box stay text.
    page.keyboard.press("2")
    assert _status(page) == Judgement.ERROR_FREE
    page.keyboard.press("3")
    assert _status(page) == Judgement.NOT_ANNOTATABLE
    page.keyboard.press("1")
    assert _status(page) == Judgement.ANNOTATABLE
    page.keyboard.press("e")
    edit_box = page.locator(f"[data-testid=candidate][data-position='{other}'] textarea")
    assert edit_box.evaluate("el => el === document.activeElement")
    page.keyboard.type("cw12")
    assert edit_box.input_value().endswith("cw12")
    assert _verdict(page, other) == "wrong" and _status(page) == Judgement.ANNOTATABLE
    edit_box.fill(positions_text(positions, other))
    page.keyboard.press("Escape")
    assert _focused_position(page) == other
    screenshot("review-keyboard")

    # Ctrl+Enter saves and opens the next sentence of the queue.
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("text=Review saved: 1 golden reference(s)")
    assert page.inner_text("[data-testid=source]") == SECOND
    assert page.inner_text("[data-testid=queue-position]") == "2 of 2"
    assert "1 reviewed" in page.inner_text("[data-testid=queue-progress]")
    # 2 of 3 tagged ERROR FREE: "error free" is preselected, with the reason.
    assert _status(page) == Judgement.ERROR_FREE
    assert "2 of 3 annotators tagged ERROR FREE" in page.inner_text("[data-testid=status-reason]")
    page.keyboard.press("w")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("text=Review saved: 1 golden reference(s)")
    assert page.url.endswith("/review/")

    first_task.refresh_from_db()
    second_task.refresh_from_db()
    assert first_task.status == second_task.status == ReviewStatus.DONE
    first_task.sentence.refresh_from_db()
    second_task.sentence.refresh_from_db()
    verdicts = {
        v.text: v.is_correct for v in Verdict.objects.filter(task=first_task, kind="correction")
    }
    by_position = {positions[text]: text for text in FIRST_FIXES}
    assert verdicts == {by_position[focused]: True, by_position[other]: False}
    assert [r.text for r in GoldenReference.objects.filter(sentence=first_task.sentence)] == [
        by_position[focused]
    ]
    assert first_task.sentence.judgement == Judgement.ANNOTATABLE
    assert second_task.sentence.judgement == Judgement.ERROR_FREE
    assert Verdict.objects.get(task=second_task, kind="correction").is_correct is False


def positions_text(positions: dict[str, str], position: str) -> str:
    """The correction text at `position` (to undo the typing check)."""
    return next(text for text, where in positions.items() if where == position)
