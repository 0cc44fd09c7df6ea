"""TrueSkill (Sakaguchi et al. 2014, as ``TS.py -n 2 -d 0``), many seeded runs played side by side
with the ``trueskill`` package's two-player update: by the compiled player
(``gecscore._trueskill``) where it is built, else in numpy (``GEC_PURE_PYTHON=1`` forces numpy)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import numpy.typing as npt

from gecscore.errors import InputError
from gecscore.meta.judgments import Comparison
from gecscore.meta.rankings._trueskill_math import _v_w
from gecscore.meta.rankings.ranking import FloatArray, Ranking, _ranking, _systems_of

_trueskill: ModuleType | None
try:  # the optional compiled player (_trueskill.c; built by the package's setup.py)
    from gecscore import _trueskill
except ImportError:  # pragma: no cover - a build without a C compiler
    _trueskill = None

__all__ = [
    "TS_CHUNK",
    "TS_DRAW_PROBABILITY",
    "TS_SIGMA",
    "TrueSkillTrace",
    "rank_trueskill",
    "trueskill_mu",
    "trueskill_parameters",
    "trueskill_runs",
    "trueskill_update",
]


TS_SIGMA = 0.5
TS_DRAW_PROBABILITY = 0.25


def trueskill_parameters(n_judgments: int) -> tuple[float, float, int]:
    """(beta, draw margin, matches per run) for ``n_judgments`` pairwise judgments (``TS.py``)."""
    import trueskill  # the reference implementation of the update; only its draw margin here

    matches = n_judgments + 1
    beta = TS_SIGMA * (matches / 40.0)
    env = trueskill.TrueSkill(
        mu=0.0, sigma=TS_SIGMA, beta=beta, tau=0.0, draw_probability=TS_DRAW_PROBABILITY
    )
    return beta, float(trueskill.calc_draw_margin(TS_DRAW_PROBABILITY, 2, env)), matches


def trueskill_update(
    mu: FloatArray,
    var: FloatArray,
    winner: npt.NDArray[np.int64],
    loser: npt.NDArray[np.int64],
    draw: npt.NDArray[np.bool_],
    *,
    beta: float,
    draw_margin: float,
) -> None:
    """One two-player TrueSkill match per run, in place. ``mu`` and ``var`` (sigma^2) are
    systems x runs, C order; in run r, system ``winner[r]`` beat ``loser[r]``, or they drew
    where ``draw[r]``. Equals ``trueskill.rate`` with tau = 0 (checked against the package)."""
    runs = mu.shape[1]
    at = np.stack((winner, loser)) * runs
    at += np.arange(runs)
    _update_at(mu.reshape(-1), var.reshape(-1), at, draw, beta=beta, draw_margin=draw_margin)


_SIGNS = np.array([[1.0], [-1.0]])


def _update_at(
    mu_flat: FloatArray,
    var_flat: FloatArray,
    at: npt.NDArray[np.int64],
    draw: npt.NDArray[np.bool_],
    *,
    beta: float,
    draw_margin: float,
) -> None:
    """:func:`trueskill_update` on flat ``mu`` and ``var`` with ``at`` = (winner's, loser's flat
    index) x matches: both sides in one array op each. mu_l - x equals mu_l + (-x) and products
    commute, bit for bit, so the numbers are those of the side-by-side formulas."""
    mu2 = mu_flat[at]
    var2 = var_flat[at]
    c2 = var2[0] + var2[1]
    c2 += 2 * beta * beta
    c = np.sqrt(c2)
    t = mu2[0] - mu2[1]
    t /= c
    v, w = _v_w(t, draw_margin / c, draw)
    new_mu = var2 / c
    new_mu *= v
    new_mu *= _SIGNS
    new_mu += mu2
    new_var = var2 / c2
    new_var *= w
    np.subtract(1.0, new_var, out=new_var)
    new_var *= var2
    mu_flat[at] = new_mu  # the loser's row last, as when written one side after the other
    var_flat[at] = new_var


@dataclass(frozen=True)
class TrueSkillTrace:
    """The matches one run played: per match, the winner, loser (indices into ``systems``) and
    whether it was a draw (for replaying through the ``trueskill`` package in a test)."""

    systems: tuple[str, ...]
    winner: npt.NDArray[np.int64]
    loser: npt.NDArray[np.int64]
    draw: npt.NDArray[np.bool_]


def trueskill_runs(
    pairs: Sequence[Comparison],
    *,
    runs: int = 1000,
    seed: int = 0,
    trace_run: int | None = None,
    matches: int | None = None,
) -> tuple[FloatArray, FloatArray, TrueSkillTrace | None]:
    """Play ``runs`` TrueSkill runs side by side (``TS.py -n 2 -d 0``); returns the final mu and
    sigma^2 (runs x systems, systems sorted) and, with ``trace_run``, that run's matches.
    ``matches`` shortens the runs (tests); by default each plays len(pairs) + 1 matches.
    A pair of systems never judged together is never drawn as a match (``TS.py`` would fail)."""
    return _play(pairs, [(runs, seed)], trace_run=trace_run, matches=matches)


class _Table:
    """The judgments of each pair of systems as lookup tables for :func:`_play`."""

    def __init__(self, pairs: Sequence[Comparison], systems: Sequence[str]) -> None:
        n = len(systems)
        winners, losers, draws, offsets, counts = _pair_outcomes(
            pairs, {s: i for i, s in enumerate(systems)}
        )
        self.offsets = offsets.reshape(-1)  # symmetric: [first * n + second] is the pair's run
        self.counts = counts.reshape(-1).astype(np.float64)  # u * count as in int * float
        self.sides = np.stack((winners, losers))  # a draw keeps the lower index as "winner"
        self.draws = draws
        judged = counts > 0
        self.judged = None if bool(judged.sum() == n * (n - 1)) else judged


def _play(
    pairs: Sequence[Comparison],
    chunks: Sequence[tuple[int, int]],
    *,
    trace_run: int | None = None,
    matches: int | None = None,
    compiled: bool | None = None,
) -> tuple[FloatArray, FloatArray, TrueSkillTrace | None]:
    """:func:`trueskill_runs` for several (runs, seed) chunks played side by side: each chunk
    draws from its own generator, column for column the numbers of the chunk played alone
    (every step is per column), at a fraction of numpy's per-call cost.

    The compiled player (:func:`_compiled_player`) plays the same steps in C, 1.4x faster;
    a ``trace_run`` is played in numpy, the only player that records matches. The two differ
    only where numpy's SIMD exp and the C library's differ in the last bit."""
    systems = _systems_of(pairs)
    n = len(systems)
    if n < 2:
        raise InputError("TrueSkill needs judgments of at least two systems")
    beta, draw_margin, default_matches = trueskill_parameters(len(pairs))
    total_matches = default_matches if matches is None else matches
    table = _Table(pairs, systems)
    rngs = [(np.random.default_rng(seed), size) for size, seed in chunks]
    runs = sum(size for size, _ in chunks)
    # systems x runs: every per-system step is a contiguous row operation.
    mu = np.zeros((n, runs))
    var = np.full((n, runs), TS_SIGMA * TS_SIGMA)
    native = _compiled_player(compiled)
    if trace_run is not None:  # only numpy records a run's matches
        native = None
    steps = _NumpySteps(table, mu, var, beta=beta, draw_margin=draw_margin)
    trace: list[tuple[int, int, bool]] = []
    for start in range(0, total_matches, _BLOCK):
        size = min(_BLOCK, total_matches - start)
        # Per chunk (size, 2, r) from its generator, then side by side: the same draws as the
        # chunk played alone.
        uniforms = np.concatenate([rng.random((size, 2, r)) for rng, r in rngs], axis=2)
        if native is not None:
            native.play_block(
                mu, var, uniforms, table.counts, table.offsets, table.sides, table.draws,
                table.judged, n, 2 * beta * beta, draw_margin,
            )  # fmt: skip
            continue
        for u_opponent, u_judgment in uniforms:
            at, draw = steps.play(u_opponent, u_judgment)
            if trace_run is not None:
                trace.append((int(at[0, trace_run]), int(at[1, trace_run]), bool(draw[trace_run])))
            steps.update(at, draw)
    played = None
    if trace_run is not None:
        won, lost, drew = zip(*trace, strict=True) if trace else ((), (), ())
        played = TrueSkillTrace(
            tuple(systems),
            np.array(won, dtype=np.int64),
            np.array(lost, dtype=np.int64),
            np.array(drew, dtype=bool),
        )
    return mu.T.copy(), var.T.copy(), played


_BLOCK = 256  # matches per block of uniforms drawn at once


def _compiled_player(compiled: bool | None) -> ModuleType | None:
    """The compiled player, or None for numpy (default: where built, unless GEC_PURE_PYTHON=1)."""
    if compiled is None:
        compiled = _trueskill is not None and os.environ.get("GEC_PURE_PYTHON") != "1"
    if compiled and _trueskill is None:
        raise InputError("the compiled TrueSkill player (gecscore._trueskill) is not built")
    return _trueskill if compiled else None


class _NumpySteps:
    """One match of every run per call, in numpy (systems x runs arrays)."""

    def __init__(
        self, table: _Table, mu: FloatArray, var: FloatArray, *, beta: float, draw_margin: float
    ) -> None:
        self.table, self.mu, self.var = table, mu, var
        self.mu_flat, self.var_flat = mu.reshape(-1), var.reshape(-1)
        self.n, self.runs = mu.shape
        self.column = np.arange(self.runs)
        self.scratch = _Scratch(self.n, self.runs)
        self.beta, self.draw_margin = beta, draw_margin

    def play(
        self, u_opponent: FloatArray, u_judgment: FloatArray
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Per run: the system with the largest sigma, its opponent, and the judgment drawn
        for the pair: (winner's, loser's system) x runs and whether it is a draw."""
        table, scratch, runs = self.table, self.scratch, self.runs
        first = scratch.largest_sigma(self.var)
        at_first = np.multiply(first, runs, dtype=np.int64)
        at_first += self.column
        weight = scratch.weight
        np.subtract(self.mu, self.mu_flat[at_first], out=weight)
        np.abs(weight, out=weight)
        np.negative(weight, out=weight)
        np.exp(weight, out=weight)
        if table.judged is None:
            weight.reshape(-1)[at_first] = 0.0
        else:
            weight *= table.judged[:, first]
        pair = scratch.opponents(u_opponent)
        pair += np.multiply(first, self.n, dtype=np.int64)
        pick = (u_judgment * table.counts[pair]).astype(np.int64)
        pick += table.offsets[pair]
        return table.sides[:, pick], table.draws[pick]

    def update(self, at: npt.NDArray[np.int64], draw: npt.NDArray[np.bool_]) -> None:
        at = at * self.runs
        at += self.column
        _update_at(
            self.mu_flat, self.var_flat, at, draw, beta=self.beta, draw_margin=self.draw_margin
        )


