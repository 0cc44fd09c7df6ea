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


# Cells (resamples x systems x systems) of one block of resamples: the win matrices of a
# block and their temporaries stay within a few times 8 bytes x this, whatever the
# number of resamples (2,000 resamples of 500 systems in one go were 4 GB per array).
EW_BLOCK_CELLS = 1 << 21


def expected_wins_bootstrap(
    pairs: Sequence[Comparison],
    *,
    runs: int = 1000,
    seed: int = 0,
    block_cells: int = EW_BLOCK_CELLS,
) -> FloatArray:
    """EW of each resample (runs x systems, systems sorted): ``EW.py``'s default bootstrap,
    drawing len(pairs) judgments (ties included) with replacement.

    The resamples are drawn and scored in blocks of about ``block_cells`` / systems^2 runs,
    one after the other from the one generator: the same draws, and the same numbers, as
    all of them at once (each resample's EW is computed on its own row), in bounded memory."""
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
    out = np.empty((runs, n))
    block = max(1, min(runs, block_cells // max(1, n * n, len(keys))))
    for start in range(0, runs, block):
        size = min(block, runs - start)
        counts = rng.multinomial(len(pairs), probabilities, size=size)
        wins = np.zeros((size, n, n))
        present = np.zeros((size, n), dtype=bool)
        for c, (a, b, relation) in enumerate(keys):
            column = counts[:, c]
            if relation == "<":
                wins[:, a, b] += column
            elif relation == ">":
                wins[:, b, a] += column
            present[:, a] |= column > 0
            present[:, b] |= column > 0
        out[start : start + size] = _expected_wins_of(wins, present)
    return out


def rank_expected_wins(
    pairs: Sequence[Comparison], *, bootstrap: int = 0, seed: int = 0
) -> Ranking:
    """EW ranking; with ``bootstrap`` > 1 also rank ranges and clusters from that many resamples
    (the scores stay the deterministic EW)."""
    systems = _systems_of(pairs)
    scores = expected_wins(pairs)
    runs = expected_wins_bootstrap(pairs, runs=bootstrap, seed=seed) if bootstrap > 1 else None
    return _ranking("ew", systems, scores, runs, seed if runs is not None else None)
