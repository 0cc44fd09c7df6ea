"""System rankings from sentence-level metric scores, the way human rankings are built
(Goto, Sakai & Watanabe, ACL 2025, "Rethinking Evaluation Metrics for GEC").

Every sentence is turned into pairwise comparisons of the systems by their sentence scores
(the higher score wins, equal scores tie), then a rating algorithm ranks the systems:

* ``default``: no aggregation here: the metric's own corpus score (the caller has it).
* ``trueskill``: as gec-metrics 0.1.1 (``MetricBase.run_trueskill``, what
  ``corr_system(..., aggregation="trueskill")`` runs): one TrueSkill rating per system
  (mu 0, sigma 0.5, beta 0.25, tau 0, draw probability 0.25), updated by the ``trueskill``
  package's two-player ``rate`` for every sentence in order and, within a sentence, every pair
  ``(i, j), i < j`` of the systems in the order given (``itertools.combinations``); a tie is
  a draw. Deterministic: no sampling. The score is the final mu. The matches are played in
  the same order per system, batched over pairs of disjoint systems, by
  :func:`gecscore.meta.rankings.trueskill_update` (equal to ``trueskill.rate``);
  :func:`play_trueskill` plays any such list of matches.
* ``ew`` (also spelt ``expected-wins``: :mod:`gecscore.meta.aggregation_names`): Expected
  Wins (Bojar et al. 2013), the paper's second rating method: for system i
  the mean over the other systems j of wins(i, j) / (wins(i, j) + wins(j, i)) over the
  sentences, ties ignored, a pair never decided counting 0 --
  :func:`gecscore.meta.rankings.expected_wins` on the sentence comparisons. (gec-metrics 0.1.1
  crashes with ``UnboundLocalError`` on ``aggregation="expected_wins"``.)

The system order matters for TrueSkill only (it is the order of the matches); SEEDA's is
alphabetical, the order of gec-metrics' ``MetaEvalSEEDA.MODELS``.

Two doors, one rule: :func:`aggregate` takes ``{system: sentence scores}`` and returns
``{system: score}``; :func:`trueskill_scores` and :func:`expected_wins_scores` take
per-sentence pairwise tables (:data:`PairwiseTable`, what the LLM judges produce; also
``gecscore.trueskill_scores``) and return a list in system order. ``aggregate`` is those two
on the tables of its sentence scores (the higher score wins, equal scores tie, a NaN loses).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gecscore.errors import InputError, OptionError
from gecscore.meta.aggregation_names import AGGREGATIONS
from gecscore.meta.judgments import Comparison
from gecscore.meta.rankings import expected_wins, trueskill_update

__all__ = [
    "AGGREGATIONS",
    "FloatArray",
    "PairwiseTable",
    "TS_BETA",
    "TS_DRAW_PROBABILITY",
    "TS_MU",
    "TS_SIGMA",
    "aggregate",
    "expected_wins_scores",
    "play_trueskill",
    "sentence_comparisons",
    "trueskill_scores",
]


# gec-metrics 0.1.1's TrueSkill environment (MetricBase.run_trueskill).
TS_MU = 0.0
TS_SIGMA = 0.5
TS_BETA = 0.25
TS_DRAW_PROBABILITY = 0.25

FloatArray = npt.NDArray[np.float64]

# One sentence's outcomes, [system i][system j]: 1 when i's hypothesis won over j's, -1 when
# it lost, 0 a tie (or the same hypothesis), None when the two were not compared.
PairwiseTable = list[list[int | None]]


def _score_table(sentence_scores: Mapping[str, Sequence[float]]) -> FloatArray:
    """systems x sentences; a GECError when the systems have different numbers of sentences."""
    lengths = {system: len(scores) for system, scores in sentence_scores.items()}
    if len(sentence_scores) < 2:
        raise InputError("ranking by sentence scores needs at least two systems")
    if len(set(lengths.values())) != 1:
        shown = ", ".join(f"{system} {n}" for system, n in lengths.items())
        raise InputError(f"every system needs a score for every sentence (sentences: {shown})")
    return np.array([list(scores) for scores in sentence_scores.values()], dtype=np.float64)


def _layers(
    first: npt.NDArray[np.int64], second: npt.NDArray[np.int64], systems: int
) -> list[npt.NDArray[np.int64]]:
    """The matches (indices into ``first``/``second``) grouped into layers of matches between
    disjoint systems, each system's matches kept in their order: playing the layers one after
    the other gives the same ratings as playing the matches in order."""
    last = [0] * systems
    layer_of: list[int] = []
    for i, j in zip(first.tolist(), second.tolist(), strict=True):
        layer = max(last[i], last[j])
        layer_of.append(layer)
        last[i] = last[j] = layer + 1
    if not layer_of:
        return []
    order = np.argsort(np.array(layer_of, dtype=np.int64), kind="stable")
    bounds = np.cumsum(np.bincount(np.array(layer_of, dtype=np.int64)))
    return np.split(order, bounds[:-1])


def play_trueskill(
    systems: int,
    first: Sequence[int] | npt.NDArray[np.int64],
    second: Sequence[int] | npt.NDArray[np.int64],
    outcome: Sequence[int] | npt.NDArray[np.int64],
) -> list[float]:
    """gec-metrics' TrueSkill over matches played in the order given: match m is system
    ``first[m]`` against ``second[m]`` (indices below ``systems``), ``outcome[m]`` 1 when the
    first won, -1 when the second won, 0 a draw (``trueskill.rate`` with ranks (0, 1), (1, 0)
    or (0, 0)). Returns the final mu of each system."""
    import trueskill  # the reference implementation; only its draw margin here

    a = np.asarray(first, dtype=np.int64)
    b = np.asarray(second, dtype=np.int64)
    result = np.asarray(outcome, dtype=np.int64)
    a_won = result >= 0  # on a draw the first stands as "winner" (the update is symmetric)
    winner = np.where(a_won, a, b)
    loser = np.where(a_won, b, a)
    draw = result == 0
    env = trueskill.TrueSkill(
        mu=TS_MU, sigma=TS_SIGMA, beta=TS_BETA, tau=0.0, draw_probability=TS_DRAW_PROBABILITY
    )
    draw_margin = float(trueskill.calc_draw_margin(TS_DRAW_PROBABILITY, 2, env))
    mu = np.full((systems, 1), TS_MU)
    var = np.full((systems, 1), TS_SIGMA * TS_SIGMA)
    for layer in _layers(a, b, systems):
        trueskill_update(
            mu,
            var,
            winner[layer],
            loser[layer],
            draw[layer],
            beta=TS_BETA,
            draw_margin=draw_margin,
        )
    return [float(value) for value in mu[:, 0]]


def _table_matches(
    tables: Sequence[PairwiseTable],
) -> tuple[int, list[int], list[int], list[int]]:
    """The tables as matches in gec-metrics' order (sentences in order, pairs (i < j) in
    order, the pairs not compared left out): (systems, first, second, outcome)."""
    n = len(tables[0]) if tables else 0
    first: list[int] = []
    second: list[int] = []
    outcome: list[int] = []
    for table in tables:
        for i, j in itertools.combinations(range(n), 2):
            result = table[i][j]
            if result is not None:
                first.append(i)
                second.append(j)
                outcome.append(result)
    return n, first, second, outcome


def trueskill_scores(tables: Sequence[PairwiseTable]) -> list[float]:
    """TrueSkill mu per system (in table order) over per-sentence pairwise tables, as
    gec-metrics' ``run_trueskill`` (mu 0, sigma 0.5, beta 0.25, tau 0, draw probability 0.25;
    one two-player update per compared pair, sentences in order, pairs (i < j) in order):
    :func:`play_trueskill` on those matches. No tables: no systems, ``[]``."""
    n, first, second, outcome = _table_matches(tables)
    return play_trueskill(n, first, second, outcome) if n else []


def expected_wins_scores(tables: Sequence[PairwiseTable]) -> list[float]:
    """Expected Wins (Bojar et al. 2011) per system (in table order) over per-sentence
    pairwise tables: the mean over the others of wins / (wins + losses) against each; ties
    and pairs not compared ignored, a pair never decided adds 0 (a system never compared
    scores 0 and still counts among the others): :func:`gecscore.meta.rankings.expected_wins`
    on the tables' comparisons."""
    n, first, second, outcome = _table_matches(tables)
    if n < 2:
        return [0.0] * n
    names = [f"{k:09d}" for k in range(n)]  # sorted as the systems are ordered
    relation = {1: "<", -1: ">", 0: "="}
    comparisons = [
        Comparison("", "", names[i], names[j], relation[o], 0, 0)
        for i, j, o in zip(first, second, outcome, strict=True)
    ]
    scores = expected_wins(comparisons, systems=names)
    return [scores[name] for name in names]