class _Scratch:
    """Buffers of the per-step selections (systems x runs), reused across steps."""

    def __init__(self, n: int, runs: int) -> None:
        self.n = n
        small = np.int8 if n < 128 else np.int64  # row indices and counts fit in int8
        self.rows = np.arange(n, dtype=small)[:, None]
        self.largest = np.empty(runs)
        self.mask = np.empty((n, runs), dtype=bool)
        self.index = np.empty((n, runs), dtype=small)
        self.weight = np.empty((n, runs))
        self.second = np.empty(runs, dtype=np.int64)

    def largest_sigma(self, var: FloatArray) -> npt.NDArray[np.integer]:
        """Per run, the system with the largest sigma, ties to the alphabetically last name
        (``TS.py`` sorts (sigma, name)): the largest row index among the maxima."""
        np.max(var, axis=0, out=self.largest)
        np.equal(var, self.largest, out=self.mask)
        np.multiply(self.mask, self.rows, out=self.index)
        out: npt.NDArray[np.integer] = np.max(self.index, axis=0)
        return out

    def opponents(self, u: FloatArray) -> npt.NDArray[np.int64]:
        """Per run, the opponent: the first k whose cumulative weight exceeds u * total
        (random_sample.choose). The cumulative sums are built row by row in place (numpy's
        cumsum along axis 0 is several times slower); they add in the same order, so the
        last row is the total bit for bit."""
        cumulative = self.weight
        for k in range(1, self.n):
            np.add(cumulative[k - 1], cumulative[k], out=cumulative[k])
        threshold = u * cumulative[-1]
        np.less_equal(cumulative, threshold, out=self.mask)
        below = np.add.reduce(self.mask, axis=0, dtype=self.index.dtype)
        np.minimum(below, self.n - 1, out=self.second)
        return self.second


