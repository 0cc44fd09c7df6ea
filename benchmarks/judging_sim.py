"""Benchmark: how many human judgments dynamic assignment saves, and how well attention checks
find careless judges, simulated on real judgments (no people needed).

    .venv/bin/python benchmarks/judging_sim.py [--shared ../shared] [--seeds 20]
        [--judges 10] [--careless 0.2] [--budget 20000] [--every 25] [--json OUT.json]

Data: the pooled pairwise outcomes of GJG15 (CoNLL-2014, ``data/conll14/human/judgments.xml``)
and of SEEDA-S (``data/seeda/data/judgments_sent.xml``), expanded into pairs as the product's
human rankings do. For every pair of systems judged together, the pool is its list of
outcomes (a better, b better, tie).

Judging. ``--judges`` judges take the judgments in turn; ``--careless`` of them (20%) answer at
random (a, b or tie, each a third). A careful judge's answer on a pair is one outcome drawn with
replacement from that pair's real pool. Only pairs with a pool are ever asked. Both rules meet
the same judges (common random numbers): per seed the same careless judges, the same careless
answer at each step, and the k-th judgment of a pair reads the k-th draw of that pair's own
stream, whichever rule asked for it.

Assignment rules. ``uniform``: the next pair is drawn uniformly from the pairs. ``dynamic``: the
product's rule (``gecscore.meta.assignment``: the uncertainty of the Expected Wins order, the
top 3 weighted). Both rank the systems at each checkpoint with the same estimate, Expected Wins
from the judgments so far.

Target. The full-data ranking is Expected Wins over every real judgment. A rule "reaches" a
criterion at the first checkpoint (every ``--every`` judgments) where it holds. One run of each
rule is read for five criteria: its top 3 are the full ranking's top 3 in order; Spearman's rho
with the full ranking is >= 0.9; and both together. Two readings of "in order": ``exact`` (the
very systems), and ``resolved``: place i may hold any system whose 95% rank range over 1,000
bootstrap resamples of the full data holds place i (GJG15's second and third systems are 0.005
apart in Expected Wins, which the full data itself does not separate; no rule can then reach
"exact" except by chance). Each criterion is read twice: the first checkpoint where it holds
(a lucky fluctuation counts), and "settled", the checkpoint from which it holds at every
later one up to the budget (when a campaign could have stopped). The target (dynamic at most 0.60 of uniform's judgments) is on the
top 3; the rho and combined rows are reported beside it. Reported: the median over ``--seeds``
seeds of the judgments needed (a seed that never reaches it within ``--budget`` counts as the
budget, and is reported), and dynamic's share of uniform's.

Attention checks (any campaign mode builds them from the release). Two kinds, alternating:
(1) the golden reference against the unchanged source (a real error): passed when the golden
is ranked at least as high; (2) the golden against a copy with a planted error: passed when
the copy is ranked lower. A careful judge passes (1) as often as SEEDA's judges ranked the human
reference REF-M at least as high as INPUT (its real pool), and (2) with ``--planted-pass``
(0.95: no public data records judges on planted errors, so this is an assumption). A careless
judge answers at random: it passes (1) two times in three and (2) one time in three. A judge
is flagged when their pass rate is below ``--threshold`` (0.75). Reported: precision and
recall of the flags over all seeds' judges, for 10, 20 and 40 checks per judge.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "gecscore" / "src"))

from gecscore.meta.assignment import PairCounts, choose_pairs, expected_wins_estimate  # noqa: E402
from gecscore.meta.judgments import pairwise, read_judgments_xml  # noqa: E402
from gecscore.meta.rankings import (  # noqa: E402
    expected_wins,
    rank_expected_wins,
    rank_trueskill,
)

TOP = 3
RHO = 0.9
# What "reaching the full-data ranking" can mean; the target is on the top 3 (both readings).
CRITERIA = ("top3 exact", "top3 resolved", "rho", "top3 exact + rho", "top3 resolved + rho")
TARGETED = ("top3 exact", "top3 resolved", "top3 exact, settled", "top3 resolved, settled")


def pools(path: Path) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(systems, a, b, outcome probabilities pairs x 3 [a better, b better, tie]) of a file's
    pooled pairwise outcomes, and the full Expected Wins scores."""
    comparisons = pairwise(read_judgments_xml(path).items)
    systems = sorted({c.system_a for c in comparisons} | {c.system_b for c in comparisons})
    index = {s: i for i, s in enumerate(systems)}
    counts: dict[tuple[int, int], list[int]] = {}
    for c in comparisons:
        cell = counts.setdefault((index[c.system_a], index[c.system_b]), [0, 0, 0])
        cell["<>=".index(c.relation)] += 1
    pairs = sorted(counts)
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    table = np.array([counts[p] for p in pairs], dtype=float)
    probabilities = table / table.sum(axis=1, keepdims=True)
    return systems, a, b, probabilities