def _trueskill_of_sentence_scores(
    sentence_scores: Mapping[str, Sequence[float]],
) -> dict[str, float]:
    """:func:`trueskill_scores` of the sentence scores' pairwise outcomes, played straight
    from the score table (numpy, no tables built: SEEDA has thousands of sentences)."""
    table = _score_table(sentence_scores)
    systems, sentences = table.shape
    pairs = list(itertools.combinations(range(systems), 2))
    first = np.array([i for i, _ in pairs], dtype=np.int64)
    second = np.array([j for _, j in pairs], dtype=np.int64)
    # Sentence-major, as the reference loops: match m is pair m % P of sentence m // P.
    a_scores = table[first].T.reshape(-1)
    b_scores = table[second].T.reshape(-1)
    # The higher score wins, equal scores draw (and, as before, a NaN loses to anything).
    outcome = np.where(a_scores >= b_scores, np.where(a_scores == b_scores, 0, 1), -1)
    mu = play_trueskill(systems, np.tile(first, sentences), np.tile(second, sentences), outcome)
    return {system: mu[k] for k, system in enumerate(sentence_scores)}


def sentence_comparisons(sentence_scores: Mapping[str, Sequence[float]]) -> list[Comparison]:
    """Every pair of systems on every sentence, as pairwise judgments (``<``: the
    alphabetically earlier system scored higher; ``=``: equal scores)."""
    table = _score_table(sentence_scores)
    names = list(sentence_scores)
    out: list[Comparison] = []
    for i, j in itertools.combinations(range(len(names)), 2):
        a, b = (i, j) if names[i] < names[j] else (j, i)
        for segment, (x, y) in enumerate(zip(table[a].tolist(), table[b].tolist(), strict=True)):
            relation = "<" if x > y else ">" if x < y else "="
            out.append(Comparison(str(segment), "", names[a], names[b], relation, 0, 0))
    return out


def _expected_wins_of_sentence_scores(
    sentence_scores: Mapping[str, Sequence[float]],
) -> dict[str, float]:
    """Expected Wins of each system over its sentence-level wins (see the module)."""
    scores = expected_wins(sentence_comparisons(sentence_scores))
    return {system: scores[system] for system in sentence_scores}


def aggregate(method: str, sentence_scores: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """System scores from sentence scores by ``trueskill`` or ``ew`` (``default`` is the
    metric's corpus score, which only the metric can give: a GECError here)."""
    if method == "trueskill":
        return _trueskill_of_sentence_scores(sentence_scores)
    if method == "ew":
        return _expected_wins_of_sentence_scores(sentence_scores)
    if method == "default":
        raise OptionError("the default aggregation is the metric's own corpus score")
    raise OptionError(f"unknown aggregation {method!r} (known: {', '.join(AGGREGATIONS)})")