def _pair_outcomes(
    pairs: Sequence[Comparison], index: dict[str, int]
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]:
    """The judgments of each pair of systems (i < j) stored flat per pair as winner, loser
    and draw (on a draw i stands as winner); ``offsets[i, j]`` and ``counts[i, j]``
    (symmetric) locate a pair's run."""
    n = len(index)
    outcomes: dict[tuple[int, int], list[int]] = defaultdict(list)
    for p in pairs:
        i, j = index[p.system_a], index[p.system_b]
        value = 1 if p.relation == "<" else -1 if p.relation == ">" else 0
        if i > j:
            i, j, value = j, i, -value
        outcomes[(i, j)].append(value)
    offsets = np.zeros((n, n), dtype=np.int64)
    counts = np.zeros((n, n), dtype=np.int64)
    winners: list[int] = []
    losers: list[int] = []
    draws: list[bool] = []
    for (i, j), values in sorted(outcomes.items()):
        offsets[i, j] = offsets[j, i] = len(winners)
        counts[i, j] = counts[j, i] = len(values)
        winners.extend(i if value >= 0 else j for value in values)
        losers.extend(j if value >= 0 else i for value in values)
        draws.extend(value == 0 for value in values)
    return (
        np.array(winners, dtype=np.int64),
        np.array(losers, dtype=np.int64),
        np.array(draws, dtype=bool),
        offsets,
        counts,
    )


