"""Dynamic assignment's rule (gecscore.meta.assignment): what it values, and that its Expected
Wins is the product's Expected Wins."""

from __future__ import annotations

import numpy as np

from gecscore.meta.assignment import (
    TOP_WEIGHT,
    PairCounts,
    choose_pairs,
    expected_wins_estimate,
    item_priorities,
    pair_priority,
)
from gecscore.meta.judgments import Comparison
from gecscore.meta.rankings import expected_wins


def _all_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(n, k=1)
    return a.astype(np.int64), b.astype(np.int64)


def test_a_cold_start_values_every_pair_the_same_and_spreads_the_choice() -> None:
    counts = PairCounts(5, runs=400)
    a, b = _all_pairs(5)
    value = pair_priority(counts, a, b, top_k=3)
    assert np.allclose(value, value[0, 0])
    chosen = choose_pairs(counts, a, b, np.random.default_rng(0))
    # 400 runs over 10 pairs: every pair is drawn, none dominates (uniform tie-breaking)
    frequency = np.bincount(chosen, minlength=len(a))
    assert frequency.min() > 15 and frequency.max() < 70


def test_a_settled_pair_is_worth_less_than_an_open_one() -> None:
    counts = PairCounts(4)
    # 0 beat 1 forty times and never lost; 2 and 3 split 3:3
    counts.wins[0, 0, 1] = 40
    counts.wins[0, 2, 3] = 3
    counts.wins[0, 3, 2] = 3
    value = pair_priority(counts, np.array([0, 2]), np.array([1, 3]), top_k=4)[:, 0]
    assert value[1] > value[0]


def test_gaps_that_decide_the_top_weigh_more() -> None:
    # six systems in a clear order, every pair judged alike except two open pairs: one at the
    # top (1 vs 2) and one at the bottom (4 vs 5), split the same way
    counts = PairCounts(6)
    for winner in range(6):
        for loser in range(winner + 1, 6):
            counts.wins[0, winner, loser] = 30
            counts.wins[0, loser, winner] = 10
    for x, y in ((1, 2), (4, 5)):
        counts.wins[0, x, y] = counts.wins[0, y, x] = 20
    top, bottom = pair_priority(counts, np.array([1, 4]), np.array([2, 5]), top_k=3)[:, 0]
    assert top > bottom
    assert top / bottom > TOP_WEIGHT / 2


def test_expected_wins_of_the_rule_is_the_products_expected_wins() -> None:
    rng = np.random.default_rng(7)
    systems = ["A", "B", "C", "D"]
    comparisons = []
    counts = PairCounts(len(systems))
    for k in range(300):
        x, y = sorted(rng.choice(4, 2, replace=False))
        relation = "<>="[int(rng.integers(0, 3))]
        comparisons.append(Comparison(str(k), "u", systems[x], systems[y], relation, 1, 2))
        if relation == "<":
            counts.wins[0, x, y] += 1
        elif relation == ">":
            counts.wins[0, y, x] += 1
    estimate, variance = expected_wins_estimate(counts)
    reference = expected_wins(comparisons)
    assert np.allclose(estimate[0], [reference[s] for s in systems], atol=1e-12)
    assert (variance > 0).all()


def test_an_item_is_worth_the_sum_of_its_pairs_and_merged_outputs_add_nothing() -> None:
    judged = [("A", "B", "<")] * 5 + [("B", "C", "=")] * 2 + [("A", "C", "<"), ("C", "A", "<")]
    items = [
        [["A"], ["B"], ["C"]],  # three outputs: pairs AB, AC, BC
        [["A", "B"], ["C"]],  # A and B wrote the same output: pairs AC, BC
        [["A", "B", "C"]],  # one output for all: nothing to compare
    ]
    values = item_priorities(judged, items, top_k=2)
    counts = PairCounts(3)
    counts.wins[0, 0, 1] = 5
    counts.wins[0, 0, 2] = 1
    counts.wins[0, 2, 0] = 1
    pair = pair_priority(counts, np.array([0, 0, 1]), np.array([1, 2, 2]), top_k=2)[:, 0]
    assert values[0] == sum(pair)
    assert values[1] == pair[1] + pair[2]
    assert values[2] == 0.0
