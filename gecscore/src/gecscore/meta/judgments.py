"""Human ranking judgments: Appraise/WMT ranking XML and WMT pairwise CSV, in and out.

An Appraise ranking item shows a judge one source sentence and up to five outputs; identical
outputs of several systems are collapsed into one entry whose ``system`` attribute lists the
names separated by spaces, and that entry gets one rank (1 = best, equal ranks = tie):

    <ranking-item src-id="135" id="0" user="annotator01" ...>
      <translation rank="1" system="IITB INPUT IPN"/>
      <translation rank="3" system="CAMB"/>
    </ranking-item>

:func:`pairwise` splits the collapsed entries back into systems of equal rank and expands every
item into pairs of systems, as Grundkiewicz et al.'s (2015) ``EW.pl`` / ``print_pairs.pl`` do.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

from gecscore.boundedio import (
    DEFAULT_LIMITS,
    MalformedXML,
    ReadLimits,
    Source,
    iter_chunks,
    iter_xml,
)
from gecscore.errors import InputFormatError
from gecscore.meta.judgment_records import (
    ADMIN_USER,
    EDIT_TAG,
    ENTRY_TAG,
    ESA_SPAN_TAG,
    ITEM_TAG,
    RESULT_TAG,
    Comparison,
    EditVerdict,
    EsaSpan,
    JudgmentFormatError,
    JudgmentSet,
    RankedEntry,
    RankingItem,
    RankingResult,
)
from gecscore.meta.pairwise_csv import CSV_FIELDS, read_pairwise_csv, write_pairwise_csv

__all__ = [
    "ADMIN_USER",
    "CSV_FIELDS",
    "Comparison",
    "EDIT_TAG",
    "ENTRY_TAG",
    "ESA_SPAN_TAG",
    "EditVerdict",
    "EsaSpan",
    "ITEM_TAG",
    "JudgmentFormatError",
    "JudgmentSet",
    "RESULT_TAG",
    "RankedEntry",
    "RankingItem",
    "RankingResult",
    "item_comparisons",
    "iter_judgments_xml",
    "pairwise",
    "pairwise_comparisons",
    "rank_groups",
    "read_judgments",
    "read_judgments_xml",
    "read_pairwise_csv",
    "unexpanded_comparisons",
    "write_judgments_xml",
    "write_pairwise_csv",
]

_ITEM_ATTRIBUTES = frozenset({"id", "src-id", "user", "doc-id", "duration"})


def _attribute(element: ET.Element, name: str, path: str, place: str) -> str:
    value = element.get(name)
    if value is None:
        raise JudgmentFormatError(path, place, f"<{element.tag}> has no {name!r} attribute")
    return value


def _entry_attribute(attributes: dict[str, str], name: str, path: str, place: str) -> str:
    value = attributes.get(name)
    if value is None:
        raise JudgmentFormatError(path, place, f"<{ENTRY_TAG}> has no {name!r} attribute")
    return value


def _parse_edits(edits: Sequence[dict[str, str]], path: str, place: str) -> tuple[EditVerdict, ...]:
    verdicts = []
    for attributes in edits:
        index = attributes.get("index", "")
        correct = attributes.get("correct", "")
        if not index.isdigit() or correct not in ("true", "false"):
            raise JudgmentFormatError(
                path,
                place,
                f'an <{EDIT_TAG}> needs index="n" and correct="true|false"'
                f" (got index={index!r}, correct={correct!r})",
            )
        verdicts.append(
            EditVerdict(
                edit=int(index),
                correct=correct == "true",
                source=attributes.get("source", ""),
                target=attributes.get("target", ""),
            )
        )
    return tuple(verdicts)


def _parse_esa(
    attributes: dict[str, str], marks: Sequence[dict[str, str]], path: str, place: str
) -> tuple[int | None, tuple[EsaSpan, ...]]:
    """The entry's ESA score and spans (``end_i`` inclusive in the file, exclusive here)."""
    score_text = attributes.get("score")
    if score_text is None:
        if marks:
            raise JudgmentFormatError(
                path, place, f"<{ESA_SPAN_TAG}> in a <{ENTRY_TAG}> without score="
            )
        return None, ()
    if not score_text.isdigit() or not 0 <= int(score_text) <= 100:
        raise JudgmentFormatError(
            path, place, f"score must be a whole number 0-100 (got {score_text!r})"
        )
    spans = []
    for mark in marks:
        start, end = mark.get("start_i", ""), mark.get("end_i", "")
        severity, origin = mark.get("severity", ""), mark.get("origin", "added")
        known = severity in ("minor", "major") or (origin == "dismissed" and not severity)
        if not start.isdigit() or not end.isdigit() or int(end) < int(start) or not known:
            raise JudgmentFormatError(
                path,
                place,
                f'an <{ESA_SPAN_TAG}> needs start_i="n" end_i="m" (m >= n) and severity="minor|major"'
                f" (got start_i={start!r}, end_i={end!r}, severity={severity!r})",
            )
        spans.append(EsaSpan(int(start), int(end) + 1, severity, origin))
    return int(score_text), tuple(spans)


