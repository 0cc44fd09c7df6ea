"""Server-rendered SVG charts: bar, grouped bar and line charts as SVG strings.

No JavaScript library: pages embed the returned markup directly (`{{ svg|safe }}` — every
text that goes into the SVG is escaped here). Each chart carries `role="img"`, a `<title>`
and a `<desc>` for screen readers, and a `<title>` per bar / point so hovering shows the
exact value. Used by the dataset statistics page and the scoring reports.
"""

from __future__ import annotations

import hashlib
import math
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


def _fmt(value: float, percent: bool = False) -> str:
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
    # Ids derived from the content: several charts on one page must not share them.
    uid = "chart-" + hashlib.sha1(f"{title}|{description}".encode()).hexdigest()[:10]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {box.width} {box.height}" '
        f'width="{box.width}" height="{box.height}" role="img" aria-labelledby="{uid}-t {uid}-d">',
        f'<title id="{uid}-t">{escape(title)}</title>',
        f'<desc id="{uid}-d">{escape(description)}</desc>',
        f'<text x="{box.width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">{escape(title)}</text>',
    ]
    for i in range(ticks + 1):
        value = y_max * i / ticks
        y = box.top + box.plot_height * (1 - i / ticks)
        parts.append(
            f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#dde1e8" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{box.left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#5b6475">{escape(_fmt(value, percent))}</text>'
        )
    parts.append(
        f'<line x1="{box.left}" x2="{box.left}" y1="{box.top}" y2="{box.top + box.plot_height}" stroke="#1d2330"/>'
    )
    parts.append(
        f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{box.top + box.plot_height}" '
        f'y2="{box.top + box.plot_height}" stroke="#1d2330"/>'
    )
    parts.append(
        f'<text x="{box.left + box.plot_width / 2}" y="{box.height - 10}" text-anchor="middle" '
        f'font-size="12">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text transform="translate(14 {box.top + box.plot_height / 2}) rotate(-90)" '
        f'text-anchor="middle" font-size="12">{escape(y_label)}</text>'
    )
    return parts


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
    box = box or ChartBox()
    top = _series_top(series, len(categories), "categories", y_max)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(f"{c} {_fmt(v, percent)}" for c, v in zip(categories, values, strict=True))
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
                f"{name}, {category}: {_fmt(value, percent)}"
                if len(series) > 1
                else f"{category}: {_fmt(value, percent)}"
            )
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{max(bar_width - 1, 1):.1f}" '
                f'height="{height:.1f}" fill="{PALETTE[s % len(PALETTE)]}" '
                f'data-series="{escape(name)}" data-category="{escape(category)}" data-value="{value}">'
                f"<title>{escape(label)}</title></rect>"
            )
        parts.append(
            f'<text x="{box.left + (g + 0.5) * group_width:.1f}" y="{box.top + box.plot_height + 16}" '
            f'text-anchor="middle" font-size="11">{escape(category)}</text>'
        )
    if len(series) > 1:
        parts.extend(_legend(box, [name for name, _ in series]))
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
    box = box or ChartBox()
    top = _series_top(series, len(x_values), "x values", y_max)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(f"{_fmt(x)} {_fmt(v, percent)}" for x, v in zip(x_values, values, strict=True))
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
            f'<text x="{px(x):.1f}" y="{box.top + box.plot_height + 16}" text-anchor="middle" '
            f'font-size="11">{escape(_fmt(x))}</text>'
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
                f"<title>{escape(f'{name}, {_fmt(x)}: {_fmt(v, percent)}')}</title></circle>"
            )
    if len(series) > 1:
        parts.extend(_legend(box, [name for name, _ in series]))
    parts.append("</svg>")
    return "".join(parts)


