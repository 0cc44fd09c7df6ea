"""Chart text is readable on a 1024-px laptop: every label of the system page's charts ("References
used" and the error types) is drawn at 11 px or more on screen, measured on the rendered SVG
(the view box scaled into its card drew the reference chart's labels at 6.8 px)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.roles import Role
from tests.browser.conftest import login
from tests.browser.test_scoring_pages import OUTPUT, _setup
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)

# Each <text> of each chart: its font size in the SVG's units times the SVG's on-screen scale.
RENDERED_SIZES = """selector => Array.from(document.querySelectorAll(selector)).flatMap(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Array.from(svg.querySelectorAll('text')).map(t =>
        [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale]);
})"""


def test_system_page_chart_text_is_at_least_11_px_at_1024_wide(
    page: Any, screenshot: Any, tmp_path: Path
) -> None:
    admin = make_user(Role.ADMIN, username="chart-admin")
    _, version = _setup()
    page.set_viewport_size({"width": 1024, "height": 640})
    login(page, admin.username, PASSWORD)
    page.goto(f"/scoring/releases/{version.pk}/")
    output = tmp_path / "system.txt"
    output.write_text(OUTPUT, encoding="utf-8")
    page.fill("#id_name", "chart-sys")
    page.set_input_files("#id_file", str(output))
    page.click("[data-testid=upload-card] button[type=submit]")
    page.wait_for_selector("[data-testid=system-curve-chart] svg")
    page.locator("[data-testid=curve]").scroll_into_view_if_needed()
    screenshot("chart-text-1024", full_page=False)
    for chart in ("system-curve-chart", "type-chart"):
        sizes = page.evaluate(RENDERED_SIZES, f"[data-testid={chart}] svg")
        assert sizes, chart
        small = [(text, round(size, 1)) for text, size in sizes if size < 11]
        assert not small, (chart, small)
