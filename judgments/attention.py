"""Attention checks: items built from the release whose right answer a machine knows, mixed
into each judge's items so that careless judging shows.

Two kinds (docs/judgments.md, "Attention checks"):

* reference over source: a sentence whose golden reference differs from its source (the
  source has a real error); the reference must be ranked (in ESA mode scored) at least as
  high as the unchanged source;
* planted error: a copy of the golden reference with one error planted (two neighbouring
  units swapped, one deleted or one repeated; units are words in English, characters in
  Chinese); the copy must be ranked (scored) lower than the reference and, in ESA mode, carry
  an error span overlapping the planted error, whose span is stored.

A check item looks like any other: the same page, other systems' outputs of the sentence
beside the two that matter, the outputs shuffled. Nothing a judge is sent names it; only in a
loud campaign, after the answer, does the judge read that it was a check. Check items never
count in the results; each judge's pass rate does, when an admin sets a threshold (judges
under it are left out of the results).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from datasets.models import Language
from judgments.models import (
    Assignment,
    AssignmentStatus,
    AttentionFeedback,
    Campaign,
    CheckKind,
    Item,
    ItemOutput,
)

# The systems behind a check's outputs: never shown to a judge, never in the results.
CHECK_REFERENCE = "attention:reference"
CHECK_SOURCE = "attention:source"
CHECK_PLANTED = "attention:planted"
OPERATIONS = ("swap", "delete", "repeat")


# --- planting an error ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlantedError:
    """`text` with one planted error; [start, end) its span in `text` (characters): both
    swapped units, the repeated unit and its copy, or the unit after a deletion (before it,
    at the end)."""

    text: str
    start: int
    end: int
    operation: str
    unit: str


def units_of(text: str, language: str) -> list[tuple[int, int]]:
    """(start, end) of each unit: whitespace-separated words in English, non-space characters
    in Chinese."""
    pattern = r"\S+" if language == Language.ENGLISH else r"\S"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


def _is_word(unit: str) -> bool:
    return any(ch.isalnum() for ch in unit)


def plant_error(text: str, *, language: str, rng: random.Random) -> PlantedError | None:
    """`text` with one error planted at a random word-like unit, or None when the text has
    fewer than two units. A unit equal to its neighbour is never deleted, repeated or swapped
    with it: the extractor could then place the edit on the neighbour, and the stored span
    would miss it."""
    units = units_of(text, language)
    if len(units) < 2:
        return None
    words = [text[s:e] for s, e in units]
    places = [i for i, word in enumerate(words) if _is_word(word)] or list(range(len(words)))
    operations = list(OPERATIONS)
    rng.shuffle(operations)
    rng.shuffle(places)
    for operation in operations:
        for i in places:
            planted = _plant(text, units, words, i, operation, language)
            if planted is not None:
                return planted
    return None


def _plant(
    text: str,
    units: list[tuple[int, int]],
    words: list[str],
    i: int,
    operation: str,
    language: str,
) -> PlantedError | None:
    last = len(units) - 1
    start, end = units[i]
    word = words[i]
    if operation == "swap":
        if i == last or words[i + 1] == word:
            return None
        next_start, next_end = units[i + 1]
        between = text[end:next_start]
        swapped = words[i + 1] + between + word
        return PlantedError(
            text[:start] + swapped + text[next_end:], start, start + len(swapped), "swap", word
        )
    if (i > 0 and words[i - 1] == word) or (i < last and words[i + 1] == word):
        return None
    if operation == "delete":
        if i < last:
            next_start = units[i + 1][0]
            planted = text[:start] + text[next_start:]
            return PlantedError(planted, start, start + len(words[i + 1]), "delete", word)
        before_start, before_end = units[i - 1]
        return PlantedError(
            text[:before_end] + text[end:], before_start, before_end, "delete", word
        )
    separator = " " if language == Language.ENGLISH else ""
    copy = separator + word
    return PlantedError(text[:end] + copy + text[end:], start, end + len(copy), "repeat", word)


# --- building check items ---------------------------------------------------------------------


@dataclass(frozen=True)
class CheckSentence:
    index: int  # in the campaign's sentences (the systems' output lines)
    src_id: str
    source: str
    reference: str


def check_sentences(campaign: Campaign) -> list[CheckSentence]:
    """The release's sentences fit for checks: a first golden reference that differs from the
    source (the source has a real error)."""
    if campaign.release is None:
        return []
    rows = campaign.release.sentences.order_by("position").values_list(
        "external_id", "text", "references"
    )
    found = []
    for index, (src_id, text, references) in enumerate(rows):
        reference = str(references[0]) if references else ""
        if text.strip() and reference.strip() and reference.strip() != text.strip():
            found.append(CheckSentence(index, str(src_id), text, reference))
    return found


def build_check_item(
    campaign: Campaign,
    *,
    number: int,
    sentence: CheckSentence,
    kind: str,
    system_outputs: Mapping[str, Sequence[str]],
    rng: random.Random,
) -> tuple[Item, list[ItemOutput]] | None:
    """An unsaved check item on `sentence` (None when no error can be planted in its
    reference): the reference and the source (or the planted copy), filled up to the
    campaign's N outputs with other systems' outputs of the sentence, all shuffled."""
    expectation: dict[str, Any] = {}
    if kind == CheckKind.PLANTED_ERROR:
        planted = plant_error(sentence.reference, language=campaign.language, rng=rng)
        if planted is None:
            return None
        other_text, other_system = planted.text, CHECK_PLANTED
        expectation["span"] = [planted.start, planted.end]
        expectation["error"] = f"{planted.operation} {planted.unit!r}"
    else:
        other_text, other_system = sentence.source, CHECK_SOURCE
    shown: dict[str, list[str]] = {
        sentence.reference: [CHECK_REFERENCE],
        other_text: [other_system],
    }
    fillers = sorted(system_outputs)
    rng.shuffle(fillers)
    for system in fillers:
        line = system_outputs[system][sentence.index]
        if len(shown) >= campaign.outputs_per_item and line not in shown:
            continue
        shown.setdefault(line, []).append(system)
    texts = list(shown)
    rng.shuffle(texts)
    expectation["reference"] = texts.index(sentence.reference)
    expectation["other"] = texts.index(other_text)
    item = Item(
        campaign=campaign,
        number=number,
        src_id=sentence.src_id,
        source=sentence.source,
        system_count=sum(len(s) for s in shown.values()),
        judges_wanted=1,
        check_kind=kind,
        check_expectation=expectation,
    )
    outputs = [
        ItemOutput(item=item, position=p, text=t, systems=sorted(shown[t]))
        for p, t in enumerate(texts)
    ]
    return item, outputs


def checks_for(first_showings: int, share: float) -> int:
    """How many checks go with `first_showings` ordinary items so that checks are `share` of
    all the judge's items."""
    if share <= 0:
        return 0
    return round(first_showings * share / (1.0 - share))