def rank_ranges(path: Path, systems: list[str]) -> np.ndarray:
    """Each system's 95% rank range (1 = best) over 1,000 bootstrap resamples of the full
    data's Expected Wins: places the full data itself cannot tell apart."""
    ranking = rank_expected_wins(pairwise(read_judgments_xml(path).items), bootstrap=1000)
    by_name = {r.system: r.rank_range for r in ranking.systems}
    return np.array([by_name[s] for s in systems])


def full_ranking(path: Path, systems: list[str], method: str) -> np.ndarray:
    comparisons = pairwise(read_judgments_xml(path).items)
    if method == "ew":
        scores = expected_wins(comparisons)
    else:
        scores = rank_trueskill(comparisons, runs=200, seed=0).scores()
    return np.array([scores[s] for s in systems])


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Rank of each row (0 = best) per column."""
    order = np.argsort(-scores, axis=0, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[0])[:, None], axis=0)
    return ranks


class _AnswerStreams:
    """Per seed and pair, a fixed sequence of uniform draws read in order (blocks of
    ``BLOCK`` made from a key of their own, so a stream does not depend on which rule asked)."""

    BLOCK = 512

    def __init__(self, seeds: int, pairs: int) -> None:
        self.used = np.zeros((seeds, pairs), dtype=int)
        self.blocks: list[np.ndarray] = []

    def next(self, runs: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        k = self.used[runs, chosen]
        self.used[runs, chosen] += 1
        while int(k.max()) // self.BLOCK >= len(self.blocks):
            key = np.random.default_rng([2026, len(self.blocks)])
            self.blocks.append(key.random((*self.used.shape, self.BLOCK), dtype=np.float32))
        out = np.empty(len(runs))
        for block in np.unique(k // self.BLOCK):
            sel = k // self.BLOCK == block
            out[sel] = self.blocks[block][runs[sel], chosen[sel], k[sel] % self.BLOCK]
        return out


def simulate(
    rule: str,
    a: np.ndarray,
    b: np.ndarray,
    probabilities: np.ndarray,
    truth: np.ndarray,
    *,
    seeds: int,
    judges: int,
    careless_share: float,
    budget: int,
    every: int,
    ranges: np.ndarray,
) -> dict[str, np.ndarray]:
    """Judgments needed per seed for each criterion of ``CRITERIA`` (budget + 1 where never
    reached), all from one run of the rule."""
    n = len(truth)
    # Common random numbers: both rules meet the same judges (the same careless ones per seed),
    # the same careless answers at each step, and the same careful answers per pair: the k-th
    # judgment of pair p in seed r reads the k-th draw of that pair's own stream, whichever rule
    # asked for it. Only the rules' own choices (and uniform's draws of pairs) differ.
    setup = np.random.default_rng(12345)
    careless_rng = np.random.default_rng(777)
    choice_rng = np.random.default_rng(54321)
    streams = _AnswerStreams(seeds, len(a))
    counts = PairCounts(n, seeds)
    careless_judges = max(1, round(judges * careless_share)) if careless_share > 0 else 0
    careless = np.zeros((judges, seeds), dtype=bool)
    for run in range(seeds):
        careless[setup.choice(judges, careless_judges, replace=False), run] = True
    true_rank = _ranks(truth[:, None])[:, 0]
    top_true = np.argsort(true_rank)[:TOP]
    since = {
        name: np.full(seeds, budget + 1)
        for criterion in CRITERIA
        for name in (criterion, f"{criterion}, settled")
    }
    cumulative = np.cumsum(probabilities, axis=1)
    runs = np.arange(seeds)
    for step in range(1, budget + 1):
        if rule == "dynamic":
            chosen = choose_pairs(counts, a, b, choice_rng, top_k=TOP)
        else:
            chosen = choice_rng.integers(0, len(a), seeds)
        judge = (step - 1) % judges
        draw = streams.next(runs, chosen)
        outcome = (draw[:, None] > cumulative[chosen]).sum(axis=1)  # 0 a, 1 b, 2 tie
        random_answer = careless_rng.integers(0, 3, seeds)
        outcome = np.where(careless[judge], random_answer, outcome)
        first, second = a[chosen], b[chosen]
        winner = np.where(outcome == 1, second, first)
        loser = np.where(outcome == 1, first, second)
        counts.add(winner, loser, outcome != 2)
        if step % every:
            continue
        ranks = _ranks(expected_wins_estimate(counts)[0].T)
        order = np.argsort(ranks, axis=0)
        exact = (order[:TOP] == top_true[:, None]).all(axis=0)
        # resolved: the system at place i may be any whose full-data rank range holds place i
        places = np.arange(1, TOP + 1)[:, None]
        low, high = ranges[order[:TOP], 0], ranges[order[:TOP], 1]
        resolved = ((low <= places) & (places <= high)).all(axis=0)
        d = (ranks - true_rank[:, None]).astype(float)
        rho_ok = 1 - 6 * (d * d).sum(axis=0) / (n * (n * n - 1)) >= RHO
        holds = {
            "top3 exact": exact,
            "top3 resolved": resolved,
            "rho": rho_ok,
            "top3 exact + rho": exact & rho_ok,
            "top3 resolved + rho": resolved & rho_ok,
        }
        for criterion, ok in holds.items():
            reached = since[criterion]
            reached[ok & (reached > budget)] = step
            # settled: it holds here and at every later checkpoint up to the budget
            calm = since[f"{criterion}, settled"]
            calm[~ok] = budget + 1
            calm[ok & (calm > budget)] = step
    return since


def attention(
    ref_pass: float,
    *,
    seeds: int,
    judges: int,
    careless_share: float,
    checks: int,
    planted_pass: float,
    threshold: float,
) -> dict[str, float]:
    rng = np.random.default_rng(checks)
    true_positive = false_positive = false_negative = 0
    careless_judges = max(1, round(judges * careless_share))
    for _ in range(seeds):
        careless = np.zeros(judges, dtype=bool)
        careless[rng.choice(judges, careless_judges, replace=False)] = True
        kinds = np.arange(checks) % 2  # 0: golden vs source, 1: planted error
        careful_p = np.where(kinds == 0, ref_pass, planted_pass)
        careless_p = np.where(kinds == 0, 2 / 3, 1 / 3)
        p = np.where(careless[:, None], careless_p[None, :], careful_p[None, :])
        passed = rng.random((judges, checks)) < p
        flagged = passed.mean(axis=1) < threshold
        true_positive += int((flagged & careless).sum())
        false_positive += int((flagged & ~careless).sum())
        false_negative += int((~flagged & careless).sum())
    careful_total = seeds * (judges - careless_judges)
    return {
        "checks_per_judge": checks,
        "precision": true_positive / max(1, true_positive + false_positive),
        "recall": true_positive / max(1, true_positive + false_negative),
        "false_flag_rate": false_positive / careful_total,
    }


def reference_pass_rate(path: Path) -> float:
    """How often SEEDA's judges ranked the human reference REF-M at least as high as INPUT."""
    comparisons = [
        c
        for c in pairwise(read_judgments_xml(path).items)
        if {c.system_a, c.system_b} == {"INPUT", "REF-M"}
    ]
    ok = 0
    for c in comparisons:
        ref_first = c.system_a == "REF-M"
        ok += c.relation == "=" or (c.relation == "<") == ref_first
    return ok / len(comparisons)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--judges", type=int, default=10)
    parser.add_argument("--careless", type=float, default=0.2)
    parser.add_argument("--budget", type=int, default=20000)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--planted-pass", type=float, default=0.95)
    parser.add_argument("--threshold", type=float, default=0.75)
    parser.add_argument("--truth", choices=("trueskill", "ew"), default="ew")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = args.shared / "data"
    cases = {
        "gjg15": data / "conll14" / "human" / "judgments.xml",
        "seeda-sent": data / "seeda" / "data" / "judgments_sent.xml",
    }
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.seeds} seeds, {args.judges} judges, "
        f"{args.careless:.0%} careless"
    )
    report: dict[str, object] = {"load": os.getloadavg()[0], "cases": {}}
    for name, path in cases.items():
        systems, a, b, probabilities = pools(path)
        truth = full_ranking(path, systems, args.truth)
        top = [systems[i] for i in np.argsort(-truth)[:TOP]]
        print(f"\n{name}: {len(systems)} systems, {len(a)} judged pairs; full top 3: {top}")
        ranges = rank_ranges(path, systems)
        results: dict[str, object] = {"top3": top}
        needed: dict[str, dict[str, np.ndarray]] = {}
        for rule in ("uniform", "dynamic"):
            started = time.perf_counter()
            needed[rule] = simulate(
                rule,
                a,
                b,
                probabilities,
                truth,
                seeds=args.seeds,
                judges=args.judges,
                careless_share=args.careless,
                budget=args.budget,
                every=args.every,
                ranges=ranges,
            )
            print(f"  {rule} simulated in {time.perf_counter() - started:.1f} s")
        for criterion in needed["uniform"]:
            row: dict[str, dict[str, float]] = {}
            for rule in ("uniform", "dynamic"):
                reached = needed[rule][criterion]
                missed = int((reached > args.budget).sum())
                median = float(np.median(np.minimum(reached, args.budget)))
                row[rule] = {"median": median, "missed": missed}
            share = row["dynamic"]["median"] / row["uniform"]["median"]
            target = " (target <= 0.60)" if criterion in TARGETED else ""
            print(
                f"  {criterion:29s} uniform {row['uniform']['median']:7.0f} "
                f"({row['uniform']['missed']:2d} never)  dynamic {row['dynamic']['median']:7.0f} "
                f"({row['dynamic']['missed']:2d} never)  dynamic / uniform {share:.2f}{target}"
            )
            results[criterion] = {**row, "share": share}
        report["cases"][name] = results  # type: ignore[index]
    ref_pass = reference_pass_rate(cases["seeda-sent"])
    print(
        f"\nattention checks: careful judges pass golden-vs-source at {ref_pass:.3f} "
        f"(SEEDA REF-M vs INPUT), planted errors at {args.planted_pass}; flag below "
        f"{args.threshold}"
    )
    flags = []
    for checks in (10, 20, 40):
        flag_row = attention(
            ref_pass,
            seeds=args.seeds * 10,
            judges=args.judges,
            careless_share=args.careless,
            checks=checks,
            planted_pass=args.planted_pass,
            threshold=args.threshold,
        )
        flags.append(flag_row)
        print(
            f"  {checks:3d} checks/judge: precision {flag_row['precision']:.3f}  recall "
            f"{flag_row['recall']:.3f}  false flags {flag_row['false_flag_rate']:.3f}  "
            "(targets: recall >= 0.90, false flags <= 0.05)"
        )
    report["attention"] = {"reference_pass": ref_pass, "rows": flags}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
