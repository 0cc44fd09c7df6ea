"""A scored sentence drawn for the system page: the source split into plain text and the
hypothesis' edits, on the tokens the language's extractor indexed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from datasets.models import DatasetVersion, Language
from scoring import metric, metric_en


def source_tokens_and_joiner(version: DatasetVersion, text: str) -> tuple[list[str], str]:
    """The source tokens the stored edits index, as the language's extractor made them, and
    the text between two tokens: characters for Chinese, space-separated words for English."""
    if version.dataset.language == Language.ENGLISH:
        return metric_en.source_tokens(text), " "
    return metric.source_tokens(text), ""


def highlight_segments(
    source_tokens: Sequence[str], edits: Sequence[dict[str, Any]], joiner: str = ""
) -> list[dict[str, Any]]:
    """Split the source into plain text and edit segments for the page.

    Hypothesis edits (TP/FP) are drawn on the source; missed reference edits (FN) are
    listed beside it because they may overlap the hypothesis edits. Edit spans index
    `source_tokens`; `joiner` goes between tokens, and between segments ("" for Chinese
    characters, " " for English words, which ERRANT's spans count).
    """
    spans = sorted(
        (e for e in edits if e.get("label") in ("TP", "FP") and e["start"] >= 0),
        key=lambda e: (e["start"], e["end"]),
    )
    segments: list[dict[str, Any]] = []

    def add(segment: dict[str, Any]) -> None:
        if segments and joiner:
            segments.append({"text": joiner})
        segments.append(segment)

    cursor = 0
    for edit in spans:
        if edit["start"] < cursor:
            continue
        if edit["start"] > cursor:
            add({"text": joiner.join(source_tokens[cursor : edit["start"]])})
        add(
            {
                "text": joiner.join(source_tokens[edit["start"] : edit["end"]]),
                "correction": edit["target"],
                "label": edit["label"],
                "type": edit["type"],
            }
        )
        cursor = edit["end"]
    if cursor < len(source_tokens):
        add({"text": joiner.join(source_tokens[cursor:])})
    return segments
