"""Server-rendered SVG charts: bar, grouped bar and line charts as SVG strings.

No JavaScript library: pages embed the returned markup directly (`{{ svg|safe }}` — every
text that goes into the SVG is escaped here). Each chart carries `role="img"`, a `<title>`
and a `<desc>` for screen readers, and a `<title>` per bar / point so hovering shows the
exact value. Used by the dataset statistics page and the scoring reports.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape

PALETTE = ("#2456c7", "#e07b39", "#3a9a5b", "#b3261e", "#7a4fc2", "#8c6d1f", "#2b8c9e", "#d1499b")


@dataclass(frozen=True)
class ChartBox:
    width: int = 640
    height: int = 320
    left: int = 56
    right: int = 16
    top: int = 40
    bottom: int = 56

    @property
    def plot_width(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> int:
        return self.height - self.top - self.bottom


def _nice_max(value: float) -> float:
    """A round axis maximum at or above `value` (1, 2, 2.5, 5 x 10^k)."""
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        candidate = step * 10**exponent
        if candidate >= value:
            return float(candidate)
    return float(10 ** (exponent + 1))


def format_number(value: float, percent: bool = False) -> str:
    if percent:
        return (
            f"{value * 100:.0f}%"
            if abs(value * 100 - round(value * 100)) < 1e-9
            else f"{value * 100:.1f}%"
        )
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def _frame(
    box: ChartBox,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    y_max: float,
    percent: bool,
    ticks: int = 5,
) -> list[str]:
    parts = chart_open(box, title, description)
    for i in range(ticks + 1):
        value = y_max * i / ticks
        y = box.top + box.plot_height * (1 - i / ticks)
        parts.append(
            f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#dde1e8" stroke-width="1"/>'
        )
        parts.append(
            f'<text class="tick-y" x="{box.left - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'font-size="{font_size(box)}" '
            f'fill="#5b6475">{escape(format_number(value, percent))}</text>'
        )
    parts.extend(chart_axes(box, x_label, y_label))
    return parts


TEXT_FONT = 12  # every label, tick and legend entry
TITLE_FONT = 15
# A chart up to this wide is drawn near 1:1 (a two-column grid's card holds ~447 px at a
# 1024-px window); a wider one shrinks on screen, so its text grows with its view box.
FONT_WIDTH = 560


def font_size(box: ChartBox, base: float = TEXT_FONT) -> float:
    """The font size, in view-box units, of a text of `base` px: every text of a chart grows
    with the view box alike, so a chart scaled down into its card keeps its labels, axis
    names, legend and title at 11 px or more on screen (they were drawn at 6.8 px)."""
    return round(base * max(1.0, box.width / FONT_WIDTH), 1)


def chart_open(box: ChartBox, title: str, description: str) -> list[str]:
    """The <svg> element's opening, its accessible title and description, and the heading."""
    # Ids derived from the content: several charts on one page must not share them.
    uid = "chart-" + hashlib.sha1(f"{title}|{description}".encode()).hexdigest()[:10]
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {box.width} {box.height}" '
        f'width="{box.width}" height="{box.height}" role="img" aria-labelledby="{uid}-t {uid}-d">',
        f'<title id="{uid}-t">{escape(title)}</title>',
        f'<desc id="{uid}-d">{escape(description)}</desc>',
        f'<text x="{box.width / 2}" y="22" text-anchor="middle" '
        f'font-size="{font_size(box, TITLE_FONT)}" font-weight="600">{escape(title)}</text>',
    ]


def chart_axes(box: ChartBox, x_label: str, y_label: str) -> list[str]:
    """The two axis lines along the plot's left and bottom edges, and the axis labels."""
    bottom = box.top + box.plot_height
    return [
        f'<line x1="{box.left}" x2="{box.left}" y1="{box.top}" y2="{bottom}" stroke="#1d2330"/>',
        f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{bottom}" '
        f'y2="{bottom}" stroke="#1d2330"/>',
        f'<text x="{box.left + box.plot_width / 2}" y="{box.height - 10}" text-anchor="middle" '
        f'font-size="{font_size(box)}">{escape(x_label)}</text>',
        f'<text transform="translate(14 {box.top + box.plot_height / 2}) rotate(-90)" '
        f'text-anchor="middle" font-size="{font_size(box)}">{escape(y_label)}</text>',
    ]


def _series_top(
    series: Sequence[tuple[str, Sequence[float]]], length: int, what: str, y_max: float | None
) -> float:
    """The top of the y axis (``y_max``, or a round number above every value), once every
    series has one value per category or x value (``length`` of ``what``)."""
    for name, values in series:
        if len(values) != length:
            raise ValueError(f"series {name!r} has {len(values)} values for {length} {what}")
    if y_max is not None:
        return y_max
    return _nice_max(max((v for _, vs in series for v in vs), default=0))