# --- answers to checks ------------------------------------------------------------------------


def _overlaps(span: Mapping[str, Any], planted: Sequence[int]) -> bool:
    return int(span["start"]) < planted[1] and planted[0] < int(span["end"])


def check_passed(item: Item, ranks: Sequence[int], esa: Sequence[Mapping[str, Any]]) -> bool:
    """Whether an answer meets the check's expectation (ranks by output position; in ESA mode
    the scores and spans)."""
    expect = item.check_expectation
    reference, other = int(expect["reference"]), int(expect["other"])
    if esa:
        by_output = {int(answer["output"]): answer for answer in esa}
        ref_score = int(by_output[reference]["score"])
        other_score = int(by_output[other]["score"])
        if item.check_kind == CheckKind.REFERENCE_OVER_SOURCE:
            return ref_score >= other_score
        spans = by_output[other].get("spans", [])
        marked = any(_overlaps(span, expect["span"]) for span in spans)
        return other_score < ref_score and marked
    if item.check_kind == CheckKind.REFERENCE_OVER_SOURCE:
        return int(ranks[reference]) <= int(ranks[other])
    return int(ranks[reference]) < int(ranks[other])


def feedback(assignment: Assignment) -> str | None:
    """What a judge of a loud campaign reads after answering a check (None otherwise)."""
    item = assignment.item
    if (
        not item.check_kind
        or assignment.campaign.attention_feedback != AttentionFeedback.LOUD
        or not hasattr(assignment, "judgment")
    ):
        return None
    texts = {output.position: output.text for output in item.outputs.all()}
    expect = item.check_expectation
    reference, other = texts[int(expect["reference"])], texts[int(expect["other"])]
    judgment = assignment.judgment
    passed = check_passed(item, judgment.ranks, judgment.esa)
    verdict = "your answer met it" if passed else "your answer did not meet it"
    scored = "scored" if judgment.esa else "ranked"
    if item.check_kind == CheckKind.REFERENCE_OVER_SOURCE:
        expected = (
            f"the corrected sentence “{reference}” {scored} at least as high as the"
            f" uncorrected “{other}”"
        )
    else:
        start, end = expect["span"]
        expected = (
            f"“{reference}” {scored} higher than “{other}”, which has an error planted at"
            f" “{other[start:end]}”"
        )
        if judgment.esa:
            expected += " (marked as an error span)"
    return f"This was an attention check; expected {expected}: {verdict}."


