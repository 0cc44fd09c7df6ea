"""Human rankings of systems from pairwise judgments: Expected Wins, TrueSkill, rank ranges,
clusters, and Cohen's kappa agreement -- computed as Grundkiewicz et al.'s (2015)
``grammatical/evaluation`` scripts compute them (``wmt-trueskill/EW.py``, ``TS.py``,
``eval/cluster.py -by-rank -i 0.95``, ``agreement.pl``).

* Expected Wins (Bojar et al. 2013): for system i, the mean over the other systems j of
  wins(i, j) / (wins(i, j) + wins(j, i)); ties are ignored; a pair never decided adds 0.
* TrueSkill (Sakaguchi et al. 2014, as ``TS.py -n 2 -d 0``): mu = 0, sigma = 0.5, tau = 0,
  draw probability 0.25, beta = 0.5 * (number of pairwise judgments + 1) / 40. One run plays
  ``number of judgments + 1`` matches; each match takes the system with the largest sigma
  (ties: the alphabetically last), an opponent drawn with weight exp(-|mu_a - mu_b|), and one
  of that pair's judgments drawn uniformly, and applies the ``trueskill`` package's two-player
  update. The published scores are the mean mu over many seeded runs (1,000 here). The runs are
  played side by side in numpy; ``gecscore/tests/meta`` checks that the update equals the
  package's ``rate`` on the same matches.
* Rank ranges: for each run, the systems ranked by score; a system's range is the min and max
  rank after dropping ceil(n * 0.025) runs at each end; a new cluster starts after a system
  whose worst rank is better than the best rank of every system below it (``cluster.py``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gecscore.meta.judgments import ADMIN_USER, Comparison, RankingItem

FloatArray = npt.NDArray[np.float64]

TS_SIGMA = 0.5
TS_DRAW_PROBABILITY = 0.25
CONFIDENCE = 0.95


@dataclass(frozen=True)
class SystemRank:
    """A system's score, its rank range (1 = best) and its cluster (1 = best group)."""

    system: str
    score: float
    rank_range: tuple[int, int] | None = None
    cluster: int | None = None


@dataclass(frozen=True)
class Ranking:
    """Systems best first under one method (``ew`` or ``trueskill``)."""

    method: str
    systems: tuple[SystemRank, ...]
    runs: int
    seed: int | None

    def scores(self) -> dict[str, float]:
        return {s.system: s.score for s in self.systems}


def _systems_of(pairs: Sequence[Comparison]) -> list[str]:
    return sorted({p.system_a for p in pairs} | {p.system_b for p in pairs})


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


def expected_wins(pairs: Sequence[Comparison]) -> dict[str, float]:
    """Deterministic Expected Wins of every system in ``pairs`` (ties ignored)."""
    systems = _systems_of(pairs)
    index = {s: i for i, s in enumerate(systems)}
    ew = _expected_wins_of(_win_matrix(pairs, index), np.ones(len(systems), dtype=bool))
    return {s: float(ew[i]) for i, s in enumerate(systems)}


def _rank_runs(scores: FloatArray, systems: Sequence[str]) -> npt.NDArray[np.int64]:
    """Rank (1 = best) of each system in each run: by score, then (as ``cluster.py`` sorts
    ``(mu, sigma, name)`` in reverse) the alphabetically later name first."""
    order_by_name = np.argsort(np.argsort(np.array(systems)))  # position of each name
    runs, n = scores.shape
    # lexsort sorts by the last key first: score descending, then name descending.
    ranks = np.empty((runs, n), dtype=np.int64)
    for r in range(runs):
        order = np.lexsort((-order_by_name, -scores[r]))
        ranks[r, order] = np.arange(1, n + 1)
    return ranks


