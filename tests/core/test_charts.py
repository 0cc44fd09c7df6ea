from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from itertools import pairwise as pairs

import pytest

from core.charts import ChartBox, bar_chart, grouped_bar_chart, line_chart, text_width
from core.xycharts import AxisRange, nice_ticks, padded_range, range_line_chart, scatter_chart

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


def _attrs(svg: str, tag: str, cls: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m))
        for m in re.findall(rf'<{tag} class="{cls}"([^>]*)>', svg)
    ]


METRICS = ["ChERRANT F0.5 (char)", "ChERRANT P (char)", "CLEME", "CLEME2.0", "GLEU", "PT-M2"]


def test_legends_stay_in_the_view_box_and_above_the_plot() -> None:
    """Regression: the window chart's legend ran past its 760-wide view box ("CLEME2.0"
    at x = 793) over the r = 1 line, and bar legends sat on bars at 1.0."""
    window = range_line_chart(
        title="window",
        x_values=[1, 2, 3, 4],
        series=[(name, [1.0, 0.5, None, -0.2]) for name in METRICS],
        y_range=AxisRange(-1.0, 1.0),
        box=ChartBox(width=760, height=360, top=56),
    )
    bars = grouped_bar_chart(
        title="by type",
        categories=["M", "R", "U"],
        series=[("P", [1.0, 1.0, 1.0]), ("R", [1.0, 0.5, 0.2]), ("F0.5", [1.0, 0.7, 0.3])],
        y_max=1.0,
        box=ChartBox(width=360, height=240),
    )
    for svg, width in ((window, 760), (bars, 360)):
        texts = _attrs(svg, "text", "legend")
        names = re.findall(r'<text class="legend"[^>]*>([^<]*)</text>', svg)
        assert len(texts) == len(names) >= 3
        for attrs, name in zip(texts, names, strict=True):
            assert float(attrs["x"]) + text_width(name, float(attrs["font-size"])) <= width, (
                name,
                attrs,
            )
        legend_bottom = max(float(a["y"]) for a in texts)
        # The top of the plot: the highest point or bar (r = 1, F = 1).
        tops = [float(y) for y in re.findall(r'<circle cx="[^"]*" cy="([^"]*)"', svg)]
        tops += [float(a["y"]) for a in _attrs(svg, "rect", "bar")]
        assert legend_bottom + 4 < min(tops), (legend_bottom, min(tops))
    narrow = range_line_chart(
        title="window",
        x_values=[1, 2],
        series=[(name, [1.0, 0.5]) for name in METRICS],
        y_range=AxisRange(-1.0, 1.0),
        box=ChartBox(width=420, height=300),
    )
    rows = _attrs(narrow, "text", "legend")
    assert len({a["y"] for a in rows}) >= 2  # wrapped into rows, each inside the box
    assert all(float(a["x"]) < 420 for a in rows)


def test_scatter_ticks_are_round_numbers_and_scores_start_at_zero_or_above() -> None:
    """Regression: ticks read -0.0193, 0.134, 0.287... and the F0.5 axis began below 0."""
    svg = scatter_chart(
        title="F0.5 against humans",
        points=[("a", 0.05, -0.62), ("b", 0.21, 0.12), ("c", 0.33, 0.91), ("d", 0.41, 0.2)],
    )
    for axis in ("tick-x", "tick-y"):
        labels = re.findall(rf'<text class="{axis}"[^>]*>([^<]*)</text>', svg)
        values = [float(label) for label in labels]
        assert len(values) >= 3, labels
        steps = {round(b - a, 9) for a, b in pairs(values)}
        assert len(steps) == 1, labels
        (step,) = steps
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 9) in (1, 2, 2.5, 5), labels
        assert all(abs(v / step - round(v / step)) < 1e-9 for v in values), labels
        assert all(len(label) <= 5 for label in labels), labels
    x_labels = [float(v) for v in re.findall(r'<text class="tick-x"[^>]*>([^<]*)</text>', svg)]
    assert min(x_labels) >= 0  # every F0.5 is >= 0: no axis below 0
    assert padded_range([0.01, 0.4]).low == 0.0 and padded_range([-0.2, 0.4]).low < -0.2
    assert nice_ticks(AxisRange(-1.0, 1.0)) == [-1.0, -0.5, 0.0, 0.5, 1.0]
