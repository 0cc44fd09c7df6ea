"""An ESA campaign walked in a real browser on PostgreSQL + Redis + a real Celery worker: the
admin creates an ESA campaign on a Chinese release over three scored systems, three judges
decide the prefilled "changed here" spans, add spans and score every output with the
keyboard only (one judge meets the low-score guard, goes back, then confirms), and the admin
sees the ESA results (scores, spans per 100 characters, intervals, agreement, ranking) and
runs the release's meta-evaluation with the ESA ranking as the human side.
Screenshots go to artifacts/screenshots/esa-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from judgments.models import Assignment, AssignmentStatus, Campaign, Judgment
from scoring.models import MetaEvaluation
from tests.browser.conftest import login
from tests.browser.test_judgments import REFERENCES, SYSTEMS, _setup
from tests.browser.test_nav_and_edits import ConsoleWatch
from tests.factories import PASSWORD

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def _decide_proposals(page: Any, card: Any, key: str) -> int:
    """Go from span to span with ] and press `key` on each undecided changed-here span."""
    decided = 0
    for _ in range(20):
        if card.get_attribute("data-undecided") == "0":
            return decided
        page.keyboard.press("]")
        cursor = card.locator(".esa-cursor").first
        if "esa-proposed" in (cursor.get_attribute("class") or ""):
            page.keyboard.press(key)
            decided += 1
    raise AssertionError("changed-here spans left undecided")


def _mark_with_the_mouse(page: Any, card: Any) -> None:
    """Drag over the first two characters, click Minor, Shift+click the fourth: a minor span
    over the first four characters; then back to the keyboard on this output."""
    chars = card.locator(".esa-ch")
    first, second = chars.nth(0).bounding_box(), chars.nth(1).bounding_box()
    page.mouse.move(first["x"] + 2, first["y"] + first["height"] / 2)
    page.mouse.down()
    page.mouse.move(second["x"] + second["width"] - 2, second["y"] + second["height"] / 2)
    page.mouse.up()
    card.locator("[data-action=minor]").click()
    assert card.locator(".esa-minor").count() == 2
    chars.nth(0).click()  # the cursor onto the span
    chars.nth(3).click(modifiers=["Shift"])
    assert card.locator(".esa-minor").count() == 4
    card.focus()


def _judge_item(page: Any, judge: int, guard_here: bool) -> int:
    """Every output of the item on the page, by keyboard; the prefilled spans it saw."""
    cards = page.locator("[data-testid=esa-output]")
    prefilled = 0
    skipped_span = False
    for index in range(cards.count()):
        card = cards.nth(index)
        if index:
            page.keyboard.press("j")
        assert page.evaluate("document.activeElement.dataset.testid") == "esa-output"
        text = card.locator(".esa-text").inner_text().replace("\n", "")
        right = text in REFERENCES
        prefilled += int(card.get_attribute("data-undecided") or 0)
        # right outputs: every change was right (X removes); wrong ones: judges 1 and 2 keep
        # the changes as errors (major / minor), judge 3 removes them and marks the start
        key = "x" if right or judge == 3 else ("2" if judge == 1 else "1")
        _decide_proposals(page, card, key)
        spans = card.locator(".esa-minor, .esa-major").count()
        low_without_span = guard_here and not right and not skipped_span
        if not right and not spans and not low_without_span and judge == 2:
            _mark_with_the_mouse(page, card)
        elif not right and not spans and not low_without_span:
            page.keyboard.press("Home")
            page.keyboard.press("Shift+ArrowRight")  # select the first two characters
            page.keyboard.press("2")
            assert card.locator(".esa-major").count() == 2
        skipped_span = skipped_span or low_without_span
        score = ("90" if judge != 2 else "85") if right else ("30" if judge == 3 else "40")
        page.keyboard.press("g")
        page.keyboard.type(score)
        page.keyboard.press("Enter")
    if skipped_span:
        page.keyboard.press("Enter")
        guard = page.locator("[data-testid=esa-guard]")
        guard.wait_for(state="visible")
        assert "no error marked" in guard.inner_text()
        page.keyboard.press("Escape")  # back to mark errors ... then decide to keep the score
        guard.wait_for(state="hidden")
        page.keyboard.press("Enter")
        guard.wait_for(state="visible")
        with page.expect_navigation():
            page.keyboard.press("Enter")
    else:
        with page.expect_navigation():
            page.keyboard.press("Enter")
    return prefilled


def _judge_campaign(page: Any, judge: int, screenshot: Any) -> tuple[int, int]:
    page.goto("/judgments/")
    page.click("[data-testid=start-judging]")
    # A click waits for the navigation to commit, not for the page's script (end of body) to
    # run; the keys below need its handlers.
    page.wait_for_load_state()
    judged = prefilled = 0
    while page.locator("[data-testid=esa-form]").count():
        if judge == 1 and judged == 0:
            html = page.content()
            assert not any(name in html for name in SYSTEMS)  # names hidden from judges
            assert page.locator("#esa-help").get_attribute("open") is not None
            page.keyboard.press("?")  # the key help folds away and back
            expect(page.locator("#esa-help")).to_have_js_property("open", False)
            page.keyboard.press("?")
            expect(page.locator("#esa-help")).to_have_js_property("open", True)
            screenshot("esa-judge")
        prefilled += _judge_item(page, judge, guard_here=judge == 3 and judged == 0)
        judged += 1
        assert judged < 20
    return judged, prefilled


def test_an_esa_campaign_walked_by_three_judges_with_results_and_meta_evaluation(
    page: Any, screenshot: Any, celery_worker: Any
) -> None:
    release, admin, judges = _setup()
    watch = ConsoleWatch(page)

    login(page, admin.username, PASSWORD)
    page.goto("/judgments/")
    page.click("[data-testid=new-campaign]")
    page.select_option("[data-testid=pick-release]", str(release.pk))
    page.click("[data-testid=choose-release]")
    form = page.locator("[data-testid=campaign-form]")
    form.locator("#id_name").fill("zh-esa")
    form.locator("#id_mode").select_option("esa")
    for name in SYSTEMS:
        form.locator(f"input[name=systems][value={name}]").check()
    for judge in judges:
        form.locator(f"input[name=judges][value='{judge.pk}']").check()
    form.locator("#id_judges_per_item").fill("3")
    form.locator("#id_consistency_share").fill("0")
    page.click("[data-testid=create-campaign]")
    page.wait_for_selector("[data-testid=campaign-progress]")
    campaign = Campaign.objects.get(name="zh-esa")
    assert campaign.mode == "esa" and campaign.items.count() == 4

    seen_prefilled = 0
    for number, judge in enumerate(judges, start=1):
        page.context.clear_cookies()
        login(page, judge.username, PASSWORD)
        judged, prefilled = _judge_campaign(page, number, screenshot)
        seen_prefilled += prefilled
        mine = Assignment.objects.filter(campaign=campaign, judge=judge)
        assert judged == mine.count() == 4
        assert not mine.exclude(status=AssignmentStatus.DONE).exists()
        assert all(0 < a.seconds_spent <= 120 for a in mine)
    assert seen_prefilled >= 3 * 4  # every judge saw changed-here spans
    answers = [a for j in Judgment.objects.filter(assignment__campaign=campaign) for a in j.esa]
    origins = {s["origin"] for a in answers for s in a["spans"]}
    assert origins == {"prefilled", "added"}
    assert any(a["dismissed"] for a in answers)
    assert any(a["score"] == 30 and not a["spans"] for a in answers)  # the confirmed guard
    by_mouse = {"start": 0, "end": 4, "severity": "minor", "origin": "added"}
    second = Judgment.objects.filter(assignment__judge=judges[1])
    assert any(by_mouse in a["spans"] for j in second for a in j.esa)

    page.context.clear_cookies()
    login(page, admin.username, PASSWORD)
    page.goto(f"/judgments/{campaign.pk}/results/")
    # computed by the worker; the page reloads itself when the job is done
    table = page.locator("[data-testid=esa-ranking]")
    table.wait_for(timeout=90000)
    rows = table.locator("tbody tr")
    assert rows.count() == 3
    assert rows.first.get_attribute("data-system") == "AlphaGEC"
    scores = [float(s) for s in table.locator("[data-testid=esa-score]").all_inner_texts()]
    assert scores == sorted(scores, reverse=True) and scores[0] == pytest.approx(88.3, abs=0.1)
    intervals = table.locator("[data-testid=esa-score-interval]").all_inner_texts()
    assert all("–" in i and i != "–" for i in intervals)
    majors = [float(s) for s in table.locator("[data-testid=esa-major]").all_inner_texts()]
    assert majors[0] == 0 and all(m > 0 for m in majors[1:])
    agreement = page.inner_text("[data-testid=esa-agreement]")
    assert "span F1" in agreement and "n/a" not in agreement.split("score correlation")[1][:20]
    assert page.locator("[data-testid=esa-judges] tbody tr").count() == 3
    screenshot("esa-results")

    page.click("[data-testid=meta-link]")
    page.select_option("select[name=human]", f"campaign:{campaign.pk}")
    assert page.locator("[data-testid=human-method]").input_value() == "esa"
    for box in page.locator("input[name=metrics]").all():
        box.check()
    page.click("[data-testid=meta-run]")
    page.wait_for_selector("[data-testid=meta-table]", timeout=90000)  # run by the worker
    run = MetaEvaluation.objects.filter(campaign_id=campaign.pk).latest("pk")
    assert run.status == "done" and run.human_method == "esa"
    assert "ESA mean score" in run.human_label
    assert set(run.human) == set(SYSTEMS)
    assert page.locator("[data-testid=meta-row]").count() >= 1
    screenshot("esa-meta")
    assert watch.violations() == []
