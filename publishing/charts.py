"""The card's figure: sentences by number of references (MuCGEC's Figure 1), drawn with the
platform's one chart module so it looks like the dataset page's chart."""

from __future__ import annotations

from core.charts import bar_chart


def reference_count_svg(histogram: dict[str, int]) -> str:
    total = sum(histogram.values()) or 1
    ordered = sorted(histogram.items(), key=lambda item: int(item[0]))
    svg = bar_chart(
        title="Sentences by number of references",
        labels=[key for key, _ in ordered],
        values=[count / total for _, count in ordered],
        x_label="references per sentence",
        y_label="share of sentences",
        percent=True,
        description=", ".join(f"{key} references: {count} sentences" for key, count in ordered),
    )
    # A standalone file (the card links it) needs the SVG namespace, which inline SVG in a
    # page does not.
    if "xmlns=" not in svg.split(">", 1)[0]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    return svg
