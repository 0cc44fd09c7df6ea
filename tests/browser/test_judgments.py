"""Human judgments in a real browser: an admin creates an edits-mode campaign on a Chinese
release over three scored systems, three judges mark every edit and rank the outputs with the
keyboard only, and the admin sees the human ranking with rank ranges, agreement and per-judge
statistics (and, when the release's meta-evaluation page offers the campaign, runs it).
Screenshots go to artifacts/screenshots/judgments-*.png."""

from __future__ import annotations

from typing import Any

import pytest

from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from judgments.models import Assignment, AssignmentStatus, Campaign, Judgment
from scoring.services.systems import score_now, upload_system_output
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCES = ["我很喜欢吃平果", "他是一个好学升", "今天天汽很好", "我们一起去公圆"]
REFERENCES = ["我很喜欢吃苹果", "他是一个好学生", "今天天气很好", "我们一起去公园"]
SYSTEMS = {
    "AlphaGEC": REFERENCES,
    "BetaGEC": ["我很喜欢吃平果", "他是一个好学生", "今天天汽很好", "我们一起去公园"],
    "GammaGEC": ["我很喜欢吃苹果了", "他是个好学升", "今天天气很好", "我们去公圆"],
}


def _setup() -> Any:
    dataset = make_dataset(name="judged-zh", sentences=SOURCES)
    for sentence, ref in zip(dataset.sentences.order_by("position"), REFERENCES, strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    admin = make_user(Role.ADMIN, username="j-admin")
    release = release_dataset(dataset=dataset, user=admin)
    for name, lines in SYSTEMS.items():
        data = "".join(
            f"{i + 1}\t{src}\t{hyp}\n"
            for i, (src, hyp) in enumerate(zip(SOURCES, lines, strict=True))
        )
        system = upload_system_output(
            version=release, name=name, data=data.encode(), file_name=f"{name}.txt", user=admin
        )
        score_now(system=system, user=admin)
    judges = [make_user(Role.ANNOTATOR, username=f"judge{i}") for i in (1, 2, 3)]
    return release, admin, judges


def _preference(text: str, judge: int) -> int:
    """Judges prefer the reference-like output; judge 3 disagrees on the second-best one."""
    if text in REFERENCES:
        return 1
    if text in SYSTEMS["BetaGEC"]:
        return 2 if judge != 3 else 3
    return 3 if judge != 3 else 2


def _judge_with_keyboard(page, judge_number: int) -> int:  # type: ignore[no-untyped-def]
    page.goto("/judgments/")
    page.click("[data-testid=start-judging]")
    judged = 0
    while page.locator("[data-testid=judge-form]").count():
        progress = page.inner_text("[data-testid=progress]")
        assert " of " in progress
        outputs = page.locator("[data-testid=output]")
        count = outputs.count()
        texts = [
            outputs.nth(i).locator(".diff").inner_text().replace("\n", "") for i in range(count)
        ]
        # the diff shows deletions and insertions; the output text is the insertions kept
        shown = [
            "".join(outputs.nth(i).locator(".diff > .edit-eq, .diff .edit-ins").all_inner_texts())
            for i in range(count)
        ]
        assert all(shown) and all(texts)
        wanted = [_preference(text, judge_number) for text in shown]
        # dense ranks 1..m over the distinct preferences shown
        order = sorted(set(wanted))
        ranks = [order.index(w) + 1 for w in wanted]
        for i in range(count):
            edits = outputs.nth(i).locator("[data-testid=edit-verdict]").count()
            for _ in range(edits):
                page.keyboard.press("c" if judge_number != 2 else "x")
            page.keyboard.press(str(ranks[i]))
        with page.expect_navigation():
            page.keyboard.press("Enter")
        judged += 1
        assert judged < 20
    return judged


def test_admin_creates_a_campaign_judges_rank_with_the_keyboard_admin_sees_the_ranking(
    page: Any, screenshot: Any
) -> None:
    release, admin, judges = _setup()

    login(page, admin.username, PASSWORD)
    page.goto("/judgments/")
    page.click("[data-testid=new-campaign]")
    page.select_option("[data-testid=pick-release]", str(release.pk))
    page.click("[data-testid=choose-release]")
    form = page.locator("[data-testid=campaign-form]")
    form.locator("#id_name").fill("zh-human")
    form.locator("#id_mode").select_option("edits")
    for name in SYSTEMS:
        form.locator(f"input[name=systems][value={name}]").check()
    for judge in judges:
        form.locator(f"input[name=judges][value='{judge.pk}']").check()
    form.locator("#id_judges_per_item").fill("3")
    form.locator("#id_consistency_share").fill("0.5")
    screenshot("judgments-create")
    page.click("[data-testid=create-campaign]")
    page.wait_for_selector("[data-testid=campaign-progress]")
    campaign = Campaign.objects.get(name="zh-human")
    assert campaign.items.count() == 4 and campaign.mode == "edits"

    for number, judge in enumerate(judges, start=1):
        page.context.clear_cookies()
        login(page, judge.username, PASSWORD)
        page.goto("/judgments/")
        if number == 1:
            page.click("[data-testid=start-judging]")
            page.wait_for_selector("[data-testid=judge-form]")
            html = page.content()
            assert not any(name in html for name in SYSTEMS)  # names hidden from judges
            screenshot("judgments-judge")
        judged = _judge_with_keyboard(page, number)
        mine = Assignment.objects.filter(campaign=campaign, judge=judge)
        assert judged == mine.count() == 6  # 4 items + 2 repeats
        assert not mine.exclude(status=AssignmentStatus.DONE).exists()
    verdicts = Judgment.objects.filter(assignment__judge=judges[1]).values_list(
        "edit_verdicts", flat=True
    )
    assert all(v["correct"] is False for row in verdicts for v in row)

    page.context.clear_cookies()
    login(page, admin.username, PASSWORD)
    page.goto(f"/judgments/{campaign.pk}/results/")
    table = page.locator("[data-testid=human-ranking]")
    first_row = table.locator("tbody tr").first
    assert first_row.get_attribute("data-system") == "AlphaGEC"
    ranges = table.locator("[data-testid=rank-range]").all_inner_texts()
    assert len(ranges) == 3 and all("–" in r and r != "–" for r in ranges)
    agreement = page.inner_text("[data-testid=agreement]")
    assert "Inter-annotator" in agreement and "intra-annotator" in agreement
    stats = page.locator("[data-testid=judge-stats] tbody tr")
    assert stats.count() == 3
    assert [stats.nth(i).inner_text().split()[:3] for i in range(3)] == [
        [judge.username, "6", "6"] for judge in judges
    ]
    screenshot("judgments-results")

    meta = page.locator("[data-testid=meta-link]")
    assert meta.count() == 1
    meta.click()
    option = page.locator(f"option[value='campaign:{campaign.pk}']")
    if option.count():  # the release's meta-evaluation page (scoring) offers the campaign
        page.select_option("select[name=human]", f"campaign:{campaign.pk}")
        for box in page.locator("input[name=metrics]").all():
            box.check()
        with page.expect_navigation():
            page.click("button:has-text('Run meta-evaluation')")
        page.wait_for_selector("table", timeout=60000)
        assert "ChERRANT" in page.inner_text("table")
        screenshot("judgments-meta")
