from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from core.charts import bar_chart, grouped_bar_chart, line_chart

NS = "{http://www.w3.org/2000/svg}"


def test_grouped_bars_are_valid_svg_with_titles_and_scaled_heights() -> None:
    svg = grouped_bar_chart(
        title="Share <by> refs",
        categories=["1", "2"],
        series=[("a", [0.5, 0.25]), ("b", [1.0, 0.0])],
        percent=True,
        x_label="references",
        y_label="share",
    )
    root = ET.fromstring(svg)
    assert root.find(f"{NS}title").text == "Share <by> refs"
    bars = root.findall(f".//{NS}rect[@class='bar']")
    assert len(bars) == 4
    heights = {(b.get("data-series"), b.get("data-category")): float(b.get("height")) for b in bars}
    assert heights[("b", "1")] == pytest.approx(2 * heights[("a", "1")], abs=0.1)
    assert heights[("b", "2")] == 0
    assert bars[0].find(f"{NS}title").text == "a, 1: 50%"
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "references" in texts and "share" in texts


def test_bar_and_line_charts_reject_mismatched_lengths() -> None:
    ET.fromstring(bar_chart(title="t", labels=["x"], values=[3]))
    ET.fromstring(line_chart(title="t", x_values=[1, 2], series=[("s", [1, 2])]))
    with pytest.raises(ValueError, match="has 1 values for 2"):
        line_chart(title="t", x_values=[1, 2], series=[("s", [1])])
