"""System rankings from sentence scores (TrueSkill as gec-metrics 0.1.1, Expected Wins) and the
SEEDA figures gec-metrics 0.1.1 gives for GREEN (docs: $GEC_SHARED_DIR/specs/reference-tools.md)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.errors import GECError
from gecscore.meta.aggregation import aggregate, expected_wins_scores, trueskill_scores


def _package_trueskill(scores: dict[str, list[float]]) -> dict[str, float]:
    """gec-metrics' MetricBase.run_trueskill, written out with the trueskill package."""
    import trueskill

    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25)
    names = list(scores)
    players = [env.create_rating() for _ in names]
    for sentence in range(len(scores[names[0]])):
        for i, j in itertools.combinations(range(len(names)), 2):
            x, y = scores[names[i]][sentence], scores[names[j]][sentence]
            ranks = (0, 1) if x > y else (1, 0) if x < y else (0, 0)
            (players[i],), (players[j],) = env.rate([(players[i],), (players[j],)], ranks=ranks)
    return {name: players[k].mu for k, name in enumerate(names)}


def test_trueskill_equals_the_package_played_match_by_match() -> None:
    rng = random.Random(7)
    # Few distinct values, so that there are many ties (draws).
    scores = {f"sys{k}": [rng.choice((0.0, 0.25, 0.5, 1.0)) for _ in range(30)] for k in range(7)}
    ours = aggregate("trueskill", scores)
    theirs = _package_trueskill(scores)
    assert list(ours) == list(theirs)
    assert max(abs(ours[name] - theirs[name]) for name in ours) < 1e-12
    # The order of the systems is the order of the matches: another order, other ratings.
    reordered = dict(reversed(list(scores.items())))
    assert aggregate("trueskill", reordered) != ours
    assert (
        max(
            abs(aggregate("trueskill", reordered)[n] - _package_trueskill(reordered)[n])
            for n in ours
        )
        < 1e-12
    )


def _tables(scores: dict[str, list[float]]) -> list[list[list[int | None]]]:
    """One pairwise table per sentence: 1 when system i scored higher than j, -1 lower, 0 equal."""
    rows = list(scores.values())
    return [
        [[(x[k] > y[k]) - (x[k] < y[k]) for y in rows] for x in rows] for k in range(len(rows[0]))
    ]


def test_the_table_door_is_the_same_rule_as_aggregate() -> None:
    """``trueskill_scores`` / ``expected_wins_scores`` (pairwise tables in, a list out: the
    LLM judges' door, ``gecscore.trueskill_scores``) give ``aggregate``'s numbers on the tables of
    the same sentence scores."""
    rng = random.Random(11)
    scores = {f"sys{k}": [rng.choice((0.0, 0.5, 1.0)) for _ in range(25)] for k in range(5)}
    tables = _tables(scores)
    assert trueskill_scores(tables) == list(aggregate("trueskill", scores).values())
    assert expected_wins_scores(tables) == list(aggregate("ew", scores).values())
    assert trueskill_scores([]) == [] and expected_wins_scores([]) == []


def test_expected_wins_by_hand() -> None:
    # A beats everyone on both sentences; B beats C and D once and ties once; C and D always
    # tie (a pair never decided counts 0): A 3/3, B (0 + 1 + 1)/3, C and D 0.
    scores = {"A": [1.0, 1.0], "B": [0.5, 0.2], "C": [0.2, 0.2], "D": [0.2, 0.2]}
    wins = aggregate("ew", scores)
    assert wins == {"A": 1.0, "B": 2 / 3, "C": 0.0, "D": 0.0}
    assert expected_wins_scores(_tables(scores)) == list(wins.values())


def test_sentence_counts_must_agree() -> None:
    with pytest.raises(GECError, match="every system needs a score for every sentence"):
        aggregate("trueskill", {"A": [1.0, 0.0], "B": [1.0]})
    with pytest.raises(GECError, match="at least two systems"):
        aggregate("ew", {"A": [1.0]})
    with pytest.raises(GECError, match="unknown aggregation 'mean'"):
        aggregate("mean", {"A": [1.0], "B": [0.0]})


def _seeda_green(
    seeda: Path, conll14: Path, human: str, aggregation: str, capsys: pytest.CaptureFixture[str]
) -> dict[str, float]:
    code = main(
        [
            "meta",
            "system",
            "--human",
            str(seeda / "scores" / "human" / f"{human}.txt"),
            "--systems",
            "base",
            "--compute",
            "green",
            "--outputs",
            str(seeda / "outputs" / "subset"),
            "--gold",
            str(conll14 / "conll14st-test.m2"),
            "--lines",
            str(seeda / "subset_conll14_lines.txt"),
            "--refs",
            str(seeda / "refs" / "REF0.txt"),
            str(seeda / "refs" / "REF1.txt"),
            "--aggregation",
            aggregation,
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["aggregation"] == aggregation
    return report["metrics"]["green"]  # type: ignore[no-any-return]


# gec-metrics 0.1.1, MetaEvalSEEDA(system="base").corr_system(GREEN(), aggregation=...),
# printed to 4 decimals (shared/specs/reference-tools.md).
@pytest.mark.parametrize(
    ("human", "aggregation", "pearson", "spearman"),
    [
        ("EW_edit", "default", "0.9124", "0.9301"),
        ("TS_sent", "default", "0.9250", None),
        ("EW_edit", "trueskill", "0.8880", "0.8881"),
    ],
)
def test_seeda_green_correlations_equal_gec_metrics(
    seeda: Path,
    conll14: Path,
    capsys: pytest.CaptureFixture[str],
    human: str,
    aggregation: str,
    pearson: str,
    spearman: str | None,
) -> None:
    entry = _seeda_green(seeda, conll14, human, aggregation, capsys)
    assert f"{entry['pearson']:.4f}" == pearson
    if spearman is not None:
        assert f"{entry['spearman']:.4f}" == spearman


def test_aggregation_needs_computed_metrics(
    seeda: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    human = str(seeda / "scores" / "human" / "EW_edit.txt")
    code = main(
        ["meta", "system", "--human", human, "--metric", f"x={human}", "--aggregation", "ew"]
    )
    assert code == 2
    assert "--aggregation needs --compute" in capsys.readouterr().err
