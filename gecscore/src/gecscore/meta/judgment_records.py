"""The records of human ranking judgments (items, entries, edit verdicts, pairwise
comparisons) and the Appraise XML tag names, shared by the XML and CSV readers."""

from __future__ import annotations

from dataclasses import dataclass, field

from gecscore.errors import GECError

__all__ = [
    "ADMIN_USER",
    "Comparison",
    "EDIT_TAG",
    "ENTRY_TAG",
    "ESA_SPAN_TAG",
    "EsaSpan",
    "EditVerdict",
    "ITEM_TAG",
    "JudgmentFormatError",
    "JudgmentSet",
    "RESULT_TAG",
    "RankedEntry",
    "RankingItem",
    "RankingResult",
]


RESULT_TAG = "error-correction-ranking-result"
ITEM_TAG = "ranking-item"
ENTRY_TAG = "translation"
EDIT_TAG = "edit"  # our extension: <edit index= correct= source= target=/> in a <translation>
# Our extension for ESA: <esa-span start_i= end_i= severity= origin=/> in a <translation>
# whose score= is the judge's 0-100 score (Appraise's ESA keeps spans as JSON objects with
# start_i, end_i (inclusive) and severity; we keep its names and its inclusive end).
ESA_SPAN_TAG = "esa-span"
ADMIN_USER = "admin"  # Appraise's own account; the reference scripts drop its items


class JudgmentFormatError(GECError, ValueError):
    """A judgment file that cannot be used, naming the file and the place (line or element)."""

    def __init__(self, path: str, place: str, message: str) -> None:
        self.path = path
        self.place = place
        self.message = message
        super().__init__(f"{path}, {place}: {message}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (type(self), (self.path, self.place, self.message))


@dataclass(frozen=True)
class EditVerdict:
    """A judge's verdict on one edit of a shown output (SEEDA-E's first step): the edit's
    index in the output's edits, whether it is correct, and (for a reader) the text it
    replaces and the text it puts in."""

    edit: int
    correct: bool
    source: str = ""
    target: str = ""


@dataclass(frozen=True)
class EsaSpan:
    """An ESA error span: characters ``start`` to ``end`` (exclusive) of the output text, its
    severity (minor / major) and how it came about: ``prefilled`` (an edit's span kept),
    ``resized`` (an edit's span changed), ``added`` (the judge's own) or ``dismissed`` (an
    edit's span the judge removed: no error, severity empty)."""

    start: int
    end: int
    severity: str
    origin: str = "added"


@dataclass(frozen=True)
class RankedEntry:
    """One shown output: the systems that produced it (several if collapsed), its rank and,
    when its edits were judged, one verdict per edit; in ESA, its 0-100 score, error spans
    and (when the file carries it) the output text the spans index."""

    systems: tuple[str, ...]
    rank: int
    edits: tuple[EditVerdict, ...] = ()
    score: int | None = None
    spans: tuple[EsaSpan, ...] = ()
    text: str | None = None


@dataclass(frozen=True)
class RankingItem:
    """One judge's ranking of the outputs for one source sentence."""

    item_id: str
    src_id: str
    user: str
    entries: tuple[RankedEntry, ...]
    doc_id: str = ""
    duration: str = ""
    extra: tuple[tuple[str, str], ...] = ()  # other attributes, e.g. ("skipped", "true")

    @property
    def skipped(self) -> bool:
        return dict(self.extra).get("skipped") == "true"

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(name for entry in self.entries for name in entry.systems)


@dataclass(frozen=True)
class RankingResult:
    """One ``<error-correction-ranking-result>`` block: its attributes and its items."""

    attributes: tuple[tuple[str, str], ...]
    items: tuple[RankingItem, ...]


@dataclass(frozen=True)
class JudgmentSet:
    """All ranking results of one file."""

    results: tuple[RankingResult, ...]

    @property
    def items(self) -> tuple[RankingItem, ...]:
        return tuple(item for result in self.results for item in result.items)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system named, sorted."""
        return tuple(sorted({name for item in self.items for name in item.systems}))


@dataclass(frozen=True)
class Comparison:
    """A pairwise judgment: ``system_a`` < ``system_b`` alphabetically; ``relation`` is ``<``
    (a is better), ``>`` (b is better) or ``=`` (tie). ``rank_a``/``rank_b`` are the dense ranks
    of the two systems within the item (1 = best), as ``print_pairs.pl -r`` prints them."""

    segment: str
    user: str
    system_a: str
    system_b: str
    relation: str
    rank_a: int
    rank_b: int
    item: int = field(default=-1, compare=False)  # index of the item in the file, -1 if unknown
