"""Scoring pages in a real browser: upload a system output on the leaderboard, see the system
page with its charts and TP/FP/FN highlighting, the leaderboard's Figure 3 and the annotator
quality page's Figure 2. Screenshots go to artifacts/screenshots/scoring-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotate.models import Assignment, Correction, Submission
from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCES = ["我很喜欢吃平果", "他是一个好学升", "今天天气很好"]
REFERENCES = [["我很喜欢吃苹果", "我喜欢吃苹果"], ["他是一个好学生"], ["没有错误"]]
# TP on 1, FN on 2, FP on 3.
OUTPUT = "1\t我很喜欢吃平果\t我很喜欢吃苹果\n2\t他是一个好学升\t他是一个好学升\n3\t今天天气很好\t今天天气很好。\n"


def _setup() -> Any:
    dataset = make_dataset(name="browser-scoring", sentences=SENTENCES, source_name="lang8")
    annotators = [make_user(Role.ANNOTATOR, username=f"bs-annotator{i}") for i in (1, 2)]
    for sentence, refs in zip(dataset.sentences.order_by("position"), REFERENCES, strict=True):
        for annotator, text in zip(annotators, (refs[0], sentence.text), strict=True):
            assignment = Assignment.objects.create(
                sentence=sentence, annotator=annotator, status="submitted", time_spent_seconds=30
            )
            submission = Submission.objects.create(assignment=assignment, revision=1)
            Correction.objects.create(
                submission=submission,
                position=0,
                text=text if text != "没有错误" else sentence.text,
            )
        GoldenReference.objects.bulk_create(
            [
                GoldenReference(
                    sentence=sentence,
                    position=i,
                    text=text,
                    origin=ReferenceOrigin.EDITED,
                    kind=ReferenceKind.ERROR_FREE
                    if text == "没有错误"
                    else ReferenceKind.CORRECTION,
                )
                for i, text in enumerate(refs)
            ]
        )
    return dataset, release_dataset(dataset=dataset)


def test_leaderboard_system_and_annotator_pages_render_charts(
    page, screenshot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN, username="bs-admin")
    dataset, version = _setup()
    login(page, admin.username, PASSWORD)

    page.goto("/")
    page.click("[data-testid=scoring-link]")
    page.click(f"text={version.label}")
    page.wait_for_selector("[data-testid=upload-card]")
    output = tmp_path / "system.txt"
    output.write_text(OUTPUT, encoding="utf-8")
    page.fill("#id_name", "browser-sys")
    page.set_input_files("#id_file", str(output))
    page.click("[data-testid=upload-card] button[type=submit]")

    # The system page: headline numbers, charts, highlighted edits.
    page.wait_for_selector("[data-testid=headline]")
    assert page.inner_text("[data-testid=f05]").strip() == "0.5000"  # TP 1, FP 1, FN 1
    assert page.locator("[data-testid=type-chart] svg rect.bar").count() > 0
    assert page.locator("[data-testid=system-curve-chart] svg rect.bar").count() > 0
    assert page.locator(".hl [data-label=TP]").count() == 1
    assert page.locator(".hl [data-label=FP]").count() == 1
    assert page.locator("[data-testid=sentence] [data-label=FN]").count() == 1
    assert page.locator("[data-testid=type-chart] svg").first.is_visible()
    assert (
        page.locator("[data-testid=cleme2-chart] svg rect.bar").count() == 4
    )  # hit/wrong/under/over
    screenshot("scoring-system")
    _tick_labels_are_readable(page)

    # The leaderboard: the row, the signature, Figure 3 with the system and Human.
    page.goto(f"/scoring/releases/{version.pk}/")
    page.wait_for_selector("[data-testid=leaderboard-row]")
    assert "browser-sys" in page.inner_text("[data-testid=leaderboard]")
    assert "metric=cherrant-f0.5" in page.inner_text("[data-testid=signature]")
    chart = page.locator("[data-testid=curve-chart] svg")
    assert chart.is_visible()
    series = set(chart.locator("rect.bar").evaluate_all("els => els.map(e => e.dataset.series)"))
    assert series == {"browser-sys", "Human"}
    screenshot("scoring-leaderboard")

    # Annotator quality: one row per annotator, the Human row and Figure 2.
    page.goto(f"/scoring/datasets/{dataset.pk}/annotators/")
    page.wait_for_selector("[data-testid=annotator-table]")
    assert page.locator("[data-testid=annotator-row]").count() == 2
    assert page.locator("[data-testid=human-row]").count() == 1
    bars = page.locator("[data-testid=annotator-chart] svg rect.bar")
    assert bars.count() == 2
    assert page.locator("[data-testid=annotator-chart] svg").is_visible()
    screenshot("scoring-annotators")


def _tick_labels_are_readable(page: Any) -> None:
    """Regression: tick labels were ~7 px on screen on small charts; at 1400 and 1024
    wide every chart's tick labels render at least 9 px high."""
    for width, height in ((1400, 900), (1024, 640)):
        page.set_viewport_size({"width": width, "height": height})
        sizes = page.locator(".chart svg text.tick-y, .chart svg text.tick-x").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 9, (width, sorted(sizes)[:5])
    page.set_viewport_size({"width": 1280, "height": 900})