def _parse_item(
    element: ET.Element,
    children: Sequence[tuple[dict[str, str], list[tuple[str, dict[str, str]]]]],
    path: str,
    number: int,
    known: frozenset[str] | None,
) -> RankingItem:
    """The item ``element`` (its attributes) and its ``<translation>`` children's attributes
    (read at each child's own end: the streaming reader frees a child once it is read)."""
    item_id = element.get("id", "")
    place = f"<{ITEM_TAG}> #{number} (id={item_id!r})"
    src_id = _attribute(element, "src-id", path, place)
    user = _attribute(element, "user", path, place)
    entries: list[RankedEntry] = []
    seen: set[str] = set()
    for child, marks in children:
        edits = [attributes for tag, attributes in marks if tag == EDIT_TAG]
        score, spans = _parse_esa(
            child, [attributes for tag, attributes in marks if tag == ESA_SPAN_TAG], path, place
        )
        systems = tuple(_entry_attribute(child, "system", path, place).split())
        rank_text = _entry_attribute(child, "rank", path, place)
        try:
            rank = int(rank_text)
        except ValueError:
            raise JudgmentFormatError(
                path, place, f"rank {rank_text!r} is not an integer"
            ) from None
        if not systems:
            raise JudgmentFormatError(path, place, "a <translation> names no system")
        for name in systems:
            if name in seen:
                raise JudgmentFormatError(path, place, f"system {name!r} is ranked twice")
            if known is not None and name not in known:
                raise JudgmentFormatError(
                    path, place, f"unknown system {name!r} (known: {', '.join(sorted(known))})"
                )
            seen.add(name)
        entries.append(
            RankedEntry(
                systems=systems,
                rank=rank,
                edits=_parse_edits(edits, path, place),
                score=score,
                spans=spans,
                text=child.get("text"),
            )
        )
    extra = tuple((k, v) for k, v in element.attrib.items() if k not in _ITEM_ATTRIBUTES)
    if not entries and dict(extra).get("skipped") != "true":
        raise JudgmentFormatError(path, place, "the item ranks no <translation>")
    return RankingItem(
        item_id=item_id,
        src_id=src_id,
        user=user,
        entries=tuple(entries),
        doc_id=element.get("doc-id", ""),
        duration=element.get("duration", ""),
        extra=extra,
    )


def read_judgments_xml(
    source: Source,
    *,
    systems: Iterable[str] | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    name: str | None = None,
) -> JudgmentSet:
    """Read an Appraise ranking XML file, gzipped or not (``boundedio.iter_xml``: streamed
    within ``limits``, each element freed once read; no DTD or entity is expanded).

    ``systems``: when given, a judgment naming any other system is an error. ``name``: the
    file's name in messages (default: the path). Raises :class:`JudgmentFormatError`
    naming the line (malformed XML, a limit passed) or the element (missing attributes,
    unknown or twice-ranked systems, duplicate item ids). :func:`iter_judgments_xml` gives
    the same content one item at a time.
    """
    results: list[RankingResult] = []
    items: list[RankingItem] = []
    for read in iter_judgments_xml(source, systems=systems, limits=limits, name=name):
        if isinstance(read, RankingResult):
            if results:
                results[-1] = RankingResult(results[-1].attributes, tuple(items))
            results.append(read)
            items = []
        else:
            items.append(read)
    results[-1] = RankingResult(results[-1].attributes, tuple(items))
    return JudgmentSet(results=tuple(results))


