"""The aggregations (how a metric's scores become system scores) and every spelling of them
that a command or a library function accepts, in one table.

Two spellings exist because two conventions met: ``ew`` is the library's short name (what
:func:`gecscore.meta.aggregation.aggregate` takes and ``meta system --aggregation`` offers
first), ``expected-wins`` the spelling of gec-metrics, the platform and the commands written
after them (``meta revisitcgec``, ``meta seeda``, ``llm-judge``). Other tools call these
commands, so each keeps exactly the spellings it accepted; they are all read off this table.

Nothing heavy is imported: command parsers read these names at start-up.
"""

from __future__ import annotations

from typing import NamedTuple

from gecscore.errors import OptionError

__all__ = [
    "AGGREGATIONS",
    "AGGREGATION_CHOICES",
    "AGGREGATION_SPELLINGS",
    "AGGREGATION_TABLE",
    "RANKING_SPELLINGS",
    "Aggregation",
    "aggregation_name",
]


class Aggregation(NamedTuple):
    name: str  # the short name: ``aggregate``'s argument
    spelling: str  # gec-metrics' and the platform's name of the same aggregation
    ranks_sentences: bool  # ranks the systems from sentence scores (else: the corpus score)


AGGREGATION_TABLE: tuple[Aggregation, ...] = (
    Aggregation("default", "default", ranks_sentences=False),
    Aggregation("trueskill", "trueskill", ranks_sentences=True),
    Aggregation("ew", "expected-wins", ranks_sentences=True),
)

# The short names: ``default``, ``trueskill``, ``ew``.
AGGREGATIONS: tuple[str, ...] = tuple(a.name for a in AGGREGATION_TABLE)
# gec-metrics' spellings: ``meta revisitcgec --aggregate``, ``meta seeda --aggregate``.
AGGREGATION_SPELLINGS: tuple[str, ...] = tuple(a.spelling for a in AGGREGATION_TABLE)
# The rankings from sentence scores in that spelling: ``llm-judge --aggregate``.
RANKING_SPELLINGS: tuple[str, ...] = tuple(
    a.spelling for a in AGGREGATION_TABLE if a.ranks_sentences
)
# Either spelling: ``meta system --aggregation`` (each short name, then the other spellings).
AGGREGATION_CHOICES: tuple[str, ...] = tuple(dict.fromkeys((*AGGREGATIONS, *AGGREGATION_SPELLINGS)))

_NAME_OF = {spelling: a.name for a in AGGREGATION_TABLE for spelling in (a.name, a.spelling)}


def aggregation_name(spelling: str) -> str:
    """The short name of the aggregation spelt ``spelling`` (``expected-wins`` -> ``ew``); an
    OptionError naming the short names otherwise (``aggregate``'s message)."""
    try:
        return _NAME_OF[spelling]
    except KeyError:
        raise OptionError(
            f"unknown aggregation {spelling!r} (known: {', '.join(AGGREGATIONS)})"
        ) from None