def _legend(box: ChartBox, names: Sequence[str]) -> list[str]:
    parts = []
    x = box.left + 8
    for s, name in enumerate(names):
        parts.append(
            f'<rect x="{x}" y="{box.top - 4}" width="10" height="10" fill="{PALETTE[s % len(PALETTE)]}"/>'
        )
        parts.append(f'<text x="{x + 14}" y="{box.top + 5}" font-size="11">{escape(name)}</text>')
        x += 24 + 7 * len(name)
    return parts


# --- numeric x and y axes (scatter plots, correlations that may be negative) ----------------


@dataclass(frozen=True)
class AxisRange:
    low: float
    high: float

    @property
    def span(self) -> float:
        return (self.high - self.low) or 1.0


def padded_range(values: Sequence[float], *, pad: float = 0.08) -> AxisRange:
    """A range around `values` with a margin, so points do not sit on the frame."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return AxisRange(0.0, 1.0)
    low, high = min(finite), max(finite)
    margin = (high - low) * pad or (abs(high) * pad or 0.05)
    return AxisRange(low - margin, high + margin)


def _xy_frame(
    box: ChartBox,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    x_range: AxisRange,
    y_range: AxisRange,
    ticks: int = 5,
    x_ticks: Sequence[float] | None = None,
) -> list[str]:
    """Frame, grid and tick labels of a chart whose both axes are numeric ranges (x labels
    at `x_ticks` when given, else evenly spaced)."""
    uid = "chart-" + hashlib.sha1(f"{title}|{description}".encode()).hexdigest()[:10]
    bottom = box.top + box.plot_height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {box.width} {box.height}" '
        f'width="{box.width}" height="{box.height}" role="img" aria-labelledby="{uid}-t {uid}-d">',
        f'<title id="{uid}-t">{escape(title)}</title>',
        f'<desc id="{uid}-d">{escape(description)}</desc>',
        f'<text x="{box.width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">{escape(title)}</text>',
    ]
    for i in range(ticks + 1):
        y_value = y_range.low + y_range.span * i / ticks
        y = bottom - box.plot_height * i / ticks
        parts.append(
            f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#dde1e8" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{box.left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#5b6475">{escape(f"{y_value:.3g}")}</text>'
        )
    x_labels = (
        list(x_ticks)
        if x_ticks is not None
        else [x_range.low + x_range.span * i / ticks for i in range(ticks + 1)]
    )
    for x_value in x_labels:
        x = box.left + box.plot_width * (x_value - x_range.low) / x_range.span
        parts.append(
            f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" font-size="11" '
            f'fill="#5b6475">{escape(f"{x_value:.3g}")}</text>'
        )
    parts.append(
        f'<line x1="{box.left}" x2="{box.left}" y1="{box.top}" y2="{bottom}" stroke="#1d2330"/>'
    )
    parts.append(
        f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{bottom}" y2="{bottom}" stroke="#1d2330"/>'
    )
    parts.append(
        f'<text x="{box.left + box.plot_width / 2}" y="{box.height - 10}" text-anchor="middle" '
        f'font-size="12">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text transform="translate(14 {box.top + box.plot_height / 2}) rotate(-90)" '
        f'text-anchor="middle" font-size="12">{escape(y_label)}</text>'
    )
    return parts


def scatter_chart(
    *,
    title: str,
    points: Sequence[tuple[str, float, float]],
    x_label: str = "",
    y_label: str = "",
    description: str = "",
    box: ChartBox | None = None,
    fit_line: bool = True,
) -> str:
    """One labelled point per (name, x, y), as in Chollampatt & Ng's Figure 1 (metric score
    against human score), with the least-squares line when `fit_line` and x varies."""
    box = box or ChartBox()
    x_range = padded_range([x for _, x, _ in points])
    y_range = padded_range([y for _, _, y in points])
    description = description or f"{title}: " + "; ".join(
        f"{name}: {x_label or 'x'} {x:.4g}, {y_label or 'y'} {y:.4g}" for name, x, y in points
    )
    parts = _xy_frame(box, title, description, x_label, y_label, x_range, y_range)

    def px(x: float) -> float:
        return box.left + box.plot_width * (x - x_range.low) / x_range.span

    def py(y: float) -> float:
        return box.top + box.plot_height * (1 - (y - y_range.low) / y_range.span)

    xs = [x for _, x, _ in points]
    ys = [y for _, _, y in points]
    if fit_line and len(points) >= 2 and max(xs) > min(xs):
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
            (x - mean_x) ** 2 for x in xs
        )
        x0, x1 = min(xs), max(xs)
        y0, y1 = mean_y + slope * (x0 - mean_x), mean_y + slope * (x1 - mean_x)
        parts.append(
            f'<line class="fit" x1="{px(x0):.1f}" y1="{py(y0):.1f}" x2="{px(x1):.1f}" '
            f'y2="{py(y1):.1f}" stroke="#9aa3b5" stroke-width="1.5" stroke-dasharray="5 4"/>'
        )
    for name, x, y in points:
        parts.append(
            f'<circle class="point" cx="{px(x):.1f}" cy="{py(y):.1f}" r="4.5" fill="{PALETTE[0]}" '
            f'data-name="{escape(name)}" data-x="{x}" data-y="{y}">'
            f"<title>{escape(f'{name}: {x:.4g}, {y:.4g}')}</title></circle>"
        )
        # Labels of points in the right half go to their left, so they stay inside the chart.
        right_half = px(x) > box.left + box.plot_width / 2
        parts.append(
            f'<text x="{px(x) + (-6 if right_half else 6):.1f}" y="{py(y) - 6:.1f}" '
            f'text-anchor="{"end" if right_half else "start"}" font-size="10" fill="#1d2330">'
            f"{escape(name)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def range_line_chart(
    *,
    title: str,
    x_values: Sequence[float],
    series: Sequence[tuple[str, Sequence[float | None]]],
    y_range: AxisRange,
    x_label: str = "",
    y_label: str = "",
    description: str = "",
    box: ChartBox | None = None,
) -> str:
    """Lines over numeric x values on a fixed y range (e.g. correlations in [-1, 1]); a None
    value breaks its line (an undefined correlation)."""
    box = box or ChartBox()
    for name, values in series:
        if len(values) != len(x_values):
            raise ValueError(
                f"series {name!r} has {len(values)} values for {len(x_values)} x values"
            )
    x_range = AxisRange(min(x_values), max(x_values)) if x_values else AxisRange(0.0, 1.0)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{_fmt(x)} {'undefined' if v is None else f'{v:.3g}'}"
            for x, v in zip(x_values, values, strict=True)
        )
        for name, values in series
    )
    parts = _xy_frame(box, title, description, x_label, y_label, x_range, y_range, x_ticks=x_values)

    def px(x: float) -> float:
        return box.left + box.plot_width * (x - x_range.low) / x_range.span

    def py(v: float) -> float:
        clamped = min(max(v, y_range.low), y_range.high)
        return box.top + box.plot_height * (1 - (clamped - y_range.low) / y_range.span)

    for s, (name, values) in enumerate(series):
        colour = PALETTE[s % len(PALETTE)]
        run: list[str] = []
        for x, v in [*zip(x_values, values, strict=True), (math.nan, None)]:
            if v is None:
                if len(run) > 1:
                    parts.append(
                        f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                        f'points="{" ".join(run)}"/>'
                    )
                run = []
                continue
            run.append(f"{px(x):.1f},{py(v):.1f}")
        for x, v in zip(x_values, values, strict=True):
            if v is None:
                continue
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="3.5" fill="{colour}" '
                f'data-series="{escape(name)}" data-value="{v}">'
                f"<title>{escape(f'{name}, {_fmt(x)}: {v:.3g}')}</title></circle>"
            )
    if len(series) > 1:
        # Above the plot: a correlation of 1 runs along its top edge.
        parts.extend(_legend(replace(box, top=box.top - 14), [name for name, _ in series]))
    parts.append("</svg>")
    return "".join(parts)