def iter_judgments_xml(
    source: Source,
    *,
    systems: Iterable[str] | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    name: str | None = None,
) -> Iterator[RankingResult | RankingItem]:
    """The file as it is read: each ``<ranking-result>`` as it opens (a RankingResult with its
    attributes and no items), then its items one by one. A reader that handles each item
    as it comes holds one item of the file, not the file (a 37 MB file held whole took a
    gigabyte). Errors as :func:`read_judgments_xml`, raised when the reader gets there."""
    path = name or str(getattr(source, "name", "the file" if isinstance(source, bytes) else source))
    known = frozenset(systems) if systems is not None else None
    seen_result = False
    try:
        for read in _parse_results(iter_xml(source, name=path, limits=limits), path, known):
            seen_result = seen_result or isinstance(read, RankingResult)
            yield read
    except MalformedXML as exc:
        raise JudgmentFormatError(
            path, f"line {exc.line}, column {exc.column}", exc.message
        ) from None
    except InputFormatError as exc:  # a limit passed, unreadable gzip
        raise JudgmentFormatError(path, f"line {exc.line}", exc.message) from None
    if not seen_result:
        raise JudgmentFormatError(path, "line 1", f"no <{RESULT_TAG}> element")


def _parse_results(
    events: Iterator[tuple[str, ET.Element, int]],
    path: str,
    known: frozenset[str] | None,
) -> Iterator[RankingResult | RankingItem]:
    seen_ids: dict[tuple[str, str], int] = {}
    children: list[tuple[dict[str, str], list[tuple[str, dict[str, str]]]]] = []
    edits: list[tuple[str, dict[str, str]]] = []  # <edit>s / <esa-span>s of this <translation>
    item_depth = 0  # depth of the open <ranking-item>, 0 outside one
    number = 0
    for event, element, depth in events:
        if event == "start":
            if element.tag == RESULT_TAG:
                seen_ids = {}
                yield RankingResult(attributes=tuple(element.attrib.items()), items=())
            elif element.tag == ITEM_TAG and not item_depth:
                item_depth, children = depth, []
            continue
        if element.tag in (EDIT_TAG, ESA_SPAN_TAG) and item_depth and depth == item_depth + 2:
            edits.append((element.tag, dict(element.attrib)))
        elif element.tag == ENTRY_TAG and item_depth and depth == item_depth + 1:
            children.append((dict(element.attrib), edits))
            edits = []
        elif element.tag == ITEM_TAG and depth == item_depth:
            item_depth = 0
            number += 1
            item = _parse_item(element, children, path, number, known)
            key = (item.user, item.item_id)
            if item.item_id and key in seen_ids:
                raise JudgmentFormatError(
                    path,
                    f"<{ITEM_TAG}> #{number} (id={item.item_id!r})",
                    f"duplicate item: user {item.user!r} already has id {item.item_id!r}"
                    f" (item #{seen_ids[key]})",
                )
            seen_ids[key] = number
            yield item