TS_CHUNK = 500  # runs per independent seeded chunk: the same numbers for any worker count
# With a progress callback, one process plays this many chunks side by side at a time (and
# reports after each batch) instead of all of them at once: the same numbers.
TS_PROGRESS_CHUNKS = 2

ChunkProgress = Callable[[int, int], None]


def _trueskill_chunks(
    job: tuple[list[Comparison], list[tuple[int, int]], int | None],
) -> FloatArray:
    pairs, chunks, matches = job
    mu, _, _ = _play(pairs, chunks, matches=matches)
    return mu


def trueskill_mu(
    pairs: Sequence[Comparison],
    *,
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    matches: int | None = None,
    on_chunks: ChunkProgress | None = None,
) -> FloatArray:
    """Final mu of ``runs`` runs (runs x systems). The runs are played in chunks of
    :data:`TS_CHUNK`, chunk k seeded with the k-th child of ``SeedSequence(seed)``, so the
    result does not depend on ``workers`` (processes from the product's worker context).
    Each process plays its share of the chunks side by side (one process: all of them), which
    costs less CPU than a process per chunk; more workers give a shorter wall time.

    ``on_chunks(done, total)`` is called as chunks finish (after each process's share, or in
    one process after each :data:`TS_PROGRESS_CHUNKS` chunks); an exception it raises (a
    cancelled job) stops the runs there."""
    sizes = [min(TS_CHUNK, runs - start) for start in range(0, runs, TS_CHUNK)]
    seeds = [
        int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(len(sizes))
    ]
    chunks = list(zip(sizes, seeds, strict=True))
    groups = min(max(workers, 1), len(chunks))
    shares = [part.tolist() for part in np.array_split(np.arange(len(chunks)), groups)]
    if groups == 1 and on_chunks is not None:
        shares = [
            list(range(start, min(start + TS_PROGRESS_CHUNKS, len(chunks))))
            for start in range(0, len(chunks), TS_PROGRESS_CHUNKS)
        ]
    jobs = [(list(pairs), [chunks[k] for k in share], matches) for share in shares]
    parts: list[FloatArray] = []

    def finished(part: FloatArray, share: list[int]) -> None:
        parts.append(part)
        if on_chunks is not None:
            on_chunks(share[-1] + 1, len(chunks))  # the shares are runs of chunks, in order

    if groups > 1:
        from gecscore.processes import worker_context

        with worker_context().Pool(len(jobs)) as pool:
            for part, share in zip(pool.imap(_trueskill_chunks, jobs), shares, strict=True):
                finished(part, share)
    else:
        for job, share in zip(jobs, shares, strict=True):
            finished(_trueskill_chunks(job), share)
    out: FloatArray = np.concatenate(parts, axis=0)
    return out


def rank_trueskill(
    pairs: Sequence[Comparison],
    *,
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    on_chunks: ChunkProgress | None = None,
) -> Ranking:
    """TrueSkill ranking: mean mu over ``runs`` seeded runs, with rank ranges and clusters."""
    systems = _systems_of(pairs)
    mu = trueskill_mu(pairs, runs=runs, seed=seed, workers=workers, on_chunks=on_chunks)
    mean = mu.mean(axis=0)
    scores = {s: float(mean[i]) for i, s in enumerate(systems)}
    return _ranking("trueskill", systems, scores, mu, seed)