def rank_ranges(
    run_scores: FloatArray, systems: Sequence[str], *, confidence: float = CONFIDENCE
) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Rank ranges and clusters from per-run scores (runs x systems), as ``cluster.py -by-rank``."""
    ranks = _rank_runs(run_scores, systems)
    runs = ranks.shape[0]
    alpha = int(math.ceil((runs - runs * confidence) / 2.0))
    mean = run_scores.mean(axis=0)
    ordered = sorted(range(len(systems)), key=lambda i: (mean[i], systems[i]), reverse=True)
    ranges: dict[str, tuple[int, int]] = {}
    for i in ordered:
        column = np.sort(ranks[:, i])
        clipped = column[alpha : runs - alpha] if alpha and runs > 2 * alpha else column
        ranges[systems[i]] = (int(clipped[0]), int(clipped[-1]))
    clusters: dict[str, int] = {}
    cluster = 1
    for position, i in enumerate(ordered):
        clusters[systems[i]] = cluster
        worst = ranges[systems[i]][1]
        below = [ranges[systems[j]][0] for j in ordered[position + 1 :]]
        if below and all(worst < best for best in below):
            cluster += 1
    return ranges, clusters


def _ranking(
    method: str,
    systems: Sequence[str],
    scores: dict[str, float],
    run_scores: FloatArray | None,
    seed: int | None,
) -> Ranking:
    ranges: dict[str, tuple[int, int]] = {}
    clusters: dict[str, int] = {}
    if run_scores is not None and run_scores.shape[0] > 1:
        ranges, clusters = rank_ranges(run_scores, systems)
    ordered = sorted(systems, key=lambda s: (scores[s], s), reverse=True)
    return Ranking(
        method=method,
        systems=tuple(SystemRank(s, scores[s], ranges.get(s), clusters.get(s)) for s in ordered),
        runs=0 if run_scores is None else int(run_scores.shape[0]),
        seed=seed,
    )


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


# --- TrueSkill ----------------------------------------------------------------------------------

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
        raise ValueError("TrueSkill needs judgments of at least two systems")
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


# --- agreement ----------------------------------------------------------------------------------

MIN_OVERLAP = 50  # agreement.pl leaves out judge pairs with fewer common comparisons


@dataclass(frozen=True)
class Agreement:
    """Cohen's kappa on pairwise decisions (<, =, >), weighted by the number of comparisons
    of each judge pair (inter) or of each judge with themself (intra)."""

    inter_kappa: float
    intra_kappa: float
    per_pair: dict[tuple[str, str], tuple[float, int]]


def _entry_comparisons(item: RankingItem) -> list[tuple[str, str, str]]:
    """Pairs of shown entries (collapsed entries NOT split, as ``agreement.pl`` does)."""
    by_rank: dict[int, list[str]] = {}
    for entry in item.entries:
        by_rank.setdefault(entry.rank, []).append(" ".join(entry.systems))
    groups = [sorted(by_rank[r]) for r in sorted(by_rank)]
    out: list[tuple[str, str, str]] = []
    for i, better in enumerate(groups):
        for x, first in enumerate(better):
            for second in better[x + 1 :]:
                out.append((first, second, "="))
        for worse in groups[i + 1 :]:
            for a in better:
                for b in worse:
                    out.append((a, b, "<") if a < b else (b, a, ">"))
    return out


def _kappa(
    first: dict[tuple[str, str, str], list[str]],
    second: dict[tuple[str, str, str], list[str]],
    same: bool,
) -> tuple[float, int]:
    agree = total = seen = 0
    tally: dict[str, int] = defaultdict(int)  # decisions per label ("<", "=", ">" or verdicts)
    for key, mine in first.items():
        theirs = second.get(key)
        if theirs is None:
            continue
        if same:
            if len(mine) == 1:
                continue
            for x in range(len(mine)):
                for y in range(x + 1, len(mine)):
                    agree += mine[x] == mine[y]
                    total += 1
            both: Iterable[str] = mine
            seen += len(mine)
        else:
            for a in mine:
                for b in theirs:
                    agree += a == b
                    total += 1
            both = [*mine, *theirs]
            seen += len(mine) + len(theirs)
        for relation in both:
            tally[relation] += 1
    if not total:
        return 0.0, 0
    p_agree = agree / total
    p_chance = sum((count / seen) ** 2 for count in tally.values())
    if p_chance >= 1.0:
        # Every decision of the pair is the same relation: kappa is undefined (0/0); the pair
        # is left out like a pair with no common decision (small platform campaigns hit this).
        return 0.0, 0
    return (p_agree - p_chance) / (1 - p_chance), total


def agreement(items: Sequence[RankingItem], *, min_overlap: int = MIN_OVERLAP) -> Agreement:
    """Inter- and intra-annotator kappa as ``agreement.pl``: a comparison is (sentence, entry,
    entry); each judge's decisions on it are pooled over the items they judged; judge pairs
    (and judges with themselves) with fewer than ``min_overlap`` common decisions are left out."""
    by_judge: dict[str, dict[tuple[str, str, str], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for item in items:
        if item.user == ADMIN_USER:
            continue
        decisions = by_judge[item.user]
        for a, b, relation in _entry_comparisons(item):
            decisions[(item.src_id, a, b)].append(relation)
    return pooled_kappa(by_judge, min_overlap=min_overlap)


def pooled_kappa(
    by_judge: Mapping[str, dict[tuple[str, str, str], list[str]]], *, min_overlap: int
) -> Agreement:
    """Cohen's kappa of every judge pair (and of each judge with themself) over the decisions
    they share, pooled weighted by the number of shared decisions; a pair with fewer than
    ``min_overlap`` is left out. A decision is keyed by what was decided on and holds each
    label the judge gave it (several when they saw it more than once)."""
    inter = inter_weight = intra = intra_weight = 0.0
    per_pair: dict[tuple[str, str], tuple[float, int]] = {}
    judges = sorted(by_judge)
    for x, first in enumerate(judges):
        for second in judges[x:]:
            kappa, weight = _kappa(by_judge[first], by_judge[second], first == second)
            per_pair[(first, second)] = (kappa, weight)
            if weight < min_overlap:
                continue
            if first == second:
                intra += kappa * weight
                intra_weight += weight
            else:
                inter += kappa * weight
                inter_weight += weight
    return Agreement(
        inter_kappa=inter / inter_weight if inter_weight else math.nan,
        intra_kappa=intra / intra_weight if intra_weight else math.nan,
        per_pair=per_pair,
    )
