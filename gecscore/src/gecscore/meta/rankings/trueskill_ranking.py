"""TrueSkill (Sakaguchi et al. 2014, as ``TS.py -n 2 -d 0``), many seeded runs played side by side
in numpy with the ``trueskill`` package's two-player update."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gecscore.errors import InputError
from gecscore.meta.judgments import Comparison
from gecscore.meta.rankings.ranking import FloatArray, Ranking, _ranking, _systems_of

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

_ERFC_COEFFICIENTS = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
)


def _erfc(x: FloatArray) -> FloatArray:
    """The ``trueskill`` package's default erfc (a Chebyshev fit, fractional error < 1.2e-7):
    the same approximation, so the vectorised update gives the package's numbers."""
    z = np.abs(x)
    t = z / 2.0
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.full_like(t, _ERFC_COEFFICIENTS[0])
    for coefficient in _ERFC_COEFFICIENTS[1:]:
        poly *= t
        poly += coefficient
    poly *= t
    poly -= 1.26551223
    z *= z
    poly -= z
    np.exp(poly, out=poly)
    poly *= t
    out: FloatArray = np.where(x < 0, 2.0 - poly, poly)
    return out


def _cdf(x: FloatArray) -> FloatArray:
    return 0.5 * _erfc(x * -(1 / math.sqrt(2)))


def _pdf(x: FloatArray) -> FloatArray:
    out: FloatArray = np.exp(x * x * -0.5)
    out *= 1 / math.sqrt(2 * math.pi)
    return out


def _v_w(
    t: FloatArray, eps: FloatArray, draw: npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray]:
    """The package's v and w functions for team difference t and draw margin eps (both
    already divided by c): the win versions where not ``draw``, the draw versions where it is."""
    size = t.shape[0]
    abs_t = np.abs(t)
    x = t - eps  # win: v = pdf(x)/cdf(x) (or -x where cdf(x) == 0), w = v (v + x)
    a = eps - abs_t  # draw: v = (pdf(b) - pdf(a)) / (cdf(a) - cdf(b)), signed by t
    b = -eps - abs_t
    first = np.where(draw, a, x)
    points = np.concatenate((first, b))
    cdf = _cdf(points)
    pdf = _pdf(points)
    cdf_1, cdf_b = cdf[:size], cdf[size:]
    pdf_1, pdf_b = pdf[:size], pdf[size:]
    denom = np.where(draw, cdf_1 - cdf_b, cdf_1)
    ok = denom != 0
    safe = np.where(ok, denom, 1.0)
    v_win = np.where(ok, pdf_1 / safe, -x)
    v_abs = np.where(ok, (pdf_b - pdf_1) / safe, a)
    v = np.where(draw, np.where(t < 0, -v_abs, v_abs), v_win)
    w = np.where(draw, v_abs * v_abs + (a * pdf_1 - b * pdf_b) / safe, v_win * (v_win + x))
    return v, w


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
    column = np.arange(runs)
    at_w = winner * runs + column
    at_l = loser * runs + column
    mu_flat = mu.reshape(-1)
    var_flat = var.reshape(-1)
    mu_w, mu_l = mu_flat[at_w], mu_flat[at_l]
    var_w, var_l = var_flat[at_w], var_flat[at_l]
    c2 = var_w + var_l + 2 * beta * beta
    c = np.sqrt(c2)
    v, w = _v_w((mu_w - mu_l) / c, draw_margin / c, draw)
    mu_flat[at_w] = mu_w + var_w / c * v
    mu_flat[at_l] = mu_l - var_l / c * v
    var_flat[at_w] = var_w * (1 - var_w / c2 * w)
    var_flat[at_l] = var_l * (1 - var_l / c2 * w)


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
    systems = _systems_of(pairs)
    n = len(systems)
    if n < 2:
        raise InputError("TrueSkill needs judgments of at least two systems")
    index = {s: i for i, s in enumerate(systems)}
    beta, draw_margin, default_matches = trueskill_parameters(len(pairs))
    total_matches = default_matches if matches is None else matches
    offsets, counts, flat_outcomes = _pair_outcomes(pairs, index)
    judged = counts > 0
    # Largest sigma first, ties to the alphabetically last name: argmax returns the first
    # maximum, so columns are searched in reverse name order.
    all_judged = bool(judged.sum() == n * (n - 1))
    rng = np.random.default_rng(seed)
    # systems x runs: every per-system step is a contiguous row operation.
    mu = np.zeros((n, runs))
    var = np.full((n, runs), TS_SIGMA * TS_SIGMA)
    mu_flat = mu.reshape(-1)
    column = np.arange(runs)
    row_index = np.arange(n, dtype=np.int64)[:, None]
    weight = np.empty((n, runs))
    running = np.empty(runs)
    largest = np.empty(runs)
    trace_w: list[int] = []
    trace_l: list[int] = []
    trace_d: list[bool] = []
    block = 256
    uniforms = rng.random((0, 2, runs))
    for step in range(total_matches):
        if step % block == 0:
            uniforms = rng.random((min(block, total_matches - step), 2, runs))
        u_opponent, u_judgment = uniforms[step % block]
        # The largest sigma, ties to the alphabetically last name (TS.py sorts (sigma, name)).
        np.max(var, axis=0, out=largest)
        first = np.where(var == largest, row_index, -1).max(axis=0)
        at_first = first * runs + column
        np.subtract(mu, mu_flat[at_first], out=weight)
        np.abs(weight, out=weight)
        np.negative(weight, out=weight)
        np.exp(weight, out=weight)
        if all_judged:
            weight.reshape(-1)[at_first] = 0.0
        else:
            weight *= judged[:, first]
        second = _opponents(weight, u_opponent, running)
        low = np.minimum(first, second)
        high = np.maximum(first, second)
        pick = offsets[low, high] + (u_judgment * counts[low, high]).astype(np.int64)
        outcome = flat_outcomes[pick]
        won = outcome >= 0
        winner = np.where(won, low, high)
        loser = np.where(won, high, low)
        draw = outcome == 0
        if trace_run is not None:
            trace_w.append(int(winner[trace_run]))
            trace_l.append(int(loser[trace_run]))
            trace_d.append(bool(draw[trace_run]))
        trueskill_update(mu, var, winner, loser, draw, beta=beta, draw_margin=draw_margin)
    trace = None
    if trace_run is not None:
        trace = TrueSkillTrace(
            tuple(systems),
            np.array(trace_w, dtype=np.int64),
            np.array(trace_l, dtype=np.int64),
            np.array(trace_d, dtype=bool),
        )
    return mu.T.copy(), var.T.copy(), trace