# --- pass rates and exclusion -----------------------------------------------------------------


def judge_pass_rates(campaign: Campaign) -> dict[str, dict[str, Any]]:
    """Per judge who answered a check: checks answered, passed, and the pass rate (skipped
    checks are not counted)."""
    answered = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.DONE)
        .exclude(item__check_kind=CheckKind.NONE)
        .select_related("item", "judgment")
    )
    rates: dict[str, dict[str, Any]] = {}
    for assignment in answered:
        row = rates.setdefault(assignment.judge_name, {"checks": 0, "passed": 0})
        row["checks"] += 1
        judgment = assignment.judgment
        row["passed"] += check_passed(assignment.item, judgment.ranks, judgment.esa)
    for row in rates.values():
        row["pass_rate"] = row["passed"] / row["checks"]
    return rates


def excluded_judges(campaign: Campaign) -> set[str]:
    """The judges left out of the results: a pass rate under the campaign's threshold."""
    if campaign.attention_threshold is None:
        return set()
    return {
        judge
        for judge, row in judge_pass_rates(campaign).items()
        if row["pass_rate"] < campaign.attention_threshold
    }


def counted_assignments(campaign: Campaign) -> Q:
    """The filter of the assignments the results count: no check item, no excluded judge."""
    return Q(item__check_kind=CheckKind.NONE) & ~Q(judge_name__in=excluded_judges(campaign))


def attention_summary(campaign: Campaign) -> dict[str, Any]:
    """The campaign's checks for the results page and API: per judge the pass rate and
    whether they are left out, and how many judgments leaving them out removed."""
    rates = judge_pass_rates(campaign)
    excluded = excluded_judges(campaign)
    removed = (
        Assignment.objects.filter(
            campaign=campaign,
            status=AssignmentStatus.DONE,
            item__check_kind=CheckKind.NONE,
            judge_name__in=excluded,
        ).count()
        if excluded
        else 0
    )
    return {
        "share": campaign.attention_share,
        "feedback": campaign.attention_feedback,
        "threshold": campaign.attention_threshold,
        "judges": [
            {"judge": judge, **row, "excluded": judge in excluded}
            for judge, row in sorted(rates.items())
        ],
        "excluded_judges": sorted(excluded),
        "excluded_judgments": removed,
    }
