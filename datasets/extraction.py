"""The product's one door to the scoring core's edit extractor and its resources.

Every place that shows edits (the annotator's live diff, the review page, study items)
calls `edits_between`, which calls `gecscore.extract_edits` with the configured
ChERRANT resources, so what a person sees is exactly what the scorer will count. The
export, the release's reference M2 and the scorer read the same setting through
`resources_dir_setting` / `extraction_resources`: the one reader of GEC_CHERRANT_RESOURCES.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from gecscore.cleme import chunk_grid_from_texts  # CLEME's own package API (its __all__)

from core.exceptions import ServiceError
from datasets.models import Language
from datasets.textrules import text_problem
from datasets.warmup import wait_for_english_warmup
from gecscore import (
    EnglishModelMissing,
    Resources,
    char_tokens,
    extract_edits,
    extract_edits_en,
    load_resources,
    normalize_source,
)


def resources_dir_setting(override: str | None = None) -> str | None:
    """The ChERRANT resources directory in force: an explicit override, else the
    GEC_CHERRANT_RESOURCES setting, else None (the library's documented default)."""
    value = override if override is not None else getattr(settings, "GEC_CHERRANT_RESOURCES", "")
    return value or None


def extraction_resources(override: str | None = None) -> Resources:
    """The configured resources (cached by the library per directory). A folder that cannot
    be read is a ServiceError naming the folder and file."""
    try:
        return load_resources(resources_dir_setting(override))
    except ValueError as exc:  # ResourceError names the directory and file
        raise ServiceError(f"extraction resources: {exc}", field="resources") from None


def edits_between(source: str, target: str, *, language: str = "zh") -> list[dict[str, Any]]:
    """Edits turning `source` into `target`, as plain dicts (JSON-ready): char-level for
    Chinese, ERRANT's word-level edits for English (whitespace tokens)."""
    # The diff endpoint is called on every pause in typing; its work is bounded by the one
    # text rule: a sentence that could be imported can always be diffed.
    for field, value in (("source", source), ("target", target)):
        problem = text_problem(value)
        if problem is not None:
            raise ServiceError(f"{field}: {problem}", field=field)
    if source == target or not source.strip():
        return []
    if not target.strip():
        raise ServiceError("the correction is empty", field="target")
    try:
        edits = _extract(source, target, language)
    except ValueError as error:
        raise ServiceError(f"cannot compare these texts: {error}", field="target") from None
    # noop (no change / 没有错误) and NA (无法标注) are markers with span -1, not edits to draw.
    return [_edit_dict(edit) for edit in edits if edit.start >= 0]


def _extract(source: str, target: str, language: str) -> list[Any]:
    """The one extractor of `language` (the one the M2 export and the scorer use)."""
    if language == Language.ENGLISH:
        wait_for_english_warmup()  # a load under way finishes sooner than a second one
        try:
            return extract_edits_en(source, target)
        except EnglishModelMissing as missing:
            raise ServiceError(str(missing), field="language", status=503) from None

    return extract_edits(source, target, resources=extraction_resources())


def _edit_dict(edit: Any) -> dict[str, Any]:
    return {
        "start": edit.start,
        "end": edit.end,
        "target_start": edit.target_start,
        "target_end": edit.target_end,
        "type": edit.type,
        "source_text": edit.source_text,
        "target_text": edit.target_text,
    }


@dataclass(frozen=True)
class Segment:
    """A run of the source shown with its edit: kind eq / ins / del / sub."""

    kind: str
    source_text: str
    target_text: str
    type: str = ""


def _source_tokens(source: str, language: str) -> list[str]:
    # Edit spans index the extractor's tokens: for Chinese those of the normalised source
    # (whitespace removed, one token per character, "[缺失成分]" whole), for English the
    # whitespace tokens; segments are cut from the same tokens.
    if language == Language.ENGLISH:
        return source.split()

    return char_tokens(normalize_source(source))


def diff_segments(
    source: str, edits: list[dict[str, Any]], *, language: str = "zh"
) -> list[Segment]:
    """Interleave unchanged source runs with the edits, for highlighting.

    The live view (static/annotate/diff.js) draws the segments the diff endpoint returns,
    so the page rendered by the server and the page updated while typing look the same.
    English words keep their spaces: every segment's text ends with one.
    """
    segments = _segments(
        _source_tokens(source, language), edits, "" if language != Language.ENGLISH else " "
    )
    if language != Language.ENGLISH:
        return segments
    return [
        Segment(
            s.kind,
            s.source_text and s.source_text + " ",
            s.target_text and s.target_text + " ",
            s.type,
        )
        for s in segments
    ]


def _segments(tokens: list[str], edits: list[dict[str, Any]], joiner: str) -> list[Segment]:
    """Unchanged runs of `tokens` (joined by `joiner`) between the edits, in source order."""
    segments: list[Segment] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e["start"], e["end"])):
        if edit["start"] > cursor:
            run = joiner.join(tokens[cursor : edit["start"]])
            segments.append(Segment("eq", run, run))
        if edit["source_text"] and edit["target_text"]:
            kind = "sub"
        elif edit["target_text"]:
            kind = "ins"
        else:
            kind = "del"
        segments.append(Segment(kind, edit["source_text"], edit["target_text"], edit["type"]))
        cursor = max(cursor, edit["end"])
    if cursor < len(tokens):
        run = joiner.join(tokens[cursor:])
        segments.append(Segment("eq", run, run))
    return segments


def segments_as_dicts(segments: list[Segment]) -> list[dict[str, str]]:
    return [asdict(segment) for segment in segments]


@dataclass(frozen=True)
class GridRow:
    label: str
    cells: list[dict[str, Any]]  # {"text", "changed"} per chunk column


@dataclass(frozen=True)
class ReviewGrid:
    columns: list[dict[str, Any]]  # {"source", "kind", "disagree"} per chunk
    rows: list[GridRow]


def chunk_grid_between(
    source: str, labelled_texts: list[tuple[str, str]], *, language: str = "zh"
) -> ReviewGrid | None:
    """All corrections of a sentence aligned chunk by chunk (CLEME's joint partition), from
    the same extractor as the diffs. None when there is nothing to compare, and for English
    (the grid is built from the char-level extractor; English reviews show the diffs)."""

    if not labelled_texts or not source.strip() or language == Language.ENGLISH:
        return None
    try:
        grid = chunk_grid_from_texts(
            source, [text for _label, text in labelled_texts], resources=extraction_resources()
        )
    except ValueError:
        return None  # e.g. a pathological pair the extractor refuses: the diffs still show
    columns = [
        {"source": column.source, "kind": column.kind, "disagree": column.disagree}
        for column in grid.columns
    ]
    rows = [
        GridRow(label, [{"text": cell.text, "changed": cell.changed} for cell in cells])
        for (label, _text), cells in zip(labelled_texts, grid.rows, strict=True)
    ]
    return ReviewGrid(columns, rows)
