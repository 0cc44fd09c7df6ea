"""Charts whose both axes are numeric ranges (scatter plots, correlations that may be
negative), as SVG strings; the shared box, palette, legend and formatting are core.charts'."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from core.charts import (
    PALETTE,
    ChartBox,
    chart_axes,
    chart_legend,
    chart_open,
    font_size,
    format_number,
)


@dataclass(frozen=True)
class AxisRange:
    low: float
    high: float

    @property
    def span(self) -> float:
        return (self.high - self.low) or 1.0


def padded_range(values: Sequence[float], *, pad: float = 0.08) -> AxisRange:
    """A range around `values` with a margin, so points do not sit on the frame; values that
    cannot be negative (none is) keep the axis at 0 or above (an F0.5 axis from -0.02 reads
    as a bug)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return AxisRange(0.0, 1.0)
    low, high = min(finite), max(finite)
    margin = (high - low) * pad or (abs(high) * pad or 0.05)
    return AxisRange(max(low - margin, 0.0) if low >= 0 else low - margin, high + margin)


def nice_ticks(axis: AxisRange, count: int = 5) -> list[float]:
    """Round tick values inside `axis`, about `count` steps apart: steps of 1, 2, 2.5 or 5
    x 10^k, as a person would draw them (not -0.0193, 0.134, 0.287...)."""
    raw = axis.span / max(1, count)
    exponent = math.floor(math.log10(raw))
    step = next(
        m * 10.0**exponent for m in (1, 2, 2.5, 5, 10) if m * 10.0**exponent >= raw * (1 - 1e-9)
    )
    first = math.ceil(axis.low / step - 1e-9)
    last = math.floor(axis.high / step + 1e-9)
    return [0.0 if k == 0 else k * step for k in range(first, last + 1)]


def _tick_label(value: float, ticks: Sequence[float]) -> str:
    """A tick value with as many decimals as the ticks' step needs (0.25, 0.5, 0.75, not
    0.250 or 0.3)."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6:
        decimals += 1
    return f"{value:.{decimals}f}"


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
    bottom = box.top + box.plot_height
    parts = chart_open(box, title, description)
    y_ticks = nice_ticks(y_range, ticks)
    for y_value in y_ticks:
        y = bottom - box.plot_height * (y_value - y_range.low) / y_range.span
        parts.append(
            f'<line x1="{box.left}" x2="{box.width - box.right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#dde1e8" stroke-width="1"/>'
        )
        parts.append(
            f'<text class="tick-y" x="{box.left - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'font-size="{font_size(box)}" fill="#5b6475">{escape(_tick_label(y_value, y_ticks))}</text>'
        )
    if x_ticks is not None:
        x_labels = [(x_value, f"{x_value:.3g}") for x_value in x_ticks]
    else:
        evenly = nice_ticks(x_range, ticks)
        x_labels = [(x_value, _tick_label(x_value, evenly)) for x_value in evenly]
    for x_value, label in x_labels:
        x = box.left + box.plot_width * (x_value - x_range.low) / x_range.span
        parts.append(
            f'<text class="tick-x" x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" '
            f'font-size="{font_size(box)}" fill="#5b6475">{escape(label)}</text>'
        )
    parts.extend(chart_axes(box, x_label, y_label))
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
            f'text-anchor="{"end" if right_half else "start"}" font-size="{font_size(box)}" '
            f'fill="#1d2330">'
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
    box, legend = chart_legend(box or ChartBox(), [name for name, _ in series])
    for name, values in series:
        if len(values) != len(x_values):
            raise ValueError(
                f"series {name!r} has {len(values)} values for {len(x_values)} x values"
            )
    x_range = AxisRange(min(x_values), max(x_values)) if x_values else AxisRange(0.0, 1.0)
    description = description or f"{title}: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{format_number(x)} {'undefined' if v is None else f'{v:.3g}'}"
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
                f"<title>{escape(f'{name}, {format_number(x)}: {v:.3g}')}</title></circle>"
            )
    parts.extend(legend)
    parts.append("</svg>")
    return "".join(parts)
