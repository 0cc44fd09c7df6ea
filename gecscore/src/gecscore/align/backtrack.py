"""Every cheapest path of a filled table (ChERRANT's depth-first order), and the certificate
that a banded table equals the full one on everything the paths used."""

from __future__ import annotations

from gecscore.align.table import INF, Op, _Grid, _Table

__all__ = []


def _cell_ops(grid: _Grid, table: _Table, a: int, b: int) -> tuple[tuple[str, ...], int]:
    """ChERRANT's kept operations of cell (a, b), in order T, S, I, D, and how far back along
    the diagonal its transposition search read (for the band certificate)."""
    if a == 0:
        return ("I",), 0
    if b == 0:
        return ("D",), 0
    i, j = a - 1, b - 1
    src, tgt = grid.src, grid.tgt
    if src[i] == tgt[j]:
        return ("M",), 0
    at = table.at
    del_cost = at(i, b) + 1
    ins_cost = at(a, j) + 1
    sub_cost = at(i, j) + grid.pair_cost(src[i], tgt[j])
    last_src = -1
    token = tgt[j]
    for x in range(i - 1, -1, -1):
        if src[x] == token:
            last_src = x
            break
    trans_cost, k, reach = grid.transposition(table, i, j, j - i + table.offset, last_src)
    value = min(trans_cost, sub_cost, ins_cost, del_cost)
    kept: list[str] = []
    if trans_cost == value:
        kept.append(f"T{k + 1}")
    if sub_cost == value:
        kept.append("S")
    if ins_cost == value:
        kept.append("I")
    if del_cost == value:
        kept.append("D")
    return tuple(kept), reach


def _outside_bound(table: _Table, n: int, m: int, d: int) -> float:
    """Lower bound of any path that leaves the band and then reaches diagonal d.

    Reaching diagonal d' costs at least |d'| (each insertion or deletion moves one diagonal,
    other operations stay on theirs) and coming back to d at least |d' - d|.
    """
    bound = INF
    if table.high + 1 <= n:
        bound = min(bound, (table.high + 1) + (table.high + 1 - d))
    if table.low - 1 >= -m:
        bound = min(bound, (1 - table.low) + (d - table.low + 1))
    return bound


def _corner_exact(table: _Table, n: int, m: int) -> bool:
    """The first condition of _certified, which needs no back-track: the band is the full
    table, or its corner value is below the cost of any path leaving the band."""
    if table.low <= -m and table.high >= n:
        return True
    return table.at(n, m) < _outside_bound(table, n, m, n - m)


def _certified(
    table: _Table, n: int, m: int, visited: dict[tuple[int, int], tuple[tuple[str, ...], int]]
) -> bool:
    """True when the banded table provably equals the full DP on everything we used.

    A band value v' is never below the true value v; it equals v when v' is below the cost of
    any path leaving the band (_outside_bound). We need that for the corner (then every cheapest
    path lies in the band, and every cell on one has its true value and true operations) and
    for every diagonal cell the transposition search read at the cells the back-track visited
    (the search stops on value equalities along the diagonal, so those values must be exact).
    """
    if table.low <= -m and table.high >= n:
        return True  # the band is the full table
    if not _corner_exact(table, n, m):
        return False
    at = table.at
    for (a, b), (_, reach) in visited.items():
        if not reach:
            continue
        bound = _outside_bound(table, n, m, a - b)
        i, j = a - 1, b - 1
        for k in range(min(reach, i, j) + 1):
            if not at(i - k, j - k) < bound:
                return False
    return True


def _backtrack(
    grid: _Grid, table: _Table, first_only: bool, max_paths: int
) -> tuple[list[list[Op]], bool, dict[tuple[int, int], tuple[tuple[str, ...], int]]]:
    """All cheapest paths, depth-first from (n, m), operations tried in stored order."""
    n, m = grid.n, grid.m
    paths: list[list[Op]] = []
    visited: dict[tuple[int, int], tuple[tuple[str, ...], int]] = {}
    # Stack entries: (a, b, chain) where chain is a linked list (op, parent) of the ops taken
    # from the corner so far; sharing prefixes keeps memory linear in the depth.
    stack: list[tuple[int, int, tuple[Op, object] | None]] = [(n, m, None)]
    truncated = False
    while stack:
        a, b, chain = stack.pop()
        if a + b == 0:
            path: list[Op] = []
            node = chain
            while node is not None:
                path.append(node[0])
                node = node[1]  # type: ignore[assignment]
            paths.append(path)
            if len(paths) >= max_paths:
                truncated = bool(stack)
                break
            continue
        entry = visited.get((a, b))
        if entry is None:
            entry = visited[(a, b)] = _cell_ops(grid, table, a, b)
        cell_ops = entry[0]
        if first_only:
            cell_ops = cell_ops[:1]
        # Push in reverse so that the first stored operation is explored first.
        for label in reversed(cell_ops):
            if label == "M" or label == "S":
                step: Op = (label, a - 1, a, b - 1, b)
                stack.append((a - 1, b - 1, (step, chain)))
            elif label == "D":
                stack.append((a - 1, b, ((label, a - 1, a, b, b), chain)))
            elif label == "I":
                stack.append((a, b - 1, ((label, a, a, b - 1, b), chain)))
            else:
                k = int(label[1:])
                stack.append((a - k, b - k, ((label, a - k, a, b - k, b), chain)))
    return paths, truncated, visited
