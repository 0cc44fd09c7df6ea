"""Every spelling of an aggregation that a command or library function accepted before the
spellings were read off one table (``gecscore.meta.aggregation_names``) is still accepted, in
the same order (argparse prints the choices in errors and help), and names the same
aggregation. Other tools call these commands with these words."""

from __future__ import annotations

import argparse

import pytest

from gecscore.cli import build_parser
from gecscore.meta import aggregation, compute, revisitcgec_metrics, seeda
from gecscore.meta.aggregation_names import aggregation_name
from gecscore.reffree import llm_judge, llm_prompts

# Spelling -> the aggregation (its short name) as each entry point accepted it, frozen here
# from the code before the table: a new spelling, a dropped one or a remapped one fails.
BOTH_SPELLINGS = {"default": "default", "trueskill": "trueskill", "ew": "ew", "expected-wins": "ew"}
LONG_SPELLINGS = {"default": "default", "trueskill": "trueskill", "expected-wins": "ew"}
RANKINGS = {"trueskill": "trueskill", "expected-wins": "ew"}

COMMAND_OPTIONS = [
    (("meta", "system"), "--aggregation", BOTH_SPELLINGS),
    (("meta", "revisitcgec"), "--aggregate", LONG_SPELLINGS),
    (("meta", "seeda"), "--aggregate", LONG_SPELLINGS),
    (("llm-judge",), "--aggregate", RANKINGS),
]


def _option(path: tuple[str, ...], option: str) -> argparse.Action:
    parser = build_parser(path[0])
    for name in path:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    (action,) = [a for a in parser._actions if option in a.option_strings]
    return action


@pytest.mark.parametrize(("path", "option", "spellings"), COMMAND_OPTIONS)
def test_each_command_accepts_the_spellings_it_accepted_before(
    path: tuple[str, ...], option: str, spellings: dict[str, str]
) -> None:
    assert tuple(_option(path, option).choices or ()) == tuple(spellings)
    assert {spelling: aggregation_name(spelling) for spelling in spellings} == spellings


def test_the_library_lists_keep_their_spellings() -> None:
    assert aggregation.AGGREGATIONS == ("default", "trueskill", "ew")  # aggregate()'s names
    assert tuple(LONG_SPELLINGS) == revisitcgec_metrics.AGGREGATIONS
    assert tuple(LONG_SPELLINGS) == seeda.AGGREGATES
    assert llm_prompts.AGGREGATIONS == llm_judge.AGGREGATIONS == tuple(RANKINGS)


def test_both_spellings_rank_the_same_way() -> None:
    sentence_scores = {"a": [0.1, 0.9, 0.5], "b": [0.2, 0.3, 0.5], "c": [0.9, 0.1, 0.4]}
    result = compute.MetricScores({"a": 0.0, "b": 0.0, "c": 0.0}, sentence_scores=sentence_scores)
    systems = list(sentence_scores)
    by_name = {
        spelling: compute.aggregated("m", result, spelling, systems) for spelling in BOTH_SPELLINGS
    }
    assert by_name["expected-wins"] == by_name["ew"] == aggregation.aggregate("ew", sentence_scores)
    assert by_name["trueskill"] == aggregation.aggregate("trueskill", sentence_scores)
    assert by_name["ew"] != by_name["trueskill"] and by_name["default"] == result.scores


def test_an_unknown_spelling_names_the_short_names() -> None:
    with pytest.raises(
        ValueError, match=r"unknown aggregation 'wins' \(known: default, trueskill, ew\)$"
    ):
        aggregation_name("wins")
    with pytest.raises(
        ValueError, match=r"unknown aggregation 'wins' \(known: default, trueskill, ew\)$"
    ):
        aggregation.aggregate("wins", {"a": [1.0], "b": [0.0]})