def grouped_bar_chart(
    *,
    title: str,
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    x_label: str = "",
    y_label: str = "",
    percent: bool = False,
    description: str = "",
    box: ChartBox | None = None,
    y_max: float | None = None,
) -> str:
    """Bars grouped by category, one colour per series (with a legend when >1 series)."""
    box, legend = chart_legend(box or ChartBox(), [name for name, _ in series])
    top = _series_top(series, len(categories), "categories", y_max)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{c} {format_number(v, percent)}" for c, v in zip(categories, values, strict=True)
        )
        for name, values in series
    )
    parts = _frame(box, title, description, x_label, y_label, top, percent)
    n_groups = max(1, len(categories))
    group_width = box.plot_width / n_groups
    n_series = max(1, len(series))
    bar_width = group_width * 0.8 / n_series
    for g, category in enumerate(categories):
        x0 = box.left + g * group_width + group_width * 0.1
        for s, (name, values) in enumerate(series):
            value = values[g]
            height = box.plot_height * (value / top if top else 0)
            x = x0 + s * bar_width
            y = box.top + box.plot_height - height
            label = (
                f"{name}, {category}: {format_number(value, percent)}"
                if len(series) > 1
                else f"{category}: {format_number(value, percent)}"
            )
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{max(bar_width - 1, 1):.1f}" '
                f'height="{height:.1f}" fill="{PALETTE[s % len(PALETTE)]}" '
                f'data-series="{escape(name)}" data-category="{escape(category)}" data-value="{value}">'
                f"<title>{escape(label)}</title></rect>"
            )
        parts.append(
            f'<text x="{box.left + (g + 0.5) * group_width:.1f}" y="{box.top + box.plot_height + 16}" '
            f'text-anchor="middle" font-size="{font_size(box)}">{escape(category)}</text>'
        )
    parts.extend(legend)
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(
    *,
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    x_label: str = "",
    y_label: str = "",
    percent: bool = False,
    description: str = "",
    box: ChartBox | None = None,
) -> str:
    """One bar per label."""
    return grouped_bar_chart(
        title=title,
        categories=labels,
        series=[(y_label or title, values)],
        x_label=x_label,
        y_label=y_label,
        percent=percent,
        description=description,
        box=box,
    )


def line_chart(
    *,
    title: str,
    x_values: Sequence[float],
    series: Sequence[tuple[str, Sequence[float]]],
    x_label: str = "",
    y_label: str = "",
    percent: bool = False,
    description: str = "",
    box: ChartBox | None = None,
    y_max: float | None = None,
) -> str:
    """Lines over numeric x values, one colour per series, a marker with a tooltip per point."""
    box, legend = chart_legend(box or ChartBox(), [name for name, _ in series])
    top = _series_top(series, len(x_values), "x values", y_max)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{format_number(x)} {format_number(v, percent)}"
            for x, v in zip(x_values, values, strict=True)
        )
        for name, values in series
    )
    parts = _frame(box, title, description, x_label, y_label, top, percent)
    lo, hi = (min(x_values), max(x_values)) if x_values else (0.0, 1.0)
    span = (hi - lo) or 1.0

    def px(x: float) -> float:
        return box.left + box.plot_width * (x - lo) / span

    def py(v: float) -> float:
        return box.top + box.plot_height * (1 - (v / top if top else 0))

    for x in x_values:
        parts.append(
            f'<text class="tick-x" x="{px(x):.1f}" y="{box.top + box.plot_height + 16}" '
            f'text-anchor="middle" font-size="{font_size(box)}">'
            f"{escape(format_number(x))}</text>"
        )
    for s, (name, values) in enumerate(series):
        colour = PALETTE[s % len(PALETTE)]
        points = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in zip(x_values, values, strict=True))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
        )
        for x, v in zip(x_values, values, strict=True):
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="3.5" fill="{colour}" data-value="{v}">'
                f"<title>{escape(f'{name}, {format_number(x)}: {format_number(v, percent)}')}</title></circle>"
            )
    parts.extend(legend)
    parts.append("</svg>")
    return "".join(parts)


# The legend's rows sit between the title (baseline 22) and the plot.
LEGEND_TOP = 30
LEGEND_ROW = 15


def text_width(text: str, size: float = TEXT_FONT) -> float:
    """An estimate of the width of `text` in the charts' sans-serif font: wide (CJK)
    characters a full em, others about 0.6 em. Enough to keep labels inside the view box."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else size * 0.6 for ch in text)


def chart_legend(box: ChartBox, names: Sequence[str]) -> tuple[ChartBox, list[str]]:
    """The legend of a chart with more than one series, in rows wrapped to the chart's width
    between the title and the plot, and the box with its plot moved below the rows: a bar or
    a line at the top of the axis (F = 1, r = 1) never runs under a legend entry."""
    if len(names) < 2:
        return box, []
    parts: list[str] = []
    right = box.width - box.right
    size = font_size(box)
    row_height = max(LEGEND_ROW, math.ceil(size + 4))
    x, row = float(box.left), 0
    for s, name in enumerate(names):
        width = 14 + text_width(name, size) + 14
        if x > box.left and x + width - 14 > right:
            x, row = float(box.left), row + 1
        y = LEGEND_TOP + row * row_height
        parts.append(
            f'<rect class="legend" x="{x:.1f}" y="{y}" width="10" height="10" '
            f'fill="{PALETTE[s % len(PALETTE)]}"/>'
        )
        parts.append(
            f'<text class="legend" x="{x + 14:.1f}" y="{y + 9}" font-size="{size}">{escape(name)}</text>'
        )
        x += width
    needed = LEGEND_TOP + (row + 1) * row_height + 6
    return replace(box, top=max(box.top, needed)), parts
