"""The meta-evaluation page in a real browser: from the leaderboard's link, upload human system
scores, pick metrics, run, and see the correlation table, a scatter plot per metric and the
window-analysis chart. Screenshot: artifacts/screenshots/scoring-meta-evaluation.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import MetaEvaluation, ScoreStatus
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCES = ["我很喜欢吃平果", "他是一个好学升", "我们明天去公圆玩", "她每天都跑部"]
REFERENCES = ["我很喜欢吃苹果", "他是一个好学生", "我们明天去公园玩", "她每天都跑步"]
OUTPUTS = {
    "alpha": REFERENCES,
    "beta": ["我很喜欢吃苹果", "他是一个好学生", "我们明天去公圆玩", "她每天都跑部"],
    "gamma": ["我很喜欢吃苹果", "他是一个学升", "我们明天去公园玩", "他每天都跑部"],
    "delta": ["我很喜欢吃平果", "他是一个好学升", "我们明天去公园玩。", "她每天都跑部"],
    "epsilon": SENTENCES,
}
HUMAN = {"alpha": 0.8, "beta": 0.55, "gamma": 0.3, "delta": 0.1, "epsilon": 0.2, "INPUT": 0.0}


def _release() -> Any:
    dataset = make_dataset(name="browser-meta", sentences=SENTENCES)
    for sentence, ref in zip(dataset.sentences.order_by("position"), REFERENCES, strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    version = release_dataset(dataset=dataset)
    for name, hypotheses in OUTPUTS.items():
        system = services.upload_system_output(
            version=version,
            name=name,
            data="".join(f"{h}\n" for h in hypotheses).encode(),
            file_name=f"{name}.txt",
            user=None,
            file_format="lines",
        )
        assert services.score_now(system=system).status == ScoreStatus.DONE
    return version


def test_admin_runs_a_meta_evaluation_and_sees_table_scatters_and_window_chart(
    page: Any, screenshot: Any, tmp_path: Path
) -> None:
    admin = make_user(Role.ADMIN, username="meta-admin")
    version = _release()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    # A Content-Security-Policy violation (inline script or style) shows as a console error;
    # the browser's own /favicon.ico request (the site has none) is not the page's doing.
    def console(message: Any) -> None:
        if message.type == "error" and "favicon" not in message.location.get("url", ""):
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", console)
    login(page, admin.username, PASSWORD)

    page.goto(f"/scoring/releases/{version.pk}/")
    page.click("[data-testid=meta-link]")
    page.wait_for_selector("[data-testid=meta-run-card]")

    human_file = tmp_path / "human.tsv"
    human_file.write_text(
        "".join(f"HUMAN\tzh\ttest\t{s}\t{v}\n" for s, v in HUMAN.items()), encoding="utf-8"
    )
    page.fill("#id_human_name", "EW")
    page.set_input_files("#id_human_file", str(human_file))
    page.click("[data-testid=human-upload]")
    page.wait_for_selector("text=human scores EW stored (6 systems)")

    # "all" ticks every metric, then two are picked by hand.
    page.click("[data-meta-select=all]")
    assert page.locator("input[name=metrics]:checked").count() >= 6
    page.click("[data-meta-select=none]")
    page.check("[data-testid=metric-f05]")
    page.check("[data-testid=metric-cleme]")
    page.check("[data-testid=metric-p]")
    assert page.is_disabled("#id_method")  # a campaign's ranking method only
    page.fill("#id_bootstrap", "100")
    page.fill("#id_sentence_bootstrap", "100")
    page.click("[data-testid=meta-run]")

    page.wait_for_selector("[data-testid=meta-table]")
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE
    rows = page.locator("[data-testid=meta-row]")
    assert rows.count() == 3
    assert page.locator("[data-testid=best]").count() == 1
    best = evaluation.report["best"]
    best_row = page.locator(f"[data-testid=meta-row][data-metric={best}]")
    pearson = evaluation.report["metrics"][best]["pearson"]
    assert best_row.locator("[data-testid=pearson]").inner_text().strip() == f"{pearson:.3f}"
    assert "cherrant-f0.5" in page.inner_text("[data-testid=meta-table]")
    # Sentence resampling for the metrics with stored per-sentence counts (F0.5, P), not CLEME.
    sentence_cis = page.locator("[data-testid=sentence-ci]")
    assert sentence_cis.count() == 3
    assert page.locator("[data-metric=cleme] [data-testid=sentence-ci]").inner_text() == "—"
    assert page.locator("[data-metric=f05] [data-testid=sentence-ci]").inner_text().startswith("[")

    scatters = page.locator("[data-testid=scatter] svg")
    assert scatters.count() == 3
    assert page.locator("[data-testid=scatter] svg circle.point").count() == 3 * len(OUTPUTS)
    assert scatters.first.is_visible()
    # Hovering a system's point marks that system in every scatter plot (static/scoring/meta.js).
    page.locator("[data-testid=scatter] svg circle.point[data-name=alpha]").first.hover()
    assert page.locator("circle.point.highlight").count() == 3
    window = page.locator("[data-testid=window-chart] svg")
    assert window.is_visible()
    assert window.locator("circle").count() > 0
    assert errors == []
    screenshot("scoring-meta-evaluation")
