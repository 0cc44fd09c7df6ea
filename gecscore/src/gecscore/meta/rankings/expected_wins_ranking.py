"""Expected Wins (Bojar et al. 2013, as ``wmt-trueskill/EW.py``), deterministic and bootstrapped."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gecscore.meta.judgments import Comparison
from gecscore.meta.rankings.ranking import FloatArray, Ranking, _ranking, _systems_of

__all__ = [
    "expected_wins",
    "expected_wins_bootstrap",
    "rank_expected_wins",
]


def _win_matrix(pairs: Sequence[Comparison], index: dict[str, int]) -> FloatArray:
    wins = np.zeros((len(index), len(index)))
    for p in pairs:
        if p.relation == "<":
            wins[index[p.system_a], index[p.system_b]] += 1
        elif p.relation == ">":
            wins[index[p.system_b], index[p.system_a]] += 1
    return wins


def _expected_wins_of(wins: FloatArray, present: npt.NDArray[np.bool_]) -> FloatArray:
    """EW per system from win matrices (..., S, S); ``present`` (..., S): systems seen in the
    (re)sampled data, which sets the divisor ``len(all_systems) - 1`` as ``EW.py`` does."""
    total = wins + np.swapaxes(wins, -1, -2)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(total > 0, wins / np.where(total > 0, total, 1), 0.0)
    divisor = present.sum(axis=-1, keepdims=True) - 1
    ew: FloatArray = rate.sum(axis=-1) / np.maximum(divisor, 1)
    return ew


def expected_wins(
    pairs: Sequence[Comparison], systems: Sequence[str] | None = None
) -> dict[str, float]:
    """Deterministic Expected Wins of every system in ``pairs`` (ties ignored). ``systems``:
    all the systems, when some may appear in no judgment (they score 0 and still count in the
    divisor ``len(systems) - 1``); by default those of ``pairs``."""
    systems = _systems_of(pairs) if systems is None else list(systems)
    index = {s: i for i, s in enumerate(systems)}
    ew = _expected_wins_of(_win_matrix(pairs, index), np.ones(len(systems), dtype=bool))
    return {s: float(ew[i]) for i, s in enumerate(systems)}


def expected_wins_bootstrap(
    pairs: Sequence[Comparison], *, runs: int = 1000, seed: int = 0
) -> FloatArray:
    """EW of each resample (runs x systems, systems sorted): ``EW.py``'s default bootstrap,
    drawing len(pairs) judgments (ties included) with replacement."""
    systems = _systems_of(pairs)
    index = {s: i for i, s in enumerate(systems)}
    n = len(systems)
    # Resampling judgments = a multinomial over the distinct (a, b, relation) cells.
    cells: dict[tuple[int, int, str], int] = defaultdict(int)
    for p in pairs:
        cells[(index[p.system_a], index[p.system_b], p.relation)] += 1
    keys = list(cells)
    probabilities = np.array([cells[k] for k in keys], dtype=float) / len(pairs)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(pairs), probabilities, size=runs)
    wins = np.zeros((runs, n, n))
    present = np.zeros((runs, n), dtype=bool)
    for c, (a, b, relation) in enumerate(keys):
        column = counts[:, c]
        if relation == "<":
            wins[:, a, b] += column
        elif relation == ">":
            wins[:, b, a] += column
        present[:, a] |= column > 0
        present[:, b] |= column > 0
    return _expected_wins_of(wins, present)


def rank_expected_wins(
    pairs: Sequence[Comparison], *, bootstrap: int = 0, seed: int = 0
) -> Ranking:
    """EW ranking; with ``bootstrap`` > 1 also rank ranges and clusters from that many resamples
    (the scores stay the deterministic EW)."""
    systems = _systems_of(pairs)
    scores = expected_wins(pairs)
    runs = expected_wins_bootstrap(pairs, runs=bootstrap, seed=seed) if bootstrap > 1 else None
    return _ranking("ew", systems, scores, runs, seed if runs is not None else None)