def write_judgments_xml(judgments: JudgmentSet) -> str:
    """The Appraise XML text of ``judgments`` (read back, it gives the same JudgmentSet)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<appraise-results>", ""]
    for result in judgments.results:
        attrs = "".join(f" {name}={quoteattr(value)}" for name, value in result.attributes)
        lines.append(f"<{RESULT_TAG}{attrs}>")
        lines.append("")
        for item in result.items:
            pairs = [
                ("doc-id", item.doc_id),
                ("duration", item.duration),
                ("id", item.item_id),
                ("src-id", item.src_id),
                ("user", item.user),
                *item.extra,
            ]
            attrs = "".join(f" {name}={quoteattr(value)}" for name, value in sorted(pairs))
            if not item.entries:
                lines.append(f"  <{ITEM_TAG}{attrs}/>")
                lines.append("")
                continue
            lines.append(f"  <{ITEM_TAG}{attrs}>")
            for entry in item.entries:
                system = quoteattr(" ".join(entry.systems))
                esa = "" if entry.score is None else f' score="{entry.score}"'
                if entry.text is not None:
                    esa += f" text={quoteattr(entry.text)}"
                if not entry.edits and not entry.spans:
                    lines.append(f'    <{ENTRY_TAG} rank="{entry.rank}"{esa} system={system}/>')
                    continue
                lines.append(f'    <{ENTRY_TAG} rank="{entry.rank}"{esa} system={system}>')
                lines.extend(_esa_span_lines(entry.spans))
                for verdict in entry.edits:
                    correct = "true" if verdict.correct else "false"
                    lines.append(
                        f'      <{EDIT_TAG} correct="{correct}" index="{verdict.edit}"'
                        f" source={quoteattr(verdict.source)} target={quoteattr(verdict.target)}/>"
                    )
                lines.append(f"    </{ENTRY_TAG}>")
            lines.append(f"  </{ITEM_TAG}>")
            lines.append("")
        lines.append(f"</{RESULT_TAG}>")
        lines.append("")
    lines.append("</appraise-results>")
    return "\n".join(lines) + "\n"


def _esa_span_lines(spans: Sequence[EsaSpan]) -> list[str]:
    return [
        f'      <{ESA_SPAN_TAG} start_i="{span.start}" end_i="{span.end - 1}"'
        f" severity={quoteattr(span.severity)} origin={quoteattr(span.origin)}/>"
        for span in spans
    ]


def rank_groups(item: RankingItem) -> list[list[str]]:
    """The item's systems grouped by rank, best first, collapsed entries split; each group
    sorted (the reference scripts' ``@rnks`` after ``grep defined``)."""
    by_rank: dict[int, list[str]] = {}
    for entry in item.entries:
        by_rank.setdefault(entry.rank, []).extend(entry.systems)
    return [sorted(by_rank[rank]) for rank in sorted(by_rank)]


def item_comparisons(item: RankingItem, *, index: int = -1) -> Iterator[Comparison]:
    """The item's pairwise judgments in ``print_pairs.pl`` order: ties within each rank group,
    then every pair across a better and a worse group."""
    groups = rank_groups(item)
    for i, better in enumerate(groups):
        for x, first in enumerate(better):
            for second in better[x + 1 :]:
                yield Comparison(item.src_id, item.user, first, second, "=", i + 1, i + 1, index)
        for j in range(i + 1, len(groups)):
            for winner in better:
                for loser in groups[j]:
                    if winner < loser:
                        yield Comparison(
                            item.src_id, item.user, winner, loser, "<", i + 1, j + 1, index
                        )
                    else:
                        yield Comparison(
                            item.src_id, item.user, loser, winner, ">", j + 1, i + 1, index
                        )


def pairwise(
    items: Sequence[RankingItem], *, systems: Iterable[str] | None = None
) -> list[Comparison]:
    """All pairwise judgments of ``items`` (admin items dropped), restricted to ``systems``
    when given (other systems are removed from each item before the expansion)."""
    keep = frozenset(systems) if systems is not None else None
    pairs: list[Comparison] = []
    for index, item in enumerate(items):
        if item.user == ADMIN_USER or not item.entries:
            continue
        if keep is not None:
            entries = tuple(
                RankedEntry(tuple(s for s in e.systems if s in keep), e.rank) for e in item.entries
            )
            item = RankingItem(
                item.item_id, item.src_id, item.user, tuple(e for e in entries if e.systems)
            )
        pairs.extend(item_comparisons(item, index=index))
    return pairs


# The name the package exports (``gecscore.pairwise_comparisons``): "pairwise" alone says
# little beside the metrics.
pairwise_comparisons = pairwise


def unexpanded_comparisons(items: Sequence[RankingItem]) -> list[Comparison]:
    """WMT's ``unexpanded`` pairs: one per two outputs a judge saw, collapsed outputs NOT
    split. A collapsed entry is named by one of its systems (the first: Appraise XML does not
    record which one was on screen, and the published ``unexpanded.csv`` of GJG15 names a
    different member each time); ranks are the item's ranks as given, systems of each pair in
    name order, ``item`` the 1-based number of the ranking in the file (WMT's ``rankingID``)."""
    pairs: list[Comparison] = []
    number = 0
    for item in items:
        number += 1  # skipped items keep their number (no rows), as in GJG15's unexpanded.csv
        if item.user == ADMIN_USER or not item.entries or item.skipped:
            continue
        shown = sorted((entry.systems[0], entry.rank) for entry in item.entries)
        for i, (first, first_rank) in enumerate(shown):
            for second, second_rank in shown[i + 1 :]:
                relation = (
                    "<" if first_rank < second_rank else ">" if first_rank > second_rank else "="
                )
                pairs.append(
                    Comparison(
                        item.src_id,
                        item.user,
                        first,
                        second,
                        relation,
                        first_rank,
                        second_rank,
                        number,
                    )
                )
    return pairs


# --- WMT pairwise CSV -------------------------------------------------------------------------


def read_judgments(path: str | Path) -> JudgmentSet | list[Comparison]:
    """An Appraise XML file (JudgmentSet) or a WMT pairwise CSV (list of Comparison), by content."""
    name = str(path)
    try:
        head = next(iter_chunks(name, name=name), b"").lstrip()
    except InputFormatError as exc:
        raise JudgmentFormatError(name, f"line {exc.line}", exc.message) from None
    if head.startswith(b"<"):
        return read_judgments_xml(name)
    return read_pairwise_csv(name)
