"""Assignment variants measured against ``benchmarks/judging_sim.py`` (docs/benchmarks.md,
"Judging: dynamic assignment and attention checks"). Exploratory: none of them is the product's
rule; they run through the same simulation (same judges, answers and checkpoints).

    .venv/bin/python benchmarks/judging_variants.py [--shared ../shared] [--seeds 20]
        [--budget 20000] VARIANT...

Variants (Python expressions over the functions below), for example ``uniform``, ``kept()``,
``kept(top_weight=2, tolerance=0.0)``, ``mixed(kept(), 0.5)``, ``least``; with ``--estimate bt``
every rule, uniform included, ranks with a Bradley-Terry estimate instead of Expected Wins, and
``mixed(bradley_terry_rule(top_weight=2), 0.3)`` is the Bradley-Terry rule.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judging_sim as sim  # noqa: E402
from gecscore.meta import assignment  # noqa: E402
from gecscore.meta.rankings._trueskill_math import _cdf  # noqa: E402

Rule = Callable[..., np.ndarray]


def kept(
    top_weight: float = assignment.TOP_WEIGHT, tolerance: float = assignment.TOLERANCE
) -> Rule:
    """The product's rule with other constants."""

    def rule(counts, a, b, rng, *, top_k=3):  # type: ignore[no-untyped-def]
        assignment.TOP_WEIGHT, assignment.TOLERANCE = top_weight, tolerance
        return assignment.choose_pairs(counts, a, b, rng, top_k=top_k)

    return rule


def mixed(rule: Rule, uniform_share: float) -> Rule:
    """``rule``, but each judgment goes to a uniformly drawn pair with ``uniform_share``."""

    def mixed_rule(counts, a, b, rng, *, top_k=3):  # type: ignore[no-untyped-def]
        chosen = rule(counts, a, b, rng, top_k=top_k)
        runs = counts.wins.shape[0]
        explore = rng.random(runs) < uniform_share
        return np.where(explore, rng.integers(0, len(a), runs), chosen)

    return mixed_rule


def least(counts, a, b, rng, *, top_k=3):  # type: ignore[no-untyped-def]
    """The pair with the fewest decided judgments (a balanced design)."""
    decided = counts.wins + np.swapaxes(counts.wins, 1, 2)
    total = decided[:, a, b]
    return np.argmin(total + 1e-3 * rng.random(total.shape), axis=1)


def bradley_terry(wins, theta=None, iters=30, prior=1.0):  # type: ignore[no-untyped-def]
    """Bradley-Terry log-strengths (runs x systems) by Newton's method, a N(0, prior) prior,
    and the posterior precision matrix."""
    runs, s, _ = wins.shape
    n = wins + np.swapaxes(wins, 1, 2)
    theta = np.zeros((runs, s)) if theta is None else theta
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(theta[:, :, None] - theta[:, None, :])))
        gradient = (wins - n * p).sum(axis=2) - theta / prior
        weight = n * p * (1 - p)
        precision = -weight
        precision[:, np.arange(s), np.arange(s)] = weight.sum(axis=2)
        precision = precision + np.eye(s) / prior
        step = np.linalg.solve(precision, gradient[:, :, None])[:, :, 0]
        theta = theta + step
        if np.abs(step).max() < 1e-9:
            break
    return theta, precision


def bradley_terry_estimate(counts):  # type: ignore[no-untyped-def]
    return bradley_terry(counts.wins)[0], None


def bradley_terry_rule(top_weight: float = 4.0) -> Rule:
    """Value of a pair: the drop, from one more judgment of it, of every two systems'
    difference variance (Sherman-Morrison on the Bradley-Terry posterior), each taken relative
    to that variance and weighted by the two systems' misorder probability (x ``top_weight``
    when one of them is in the current top k). Warm-started: two Newton steps per judgment."""
    warm: dict[int, np.ndarray] = {}

    def rule(counts, a, b, rng, *, top_k=3):  # type: ignore[no-untyped-def]
        s = counts.wins.shape[1]
        theta, precision = bradley_terry(counts.wins, warm.get(id(counts)), iters=2)
        warm[id(counts)] = theta
        sigma = np.linalg.inv(precision)
        iu, iv = np.triu_indices(s, 1)
        diff_var = sigma[:, iu, iu] + sigma[:, iv, iv] - 2 * sigma[:, iu, iv]
        misorder = _cdf(-np.abs(theta[:, iu] - theta[:, iv]) / np.sqrt(diff_var))
        ahead = (theta[:, None, :] > theta[:, :, None]).sum(axis=2)
        top = ahead < top_k
        weight = np.where(top[:, iu] | top[:, iv], top_weight, 1.0)
        pairs = np.arange(len(a))
        sigma_e = sigma[:, :, a] - sigma[:, :, b]
        e_sigma_e = sigma_e[:, a, pairs] - sigma_e[:, b, pairs]
        p = 1 / (1 + np.exp(-(theta[:, a] - theta[:, b])))
        info = p * (1 - p)
        c_sigma_e = sigma_e[:, iu, :] - sigma_e[:, iv, :]
        drop = info[:, None, :] * c_sigma_e**2 / (1 + info * e_sigma_e)[:, None, :]
        value = np.einsum("rc,rcp->pr", weight * misorder / diff_var, drop)
        best = value.max(axis=0, keepdims=True)
        tied = value >= best - 1e-9 * np.abs(best)
        return np.argmax(np.where(tied, 1.0 + rng.random(value.shape), 0.0), axis=0)

    return rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=sim.REPO.parent / "shared")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=20000)
    parser.add_argument("--estimate", choices=("ew", "bt"), default="ew")
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    if args.estimate == "bt":
        sim.expected_wins_estimate = bradley_terry_estimate  # both rules rank with it
    data = args.shared / "data"
    cases = {
        "gjg15": data / "conll14" / "human" / "judgments.xml",
        "seeda-sent": data / "seeda" / "data" / "judgments_sent.xml",
    }
    prepared = {}
    for name, path in cases.items():
        systems, a, b, probabilities = sim.pools(path)
        truth = sim.full_ranking(path, systems, "ew")
        prepared[name] = (a, b, probabilities, truth, sim.rank_ranges(path, systems))
    for variant in args.variants:
        row: dict[str, float] = {}
        for name, (a, b, probabilities, truth, ranges) in prepared.items():
            if variant != "uniform":
                sim.choose_pairs = eval(variant)  # a variant named on the command line
            needed = sim.simulate(
                "uniform" if variant == "uniform" else "dynamic",
                a,
                b,
                probabilities,
                truth,
                seeds=args.seeds,
                judges=10,
                careless_share=0.2,
                budget=args.budget,
                every=25,
                ranges=ranges,
            )
            for criterion, reached in needed.items():
                row[f"{name}/{criterion}"] = float(np.median(np.minimum(reached, args.budget)))
                row[f"{name}/{criterion}/never"] = int((reached > args.budget).sum())
        print(variant, json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
