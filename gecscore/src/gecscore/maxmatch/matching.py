"""Weight the lattice for one annotator, find m2scorer's path, count matched gold edits.

Semantics of m2scorer 3.2 (``set_weights``, ``best_edit_seq_bf``, ``matchSeq``):

* Edges are grouped by the span of their edit. An edge whose edit equals a gold edit of the
  annotator (same span, same original tokens, correction among the gold alternatives) gets the
  weight ``-len(E)``; any other non-noop edge gets ``+0.001`` per occurrence in ``E``.
* Insertion groups (start == end) are walked from both ends alternately, each gold edit
  consumed once from the side that matched it; after a match from the left, the following
  edges that do not start where the matched edge ends get +0.001 (from the right: that do not
  end where it starts). m2scorer's comparison of those edits to ``'noop'`` is always true.
* The path: Bellman-Ford over the edge list in its order, with strict improvement, so that
  among equally short paths the one m2scorer keeps is kept. Passes stop as soon as one pass
  changes nothing (every later pass would change nothing either), which is exact and makes it
  linear in practice.
* Matching: the path's edits left to right, each against the gold edits in file order starting
  after the last matched one, without stopping at the first match (duplicates count twice).
"""

from __future__ import annotations

from dataclasses import dataclass

from gecscore.maxmatch.lattice import Lattice

__all__ = [
    "EPSILON",
    "GoldEdit",
    "ProposedEdit",
    "WeightedLattice",
    "annotator_weights",
    "best_edit_sequence",
    "count_matches",
    "matched_edits",
    "prepare",
]

EPSILON = 0.001

# A gold edit: (start, end, original tokens joined by spaces, correction alternatives).
GoldEdit = tuple[int, int, str, tuple[str, ...]]
# A proposed edit as m2scorer reports it: (start, end, original, correction).
ProposedEdit = tuple[int, int, str, str]


@dataclass
class WeightedLattice:
    """A lattice with its annotator-independent part of the weights precomputed."""

    lattice: Lattice
    groups: dict[tuple[int, int], list[int]]  # edit span -> sorted entries (arc indices)
    base_weights: list[float]  # weights when no gold edit matches anything


def _entry_sort_key(lattice: Lattice, arc: int) -> tuple[int, int]:
    return (lattice.src[arc], lattice.dst[arc])


def prepare(lattice: Lattice) -> WeightedLattice:
    groups: dict[tuple[int, int], list[int]] = {}
    for arc in lattice.entries:
        e = lattice.edit[arc]
        groups.setdefault((e[1], e[2]), []).append(arc)
    weights: list[float] = [float(d) for d in lattice.dist]
    for span, arcs in groups.items():
        arcs.sort(key=lambda arc: _entry_sort_key(lattice, arc))
        for arc in arcs:
            if lattice.edit[arc][0] != "noop":
                weights[arc] += EPSILON
        groups[span] = arcs
    return WeightedLattice(lattice, groups, weights)


def _matches(edit: tuple[str, int, int, str, str, int], gold: GoldEdit) -> bool:
    return edit[3] == gold[2] and edit[4] in gold[3]


def annotator_weights(weighted: WeightedLattice, gold_edits: list[GoldEdit]) -> list[float]:
    lattice = weighted.lattice
    gold_by_span: dict[tuple[int, int], list[GoldEdit]] = {}
    for gold in gold_edits:
        gold_by_span.setdefault((gold[0], gold[1]), []).append(gold)
    weights = list(weighted.base_weights)
    gold_weight = -len(lattice.entries)
    edit = lattice.edit
    for span, golds in gold_by_span.items():
        arcs = weighted.groups.get(span)
        if not arcs:
            continue
        for arc in arcs:
            weights[arc] = lattice.dist[arc]
        if span[0] != span[1]:
            for arc in arcs:
                if any(_matches(edit[arc], gold) for gold in golds):
                    weights[arc] = gold_weight
                elif edit[arc][0] != "noop":
                    weights[arc] += EPSILON
            continue
        # Insertions: m2scorer's two-pointer walk, step for step.
        left, right = 0, len(arcs) - 1
        current = left
        gold_left, gold_right = 0, len(golds) - 1
        while left <= right:
            arc = arcs[current]
            from_left = current == left
            order = (
                range(gold_left, gold_right + 1)
                if from_left
                else range(gold_right, gold_left - 1, -1)
            )
            matched = False
            for g in order:
                if _matches(edit[arc], golds[g]):
                    matched = True
                    weights[arc] = gold_weight
                    if from_left:
                        gold_left = g + 1
                    else:
                        gold_right = g - 1
                    break
            if not matched and edit[arc][0] != "noop":
                weights[arc] += EPSILON
            if matched:
                if from_left:
                    left += 1
                    while left < len(arcs) and lattice.src[arcs[left]] != lattice.dst[arc]:
                        weights[arcs[left]] += EPSILON
                        left += 1
                    current = left
                else:
                    right -= 1
                    while right >= 0 and lattice.dst[arcs[right]] != lattice.src[arc]:
                        weights[arcs[right]] += EPSILON
                        right -= 1
                    current = right
            elif from_left:
                left += 1
                current = right
            else:
                right -= 1
                current = left
    return weights


def best_edit_sequence(lattice: Lattice, weights: list[float]) -> list[ProposedEdit]:
    """The path m2scorer's Bellman-Ford keeps, as non-noop edits from LAST to first."""
    n = lattice.n_vertices
    inf = float("inf")
    distance: list[float] = [inf] * n
    distance[0] = 0.0
    via = [-1] * n
    src, dst = lattice.src, lattice.dst
    scan = [(src[arc], dst[arc], weights[arc], arc) for arc in lattice.entries]
    for _ in range(n - 1):
        changed = False
        for u, v, w, arc in scan:
            candidate = distance[u] + w
            if candidate < distance[v]:
                distance[v] = candidate
                via[v] = arc
                changed = True
        if not changed:
            break
    sequence: list[ProposedEdit] = []
    v = n - 1
    while via[v] >= 0:
        arc = via[v]
        e = lattice.edit[arc]
        if e[0] != "noop":
            sequence.append((e[1], e[2], e[3], e[4]))
        v = src[arc]
    return sequence


def count_matches(sequence: list[ProposedEdit], gold_edits: list[GoldEdit]) -> int:
    """m2scorer's ``matchSeq``: the path's edits left to right, each compared with every gold
    edit after the last one matched so far. There is no ``break``: an edit equal to two
    (duplicate) gold edits counts twice, so ``correct`` can exceed ``proposed``."""
    matched = 0
    next_gold = 0
    for e in reversed(sequence):
        start = next_gold
        for g in range(start, len(gold_edits)):
            gold = gold_edits[g]
            if e[0] == gold[0] and e[1] == gold[1] and e[2] == gold[2] and e[3] in gold[3]:
                matched += 1
                next_gold = g + 1
    return matched


def matched_edits(sequence: list[ProposedEdit], gold_edits: list[GoldEdit]) -> list[ProposedEdit]:
    """The path's edits that ``count_matches`` counts, once per count, left to right (PT-M2
    weighs each of them, so it needs the edits themselves, duplicates included)."""
    matched: list[ProposedEdit] = []
    next_gold = 0
    for e in reversed(sequence):
        start = next_gold
        for g in range(start, len(gold_edits)):
            gold = gold_edits[g]
            if e[0] == gold[0] and e[1] == gold[1] and e[2] == gold[2] and e[3] in gold[3]:
                matched.append(e)
                next_gold = g + 1
    return matched
