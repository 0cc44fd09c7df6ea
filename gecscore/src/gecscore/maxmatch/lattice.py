"""The MaxMatch edit lattice of one (source, hypothesis) pair, as m2scorer 3.2 builds it.

Semantics kept from m2scorer 3.2 (``scripts/levenshtein.py``), because the counts depend on them:

* Two token Levenshtein matrices (insertion and deletion cost 1; substitution cost 1 and 2).
  Every cell keeps ALL its optimal back pointers. The lattice of one matrix is the set of back
  pointer edges of the cells reachable from the last cell; the merged lattice is the union of
  both, where an edge present in both matrices is listed TWICE (m2scorer's ``merge_graph``
  dedup test never fires). Duplicates matter: each copy gets the epsilon weight once, and the
  gold weight is minus the length of that list.
* An insertion in row 0 of a matrix (hypothesis tokens before the first source token) gets the
  span ``(j-1, j-1)``, not ``(0, 0)``: m2scorer 3.2's initialisation does that, and a multi-token
  insertion at the start of a sentence therefore never matches a gold ``0 0`` edit.
* Transitive arcs: for each vertex k in lexicographic order, every arc into k is extended by
  every base edge out of k (arcs out of k made later are never used at k: they all start before
  k). An arc replaces an existing one only when it spans fewer base edges; it is kept only if
  it covers at most ``max_unchanged_words`` unchanged tokens. Each new or replacing arc is
  appended to the edge list in that order.
* Transitive ``noop`` arcs (dist > 1) are then removed by m2scorer with ``E.remove`` while
  iterating over ``E``, which skips the entry after each removed one: the skipped arc survives.

Everything is linear in the size of the lattice (m2scorer's closure loops over all vertex
pairs, and its Bellman-Ford over |V| x |E|).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Lattice",
    "LatticeEdit",
    "build_lattice",
    "merge_edits",
]

# An edit: (kind, start, end, original, correction, unchanged_tokens); kind is one of
# "ins", "del", "sub", "noop". Offsets are source token offsets.
LatticeEdit = tuple[str, int, int, str, str, int]


@dataclass
class Lattice:
    """The merged lattice with transitive arcs, ready to be weighted per annotator.

    ``entries`` is m2scorer's edge list ``E`` after the noop arc removal: indices into the
    per-arc arrays (``src``, ``dst`` vertex ranks, ``dist`` base-edge count, ``edit``). One arc
    index may occur several times in ``entries`` (edges of both matrices; replaced arcs).
    """

    n_vertices: int
    src: list[int]
    dst: list[int]
    dist: list[int]
    edit: list[LatticeEdit]
    entries: list[int]
    bounded: bool = False  # True when the closure stopped at the arc budget (not exact)


_FAR = 1 << 30  # a cell outside the band: never on an optimal path


def _banded_matrix(
    source: list[str], hypothesis: list[str], sub_cost: int, limit: int
) -> tuple[list[list[int]], int]:
    """Levenshtein matrix restricted to cells (i, j) that can lie on a path of cost <= limit.

    A path through (i, j) costs at least |i - j| + |(n - i) - (m - j)|; cells beyond that are
    left at _FAR. Returns the matrix and the cost of its last cell.
    """
    n, m = len(source), len(hypothesis)
    delta = n - m
    slack = (limit - abs(delta)) // 2
    low_d = min(0, delta) - slack  # allowed diagonals d = i - j
    high_d = max(0, delta) + slack
    previous = [_FAR] * (m + 1)
    for j in range(0, min(m, -low_d) + 1):
        previous[j] = j
    rows = [previous]
    for i in range(1, n + 1):
        token = source[i - 1]
        current = [_FAR] * (m + 1)
        j_low = max(0, i - high_d)
        j_high = min(m, i - low_d)
        if j_low == 0:
            current[0] = i
            j_low = 1
        left = current[j_low - 1]
        for j in range(j_low, j_high + 1):
            best = previous[j - 1] if token == hypothesis[j - 1] else previous[j - 1] + sub_cost
            up = previous[j] + 1
            if up < best:
                best = up
            left += 1
            if left < best:
                best = left
            current[j] = best
            left = best
        rows.append(current)
        previous = current
    return rows, previous[m]


def _distance_matrix(source: list[str], hypothesis: list[str], sub_cost: int) -> list[list[int]]:
    """The matrix cells that matter: exact on every optimal path (Ukkonen's band doubling)."""
    n, m = len(source), len(hypothesis)
    limit = abs(n - m) + 4
    while True:
        rows, cost = _banded_matrix(source, hypothesis, sub_cost, limit)
        if cost <= limit or limit >= sub_cost * (n + m):
            return rows
        limit *= 2


def _back_pointers(
    matrix: list[list[int]], source: list[str], hypothesis: list[str], sub_cost: int
) -> list[tuple[int, int, int, int]]:
    """Edges (i0, j0, i1, j1) of the cells reachable from the last cell, any order."""
    n, m = len(source), len(hypothesis)
    edges: list[tuple[int, int, int, int]] = []
    seen = {(n, m)}
    stack = [(n, m)]
    while stack:
        i, j = stack.pop()
        preds: list[tuple[int, int]]
        if i == 0:
            preds = [(0, j - 1)] if j > 0 else []
        elif j == 0:
            preds = [(i - 1, 0)]
        else:
            here = matrix[i][j]
            diagonal = matrix[i - 1][j - 1] + (
                0 if source[i - 1] == hypothesis[j - 1] else sub_cost
            )
            preds = []
            if diagonal == here:
                preds.append((i - 1, j - 1))
            if matrix[i - 1][j] + 1 == here:
                preds.append((i - 1, j))
            if matrix[i][j - 1] + 1 == here:
                preds.append((i, j - 1))
        for cell in preds:
            edges.append((cell[0], cell[1], i, j))
            if cell not in seen:
                seen.add(cell)
                stack.append(cell)
    return edges


def _base_edit(
    i0: int, j0: int, i1: int, j1: int, source: list[str], hypothesis: list[str]
) -> LatticeEdit:
    if i1 == i0:  # insertion of hypothesis token j0
        start = j0 if i0 == 0 else i0  # m2scorer 3.2's row-0 span (see the module docstring)
        return ("ins", start, start, "", hypothesis[j0], 0)
    if j1 == j0:
        return ("del", i0, i1, source[i0], "", 0)
    if source[i0] == hypothesis[j0]:
        return ("noop", i0, i1, source[i0], hypothesis[j0], 1)
    return ("sub", i0, i1, source[i0], hypothesis[j0], 0)


def merge_edits(first: LatticeEdit, second: LatticeEdit) -> LatticeEdit:
    """One edit for two adjacent ones (m2scorer's ``merge_edits``, joiner ' ')."""
    kind1, kind2 = first[0], second[0]
    kind = kind1 if kind1 == kind2 and kind1 in ("ins", "del", "noop") else "sub"
    if kind1 == "ins":
        original = second[3]
    elif kind2 == "ins":
        original = first[3]
    else:
        original = first[3] + " " + second[3]
    if kind1 == "del":
        correction = second[4]
    elif kind2 == "del":
        correction = first[4]
    else:
        correction = first[4] + " " + second[4]
    return (kind, first[1], second[2], original, correction, first[5] + second[5])


def build_lattice(
    source: list[str],
    hypothesis: list[str],
    max_unchanged_words: int = 2,
    max_arcs: int | None = None,
) -> Lattice:
    """The weighted-graph skeleton m2scorer 3.2 builds for one sentence pair.

    With ``max_arcs``, the closure stops once that many transitive arcs exist: the lattice is
    then marked ``bounded`` (every path is still a valid edit sequence, but the one m2scorer
    would pick may be missing). Only pathological inputs (long runs of repeated or unrelated
    tokens, where m2scorer itself runs for hours) reach a budget of a few hundred thousand.
    """
    table = _base_arcs(source, hypothesis)
    bounded = _add_transitive_arcs(table, max_unchanged_words, max_arcs)
    kept = _without_transitive_noops(table.entries, table.edit, table.dist)
    return Lattice(table.n_vertices, table.src, table.dst, table.dist, table.edit, kept, bounded)


@dataclass
class _ArcTable:
    """The lattice while it is built: per-arc arrays, the arc of each (u, v) vertex-rank pair
    (key ``u * n_vertices + v``), the edge list, and per vertex its incoming arcs and its
    outgoing base arcs."""

    n_vertices: int
    src: list[int]
    dst: list[int]
    dist: list[int]
    edit: list[LatticeEdit]
    arc_of: dict[int, int]
    entries: list[int]
    preds: list[list[tuple[int, int]]]  # (u, arc u -> v)
    base_succs: list[list[tuple[int, int]]]  # (v, arc u -> v)


def _base_arcs(source: list[str], hypothesis: list[str]) -> _ArcTable:
    """The back-pointer edges of both Levenshtein matrices as arcs between vertex ranks,
    an edge present in both listed twice in ``entries``."""
    width = len(hypothesis) + 1
    n_cells = (len(source) + 1) * width
    base: list[int] = []  # u * n_cells + v with vertex id i * width + j, both matrices
    for sub_cost in (1, 2):
        matrix = _distance_matrix(source, hypothesis, sub_cost)
        for i0, j0, i1, j1 in _back_pointers(matrix, source, hypothesis, sub_cost):
            base.append((i0 * width + j0) * n_cells + i1 * width + j1)
    base.sort()

    vertex_ids = sorted({key // n_cells for key in base} | {key % n_cells for key in base} | {0})
    rank = {v: r for r, v in enumerate(vertex_ids)}
    n = len(vertex_ids)
    table = _ArcTable(n, [], [], [], [], {}, [], [[] for _ in vertex_ids], [[] for _ in vertex_ids])
    src, dst, dist, edit = table.src, table.dst, table.dist, table.edit
    arc_of, entries, preds, base_succs = table.arc_of, table.entries, table.preds, table.base_succs
    previous_key = -1
    arc = -1
    for key in base:
        if key != previous_key:
            previous_key = key
            u_id, v_id = divmod(key, n_cells)
            u, v = rank[u_id], rank[v_id]
            arc = len(src)
            arc_of[u * n + v] = arc
            src.append(u)
            dst.append(v)
            dist.append(1)
            i0, j0 = divmod(u_id, width)
            i1, j1 = divmod(v_id, width)
            edit.append(_base_edit(i0, j0, i1, j1, source, hypothesis))
            preds[v].append((u, arc))
            base_succs[u].append((v, arc))
        entries.append(arc)
    return table


def _add_transitive_arcs(table: _ArcTable, max_unchanged_words: int, max_arcs: int | None) -> bool:
    """Transitive arcs, in m2scorer's (k, i, j) order so the appended entries keep its order.
    True when the closure stopped at ``max_arcs`` new arcs (the lattice is bounded)."""
    src, dst, dist, edit = table.src, table.dst, table.dist, table.edit
    arc_of, entries, preds, n = table.arc_of, table.entries, table.preds, table.n_vertices
    arc_limit = len(src) + max_arcs if max_arcs is not None else -1
    bounded = False
    for k, out_arcs in enumerate(table.base_succs):
        if bounded:
            break
        into = preds[k]
        if not out_arcs or not into:
            continue
        into.sort()
        for u, first_arc in into:
            first = edit[first_arc]
            candidate = dist[first_arc] + 1
            budget = max_unchanged_words - first[5]
            row = u * n
            for w, second_arc in out_arcs:
                second = edit[second_arc]
                if second[5] > budget:
                    continue
                existing = arc_of.get(row + w)
                if existing is None:
                    existing = len(src)
                    arc_of[row + w] = existing
                    src.append(u)
                    dst.append(w)
                    dist.append(candidate)
                    edit.append(merge_edits(first, second))
                    preds[w].append((u, existing))
                    if existing == arc_limit:
                        bounded = True
                elif dist[existing] > candidate:
                    dist[existing] = candidate
                    edit[existing] = merge_edits(first, second)
                else:
                    continue
                entries.append(existing)
    return bounded


def _without_transitive_noops(
    entries: list[int], edit: list[LatticeEdit], dist: list[int]
) -> list[int]:
    """Remove transitive noop arcs exactly as `for edge in E: ... E.remove(edge)` does: the
    entry after a removed one is never looked at."""
    kept: list[int] = []
    skip_next = False
    for arc in entries:
        if skip_next:
            skip_next = False
            kept.append(arc)
        elif edit[arc][0] == "noop" and dist[arc] > 1:
            skip_next = True
        else:
            kept.append(arc)
    return kept
