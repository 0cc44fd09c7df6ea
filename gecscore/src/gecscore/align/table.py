"""The banded dynamic-programming table of one sentence pair and its pure-Python fill."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gecscore.align.costs import substitution_cost, substitution_costs
from gecscore.errors import GECError
from gecscore.resources import Resources

__all__ = [
    "AlignmentTooLarge",
    "INF",
    "MAX_TABLE_SLOTS",
    "Op",
    "make_grid",
]


INF = float("inf")

Op = tuple[str, int, int, int, int]  # (label, src_start, src_end, tgt_start, tgt_end)

# Storage limit of one banded table (rows x band width). A pair needing more (only very long
# AND very different sentences: the band widens with the alignment cost) is rejected with a
# clear error instead of exhausting memory. Real data never comes close (docs/metrics/char.md).
MAX_TABLE_SLOTS = 4_000_000


class AlignmentTooLarge(GECError, ValueError):
    """The exact alignment would need more memory than MAX_TABLE_SLOTS allows."""


@dataclass
class _Table:
    """Banded DP table stored by diagonal: cell (a, b) lives at row a, slot b - a + offset.

    Slots 0 and width + 1 are padding (always INF), so out-of-band neighbours read as INF.
    """

    cost: list[list[float]]
    run: list[list[int]]  # consecutive "value changed" steps back along the diagonal
    low: int  # band: diagonals d = a - b in [low, high] are computed
    high: int
    offset: int  # high + 1

    def at(self, a: int, b: int) -> float:
        slot = b - a + self.offset
        if a < 0 or b < 0 or slot < 0 or slot >= len(self.cost[a]):
            return INF
        return self.cost[a][slot]


def _transposition(src: Sequence[str], tgt: Sequence[str], i: int, j: int, limit: int) -> int:
    """Smallest k in 1..limit with multiset(src[i-k..i]) == multiset(tgt[j-k..j]); 0 if none."""
    balance: dict[str, int] = {}
    nonzero = 0
    for k in range(0, limit + 1):
        for tok, delta in ((src[i - k], 1), (tgt[j - k], -1)):
            old = balance.get(tok, 0)
            value = old + delta
            balance[tok] = value
            if old == 0:
                nonzero += 1
            elif value == 0:
                nonzero -= 1
        if nonzero == 0 and k:
            return k
    return 0


class _Grid:
    """One sentence pair: token tables shared by the DP fill and the back-track."""

    def __init__(
        self,
        src: Sequence[str],
        tgt: Sequence[str],
        sub: Callable[[str, str], float],
        row_cache: dict[str, dict[str, float]],
        batch: Callable[[str, list[str]], list[float]],
    ):
        self.src, self.tgt = src, tgt
        n, m = len(src), len(tgt)
        # Substitution costs are memoised per (source token, target token) across sentences;
        # rows are laid out lazily for the band actually computed.
        self.sub, self.row_cache, self.batch = sub, row_cache, batch
        # Necessary condition for a transposition ending at (i, j) with length k+1: src[i]
        # occurs in tgt[j-k..j-1] and tgt[j] occurs in src[i-k..i-1]. _last_in_tgt[c][j] is the
        # latest index < j where tgt has c (-1 if none), built on first use per character.
        self._last_in_tgt: dict[str, list[int]] = {}
        self._positions: dict[str, list[int]] = {}
        for b, t in enumerate(tgt):
            self._positions.setdefault(t, []).append(b)
        self._never = [-1] * (m + 1)
        self.n, self.m = n, m

    def sub_segment(self, c: str, j_from: int, j_to: int) -> list[float]:
        """Substitution costs of source token c against tgt[j_from:j_to]."""
        known = self.row_cache.get(c)
        if known is None:
            known = self.row_cache[c] = {c: 0.0}
        segment = self.tgt[j_from:j_to]
        get = known.get
        costs = [get(t) for t in segment]
        if None in costs:  # first time these pairs are seen (cold cache)
            missing = list({t for t in segment if t not in known})
            known.update(zip(missing, self.batch(c, missing), strict=True))
            costs = [known[t] for t in segment]
        return costs  # type: ignore[return-value]

    def last_in_tgt(self, c: str) -> list[int]:
        row = self._last_in_tgt.get(c)
        if row is None:
            positions = self._positions.get(c)
            if positions is None:
                row = self._never
            else:
                # row[j] = latest position < j: built from runs with list multiplication.
                row = [-1] * (positions[0] + 1)
                for here, after in zip(positions, positions[1:], strict=False):
                    row += [here] * (after - here)
                row += [positions[-1]] * (self.m - positions[-1])
            self._last_in_tgt[c] = row
        return row

    def pair_cost(self, c: str, t: str) -> float:
        known = self.row_cache.setdefault(c, {c: 0.0})
        value = known.get(t)
        if value is None:
            value = known[t] = self.sub(c, t)
        return value

    def transposition(
        self, table: _Table, i: int, j: int, slot: int, last_src: int
    ) -> tuple[float, int, int]:
        """(cost, k, cells read back) of the transposition candidate at source i, target j;
        ``slot`` is the diagonal slot of cell (i, j) (and of every cell on its diagonal)."""
        limit = table.run[i][slot]
        if not limit:
            return INF, 0, 1
        t_last = self.last_in_tgt(self.src[i])[j]
        if t_last < 0 or last_src < 0:
            return INF, 0, limit + 1
        k_min = max(j - t_last, i - last_src)
        if k_min > limit:
            return INF, 0, limit + 1
        k = _transposition(self.src, self.tgt, i, j, limit)
        if not k:
            return INF, 0, limit + 1
        return table.cost[i - k][slot] + k, k, k


def _fill(grid: _Grid, low: int, high: int) -> _Table:
    src, tgt = grid.src, grid.tgt
    n, m = grid.n, grid.m
    width = high - low + 1
    if (n + 1) * (width + 2) > MAX_TABLE_SLOTS:
        raise AlignmentTooLarge(
            f"sentence pair too long and too different to align exactly ({n} x {m} tokens "
            f"would need a band of {width} diagonals; limit {MAX_TABLE_SLOTS} cells)"
        )
    offset = high + 1
    cost = [[INF] * (width + 2) for _ in range(n + 1)]
    run = [[0] * (width + 2) for _ in range(n + 1)]
    table = _Table(cost, run, low, high, offset)
    cost[0][offset] = 0.0
    for a in range(1, min(n, high) + 1):
        cost[a][offset - a] = cost[a - 1][offset - a + 1] + 1
    for b in range(1, min(m, -low) + 1):
        cost[0][offset + b] = cost[0][offset + b - 1] + 1
    last_in_src: dict[str, int] = {}
    last_in_src_get = last_in_src.get
    for i in range(n):
        s_i = src[i]
        t_last_row = grid.last_in_tgt(s_i)
        prev_cost, cur_cost = cost[i], cost[i + 1]
        prev_run, cur_run = run[i], run[i + 1]
        a = i + 1
        j_from = max(0, a - high - 1)
        j_to = min(m, a - low)  # cell column b = j + 1 stays within the band
        sub_row = grid.sub_segment(s_i, j_from, j_to)
        # Cell (a, b = j + 1) is at slot q = b - a + offset = j - i + offset in row a; its
        # diagonal neighbour (a-1, b-1) at the same slot of row a-1, (a-1, b) at q + 1 there,
        # (a, b-1) at q - 1 of row a.
        q = j_from - i + offset
        for t_j, sub in zip(tgt[j_from:j_to], sub_row, strict=False):
            diag = prev_cost[q]
            if s_i == t_j:
                # Forced match: same value as the diagonal, so the run restarts.
                cur_cost[q] = diag
                cur_run[q] = 0
                q += 1
                continue
            # Only the cell VALUE is needed here (the minimum does not depend on the order of
            # comparison); the tied operations are re-derived for visited cells in _cell_ops.
            value = diag + sub
            other = prev_cost[q + 1] + 1
            if other < value:
                value = other
            other = cur_cost[q - 1] + 1
            if other < value:
                value = other
            limit = prev_run[q]
            if limit:
                # Inlined Grid.transposition filter: most cells fail it.
                j = q + i - offset
                t_last = t_last_row[j]
                if t_last >= 0:
                    s_last = last_in_src_get(t_j, -1)
                    if s_last >= 0 and j - t_last <= limit and i - s_last <= limit:
                        k = _transposition(src, tgt, i, j, limit)
                        if k:
                            other = cost[i - k][q] + k
                            if other < value:
                                value = other
                cur_run[q] = limit + 1 if value != diag else 0
            else:
                cur_run[q] = 1 if value != diag else 0
            cur_cost[q] = value
            q += 1
        last_in_src[s_i] = i
    return table


def make_grid(
    src: Sequence[str], tgt: Sequence[str], resources: Resources, granularity: str
) -> _Grid:
    """The per-pair state of one alignment, with the resources' memoised substitution costs."""

    def sub(x: str, y: str) -> float:
        return substitution_cost(x, y, resources, granularity)

    def batch(x: str, ys: list[str]) -> list[float]:
        return substitution_costs(x, ys, resources, granularity)

    return _Grid(src, tgt, sub, resources.sub_cost_rows.setdefault(granularity, {}), batch)
