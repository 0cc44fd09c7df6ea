"""RevisitCGEC end to end in a real browser: `manage.py import_revisitcgec` on the shared
folder, then an admin opens the page it prints, keeps the campaign preselected as the human
side, picks the stored metrics, runs, and sees one row and six scatter points per metric.
Screenshot: artifacts/screenshots/scoring-meta-revisitcgec.png."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from core.roles import Role
from scoring.models import MetaEvaluation, ScoreStatus
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_admin_imports_revisitcgec_and_runs_the_meta_evaluation_on_its_campaign(
    page: Any, screenshot: Any, shared_data: Path
) -> None:
    folder = shared_data / "revisitcgec"
    if not (folder / "judgments.xml").is_file():
        pytest.skip("shared/data/revisitcgec is absent")
    admin = make_user(Role.ADMIN, username="revisit-admin")
    out = io.StringIO()
    call_command(
        "import_revisitcgec",
        str(folder),
        "--admin",
        admin.username,
        "--resources",
        str(shared_data / "cherrant-resources"),
        stdout=out,
    )
    address = out.getvalue().split("meta-evaluation page: ", 1)[1].strip()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    login(page, admin.username, PASSWORD)

    page.goto(address)
    page.wait_for_selector("[data-testid=meta-run-card]")
    chosen = page.locator("select[name=human] option:checked").inner_text()
    assert chosen.startswith("campaign: RevisitCGEC human rankings")
    page.select_option("#id_method", "ew")
    page.click("[data-meta-select=none]")
    page.check("[data-testid=metric-f05]")
    page.check("[data-testid=metric-cleme]")
    page.fill("#id_bootstrap", "100")
    page.click("[data-testid=meta-run]")

    page.wait_for_selector("[data-testid=meta-table]", timeout=60000)
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    assert page.locator("[data-testid=meta-row]").count() == 2
    assert page.locator("[data-testid=scatter] svg circle.point").count() == 2 * 6
    pearson = evaluation.report["metrics"]["f05"]["pearson"]
    row = page.locator("[data-testid=meta-row][data-metric=f05]")
    assert row.locator("[data-testid=pearson]").inner_text().strip() == f"{pearson:.3f}"
    assert errors == []
    screenshot("scoring-meta-revisitcgec")


def test_the_meta_evaluation_correlates_golden_closest_gold_and_pooled_with_the_caveat(
    page: Any, screenshot: Any, shared_data: Path, tmp_path: Path
) -> None:
    """With `--closest-gold` (stand-ins: tests/scoring_app/test_revisitcgec_closest_gold.py)
    the page offers the closest-gold and pooled columns, correlates all three with the
    campaign and says they are only as good as the closest-golds."""
    from tests.scoring_app.test_revisitcgec_closest_gold import stand_in_closest_golds

    folder = shared_data / "revisitcgec"
    if not (folder / "judgments.xml").is_file():
        pytest.skip("shared/data/revisitcgec is absent")
    stand_in_closest_golds(folder, tmp_path / "cg")
    admin = make_user(Role.ADMIN, username="revisit-cg-admin")
    out = io.StringIO()
    call_command(
        "import_revisitcgec", str(folder), "--admin", admin.username,
        "--resources", str(shared_data / "cherrant-resources"),
        "--closest-gold", str(tmp_path / "cg"), stdout=out,
    )  # fmt: skip
    address = out.getvalue().split("meta-evaluation page: ", 1)[1].strip()
    login(page, admin.username, PASSWORD)
    page.goto(address)
    page.wait_for_selector("[data-testid=closest-gold-offered]")
    page.select_option("#id_method", "ew")
    page.click("[data-meta-select=none]")
    keys = ("f05", "f05@closest-gold", "f05@pooled")
    for key in keys:
        page.check(f'[data-testid="metric-{key}"]')
    page.fill("#id_bootstrap", "100")
    page.click("[data-testid=meta-run]")
    page.wait_for_selector("[data-testid=meta-table]", timeout=60000)
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    for key in keys:
        pearson = evaluation.report["metrics"][key]["pearson"]
        row = page.locator(f'[data-testid=meta-row][data-metric="{key}"]')
        assert row.locator("[data-testid=pearson]").inner_text().strip() == f"{pearson:.3f}"
    assert "only as good as" in page.locator("[data-testid=closest-gold-caveat]").inner_text()
    screenshot("scoring-meta-revisitcgec-closest-gold")