def _opponents(weight: FloatArray, u: FloatArray, running: FloatArray) -> npt.NDArray[np.int64]:
    """Per run, the opponent: the first k whose cumulative weight (systems x runs) exceeds
    u * total (random_sample.choose); a row loop, because numpy's cumsum along axis 0 is
    several times slower. ``running`` is scratch space of one row."""
    n = weight.shape[0]
    threshold = u * np.add.reduce(weight, axis=0)
    np.copyto(running, weight[0])
    second: npt.NDArray[np.int64] = (running <= threshold).astype(np.int64)
    for k in range(1, n):
        running += weight[k]
        second += running <= threshold
    np.minimum(second, n - 1, out=second)
    return second


def _pair_outcomes(
    pairs: Sequence[Comparison], index: dict[str, int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The outcomes of each pair of systems (i < j): +1 i won, 0 draw, -1 j won, stored flat
    per pair; ``offsets[i, j]`` and ``counts[i, j]`` (symmetric) locate a pair's run."""
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
    flat: list[int] = []
    for (i, j), values in sorted(outcomes.items()):
        offsets[i, j] = offsets[j, i] = len(flat)
        counts[i, j] = counts[j, i] = len(values)
        flat.extend(values)
    return offsets, counts, np.array(flat, dtype=np.int64)


TS_CHUNK = 500  # runs per independent seeded chunk: the same numbers for any worker count


def _trueskill_chunk(job: tuple[list[Comparison], int, int, int | None]) -> FloatArray:
    pairs, runs, seed, matches = job
    mu, _, _ = trueskill_runs(pairs, runs=runs, seed=seed, matches=matches)
    return mu


def trueskill_mu(
    pairs: Sequence[Comparison],
    *,
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    matches: int | None = None,
) -> FloatArray:
    """Final mu of ``runs`` runs (runs x systems). The runs are played in chunks of
    :data:`TS_CHUNK`, chunk k seeded with the k-th child of ``SeedSequence(seed)``, so the
    result does not depend on ``workers`` (processes from the product's worker context)."""
    sizes = [min(TS_CHUNK, runs - start) for start in range(0, runs, TS_CHUNK)]
    seeds = [
        int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(len(sizes))
    ]
    jobs = [
        (list(pairs), size, chunk_seed, matches)
        for size, chunk_seed in zip(sizes, seeds, strict=True)
    ]
    if workers > 1 and len(jobs) > 1:
        from gecscore.processes import worker_context

        with worker_context().Pool(min(workers, len(jobs))) as pool:
            parts = pool.map(_trueskill_chunk, jobs)
    else:
        parts = [_trueskill_chunk(job) for job in jobs]
    out: FloatArray = np.concatenate(parts, axis=0)
    return out


def rank_trueskill(
    pairs: Sequence[Comparison], *, runs: int = 1000, seed: int = 0, workers: int = 1
) -> Ranking:
    """TrueSkill ranking: mean mu over ``runs`` seeded runs, with rank ranges and clusters."""
    systems = _systems_of(pairs)
    mu = trueskill_mu(pairs, runs=runs, seed=seed, workers=workers)
    mean = mu.mean(axis=0)
    scores = {s: float(mean[i]) for i, s in enumerate(systems)}
    return _ranking("trueskill", systems, scores, mu, seed)
