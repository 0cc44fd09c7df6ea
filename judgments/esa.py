"""ESA mode (error span annotation, Kocmi et al., WMT 2024) for GEC: the spans prefilled from
the extractor's edits, the per-judge order of the outputs, the check of a judge's answer, and
the judgments as the library's plain rows (gecscore.meta.esa) for the results.

Offsets are characters of the output text as stored (Python string indices, end exclusive).
docs/judgments.md ("ESA for GEC") describes the rules a judge's answer must follow.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings

from core.exceptions import ServiceError
from datasets.extraction import edits_between
from datasets.models import Language
from gecscore import ESA_SEVERITIES as SEVERITIES
from gecscore import EsaRow, EsaSpan
from judgments.models import Assignment, AssignmentStatus, Campaign

ORIGINS = ("prefilled", "resized", "added")
LOW_SCORE = 50  # a score under this with no span asks the judge to confirm (Appraise's guard)
MAX_SCORE = 100
MISSING_COMPONENT = "[缺失成分]"


def idle_bound_seconds() -> float:
    """GEC_ESA_IDLE_SECONDS: the longest pause between two actions on a judging page that
    counts in full toward the time of an item (a longer one counts as this much)."""
    return float(getattr(settings, "GEC_ESA_IDLE_SECONDS", 120))


# --- prefilled spans ------------------------------------------------------------------------


def _token_offsets(text: str, language: str) -> list[tuple[int, int]]:
    """Character offsets of the extractor's target tokens in `text`: whitespace tokens for
    English; for Chinese one token per non-space character (the extractor removes
    whitespace), the missing-component marker whole."""
    offsets: list[tuple[int, int]] = []
    index = 0
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        if language == Language.ENGLISH:
            end = index
            while end < len(text) and not text[end].isspace():
                end += 1
        elif text.startswith(MISSING_COMPONENT, index):
            end = index + len(MISSING_COMPONENT)
        else:
            end = index + 1
        offsets.append((index, end))
        index = end
    return offsets


def prefilled_spans(source: str, text: str, *, language: str) -> list[dict[str, Any]]:
    """The output's edits against the source as spans on the output ("changed here"): an
    insertion or substitution covers the tokens it wrote; a deletion, which leaves nothing in
    the output, covers the token after the place it removed something from (the one before
    at the end). Spans that would overlap are merged. Empty when the extractor finds nothing
    or its tokens do not line up with the text (a traditional character converted to a
    different number of simplified ones)."""
    if not source.strip() or not text.strip():
        return []
    edits = edits_between(source, text, language=language)
    tokens = _token_offsets(text, language)
    spans: list[dict[str, Any]] = []
    for edit in edits:
        first, last = edit["target_start"], edit["target_end"]
        if first == last:  # a deletion: mark where the text was removed
            first = min(first, len(tokens) - 1)
            last = first + 1
        if first < 0 or last > len(tokens):
            return []
        spans.append(
            {
                "start": tokens[first][0],
                "end": tokens[last - 1][1],
                "edit": f"{edit['source_text'] or '∅'} → {edit['target_text'] or '∅'}",
                "type": edit["type"],
            }
        )
    spans.sort(key=lambda s: (s["start"], s["end"]))
    merged: list[dict[str, Any]] = []
    for span in spans:
        if merged and span["start"] < merged[-1]["end"]:
            last_span = merged[-1]
            last_span["end"] = max(last_span["end"], span["end"])
            last_span["edit"] += f"; {span['edit']}"
            continue
        merged.append(dict(span))
    for index, span in enumerate(merged):
        span["index"] = index
    return merged


def display_order(*, seed: int, judge_id: int | None, item_id: int, count: int) -> list[int]:
    """The order a judge sees an item's outputs in (indices into the stored order): shuffled
    per judge and item, the same on every reload."""
    order = list(range(count))
    random.Random(f"esa:{seed}:{judge_id}:{item_id}").shuffle(order)
    return order


def esa_view(assignment: Assignment) -> dict[str, Any]:
    """What a judge sees of an ESA item: the source and the outputs in this judge's order, each
    with its prefilled spans. No system name, no other judge's answer; `position` is how the
    answer names an output."""
    item = assignment.item
    language = assignment.campaign.language
    stored = list(item.outputs.all())
    order = display_order(
        seed=assignment.campaign.seed,
        judge_id=assignment.judge_id,
        item_id=item.pk,
        count=len(stored),
    )
    outputs = [
        {
            "position": stored[index].position,
            "text": stored[index].text,
            "prefilled": prefilled_spans(item.source, stored[index].text, language=language),
        }
        for index in order
    ]
    return {"source": item.source, "src_id": item.src_id, "outputs": outputs}


# --- a judge's answer -----------------------------------------------------------------------


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ServiceError(f"{what} must be a whole number from {low} to {high} (got {value!r})")
    return value


def _span(raw: Any, text: str, place: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ServiceError(f'{place}: a span is {{"start", "end", "severity", "origin"}}')
    start = _whole(raw.get("start"), f"{place}: start", 0, len(text))
    end = _whole(raw.get("end"), f"{place}: end", 0, len(text))
    if end <= start:
        raise ServiceError(f"{place}: the span {start}-{end} is empty (end must follow start)")
    severity = raw.get("severity")
    if severity not in SEVERITIES:
        raise ServiceError(f"{place}: severity must be minor or major (got {severity!r})")
    origin = raw.get("origin", "added")
    if origin not in ORIGINS:
        raise ServiceError(f"{place}: origin must be one of {', '.join(ORIGINS)}")
    return {"start": start, "end": end, "severity": severity, "origin": origin}


def _clean_output(
    answer: Mapping[str, Any], text: str, proposals: Sequence[Mapping[str, Any]], number: int
) -> dict[str, Any]:
    """One output's score, spans (sorted, not overlapping) and dismissed proposals, with every
    proposal decided: kept as proposed, resized (a kept span overlapping it) or dismissed."""
    place = f"output {number}"
    score = _whole(answer.get("score"), f"{place}: the score", 0, MAX_SCORE)
    raw_spans = answer.get("spans") or []
    raw_dismissed = answer.get("dismissed") or []
    if not isinstance(raw_spans, list) or not isinstance(raw_dismissed, list):
        raise ServiceError(f"{place}: spans and dismissed are lists")
    spans = sorted(
        (_span(raw, text, f"{place}, span {i + 1}") for i, raw in enumerate(raw_spans)),
        key=lambda s: (s["start"], s["end"]),
    )
    for before, after in zip(spans, spans[1:], strict=False):
        if after["start"] < before["end"]:
            raise ServiceError(
                f"{place}: spans {before['start']}-{before['end']} and"
                f" {after['start']}-{after['end']} overlap; join them or make them meet"
            )
    proposed = {(p["start"], p["end"]) for p in proposals}
    dismissed = []
    for raw in raw_dismissed:
        key = (raw.get("start"), raw.get("end")) if isinstance(raw, Mapping) else None
        if key not in proposed:
            raise ServiceError(f"{place}: only a prefilled span can be dismissed (got {raw!r})")
        dismissed.append({"start": key[0], "end": key[1]})
    for span in spans:
        key = (span["start"], span["end"])
        if span["origin"] == "prefilled" and key not in proposed:
            raise ServiceError(
                f"{place}: span {key[0]}-{key[1]} is marked prefilled but no edit is there;"
                " mark it resized or added"
            )
    decided = {(d["start"], d["end"]) for d in dismissed}
    for proposal in proposals:
        start, end = proposal["start"], proposal["end"]
        kept = any(
            (s["start"], s["end"]) == (start, end)
            or (s["origin"] == "resized" and s["start"] < end and start < s["end"])
            for s in spans
        )
        if not kept and (start, end) not in decided:
            raise ServiceError(
                f"{place}: decide the changed text {text[start:end]!r} (characters"
                f" {start}-{end}): confirm it as an error, resize it or remove it"
            )
    return {"score": score, "spans": spans, "dismissed": dismissed}


def clean_answer(
    answer: Any,
    *,
    outputs: Sequence[tuple[int, str]],
    proposals: Mapping[int, Sequence[Mapping[str, Any]]],
    low_score_confirmed: bool,
) -> list[dict[str, Any]]:
    """The judge's ESA answer checked against the item: one entry per shown output
    ({"output": position, "score", "spans", "dismissed"}). Refused, never trimmed: a score
    outside 0-100 or not whole, a span outside the text, empty or overlapping another, an
    unknown severity, an undecided prefilled span, and a score under 50 with no span unless
    the judge confirmed it. Raises ServiceError (field "esa") naming the output."""
    try:
        return _clean_answer(answer, outputs, proposals, low_score_confirmed)
    except ServiceError as error:
        raise ServiceError(error.message, field="esa") from None


def _clean_answer(
    answer: Any,
    outputs: Sequence[tuple[int, str]],
    proposals: Mapping[int, Sequence[Mapping[str, Any]]],
    low_score_confirmed: bool,
) -> list[dict[str, Any]]:
    if not isinstance(answer, list):
        raise ServiceError('give a list: [{"output", "score", "spans", "dismissed"}]')
    by_position: dict[int, Mapping[str, Any]] = {}
    for entry in answer:
        position = entry.get("output") if isinstance(entry, Mapping) else None
        if isinstance(position, bool) or not isinstance(position, int):
            raise ServiceError(f"each answer names its output position (got {entry!r})")
        if position in by_position:
            raise ServiceError(f"output position {position} is answered twice")
        by_position[position] = entry
    wanted = {position for position, _ in outputs}
    if set(by_position) != wanted:
        missing = sorted(wanted - set(by_position))
        extra = sorted(set(by_position) - wanted)
        raise ServiceError(
            f"answer every shown output once (missing {missing or 'none'}, unknown"
            f" {extra or 'none'})"
        )
    cleaned = []
    for number, (position, text) in enumerate(outputs, start=1):
        entry = _clean_output(by_position[position], text, proposals.get(position, ()), number)
        if entry["score"] < LOW_SCORE and not entry["spans"] and not low_score_confirmed:
            raise ServiceError(
                f"output {number}: a score of {entry['score']} with no error span; mark the"
                " errors, or confirm the score"
            )
        cleaned.append({"output": position, **entry})
    return cleaned


def ranks_from_scores(scores: Sequence[int]) -> list[int]:
    """Ranks the scores imply (1 = best; equal scores tie), so pairwise rankings (Expected
    Wins, TrueSkill) also read an ESA campaign."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def seconds_spent(*, active: Any, wall: float) -> float:
    """The item's time: the page's active time (pauses capped at the idle bound) when it sent
    one, never more than the wall time since the item was opened; without it (no script) the
    wall time, capped at the idle bound as one pause."""
    bound = idle_bound_seconds()
    if active in (None, ""):
        return min(wall, bound)
    try:
        value = float(active)
    except (TypeError, ValueError):
        raise ServiceError(
            f"active_seconds must be a number (got {active!r})", field="esa"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ServiceError(f"active_seconds must be 0 or more (got {active!r})", field="esa")
    return min(value, wall)


# --- the judgments as rows -------------------------------------------------------------------


def esa_rows(campaign: Campaign) -> list[EsaRow]:
    """Every finished ESA judgment of `campaign` as the library's rows, one per judged output,
    in item order."""
    assignments = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.DONE)
        .exclude(judgment__esa=[])
        .select_related("item", "judgment")
        .prefetch_related("item__outputs")
        .order_by("item__number", "order", "id")
    )
    rows: list[EsaRow] = []
    for assignment in assignments.iterator(chunk_size=200):
        outputs = {output.position: output for output in assignment.item.outputs.all()}
        for answer in assignment.judgment.esa:
            output = outputs[int(answer["output"])]
            rows.append(
                EsaRow(
                    item=str(assignment.item.number),
                    output=output.position,
                    judge=assignment.judge_name,
                    systems=tuple(output.systems),
                    text=output.text,
                    score=int(answer["score"]),
                    spans=tuple(
                        EsaSpan(int(s["start"]), int(s["end"]), str(s["severity"]), s["origin"])
                        for s in answer.get("spans", [])
                    ),
                    repeat=assignment.repeat,
                    language=campaign.language,
                )
            )
    return rows
