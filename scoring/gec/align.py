"""Weighted Damerau-Levenshtein alignment with every cheapest path (ChERRANT semantics).

The cost model and the tie rules follow ChERRANT's ``modules/alignment.py`` exactly (see
docs/metrics/char.md): a forced match when tokens are equal; otherwise the candidates
transposition, substitution, insertion, deletion, in that order, and every candidate equal
(exact float equality) to the cell minimum is kept. Floats are added in the same order as the
reference so exact ties come out identical.

What we do differently, for speed, without changing any result:

* Substitution costs are memoised per token pair (``Resources.sub_cost_cache``).
* The transposition search (ChERRANT re-sorts growing windows at every cell) uses a run length
  per diagonal and a necessary-condition filter, then an incremental multiset check.
* The DP is computed in a band of diagonals around the corner-to-corner diagonal range and
  widened until a certificate proves the banded result equals the full one (``_certified``).
* Back-tracking is iterative (no recursion limit) and stops after ``max_paths`` complete
  paths; the caller learns that the enumeration was truncated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from scoring.gec.resources import Resources

INF = float("inf")

# ChERRANT's alignment punctuation: its full-width list followed by string.punctuation.
# Membership is a SUBSTRING test in ChERRANT (``token in punct``), kept as such.
ALIGN_PUNCTUATION = (
    "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏"
    + "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)

# Back-tracking bound: at most this many complete cheapest paths are enumerated per
# alignment. The largest count on all MuCGEC-dev inputs is far below it (docs/metrics/char.md).
DEFAULT_MAX_PATHS = 20_000
# ChERRANT follows only the first operation of each cell when the lengths differ by more.
FIRST_ONLY_LENGTH_GAP = 10

Op = tuple[str, int, int, int, int]  # (label, src_start, src_end, tgt_start, tgt_end)


@dataclass(frozen=True)
class Alignment:
    paths: list[list[Op]]  # cheapest paths in ChERRANT's depth-first order
    cost: float
    truncated: bool  # True when max_paths stopped the enumeration


def _all_cjk(token: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in token)


@lru_cache(maxsize=None)
def char_pinyin(token: str) -> frozenset[str]:
    """All readings of a character (pypinyin NORMAL style, heteronyms on)."""
    from pypinyin import Style, pinyin

    return frozenset(pinyin(token, style=Style.NORMAL, heteronym=True)[0])


@lru_cache(maxsize=None)
def word_pinyin(token: str) -> frozenset[str]:
    """Syllables of a word (pypinyin ``lazy_pinyin``, as ChERRANT's word tokenizer)."""
    from pypinyin import lazy_pinyin

    return frozenset(lazy_pinyin(token))


def _spell_cost(a: str, b: str, pa: frozenset[str], pb: frozenset[str], resources: Resources) -> float:
    # a is the shorter token. The pinyin test compares the WHOLE tokens' readings (it does not
    # depend on the characters being compared): that is ChERRANT's rule, kept on purpose.
    confusion = resources.confusion
    shared_reading = bool(pa & pb)
    count = 0
    for ca in a:
        for cb in b:
            if (
                ca == cb
                or shared_reading
                or cb in confusion.get(ca, ())
                or ca in confusion.get(cb, ())
            ):
                count += 1
                break
    return (len(a) - count) / (len(a) * 2)


def substitution_cost(a: str, b: str, resources: Resources, granularity: str = "char") -> float:
    """ChERRANT's substitution cost for two different tokens, range 0.25 .. 1.999."""
    cache_key = (a, b) if granularity == "char" else ("\x00w" + a, b)
    cached = resources.sub_cost_cache.get(cache_key)
    if cached is not None:
        return cached
    sem_a, sem_b = resources.semantic.get(a), resources.semantic.get(b)
    if sem_a is None or sem_b is None:
        semantic = 4
    elif sem_a == sem_b:
        semantic = 0
    else:
        semantic = 2 * (3 - sum(x == y for x, y in zip(sem_a, sem_b, strict=True)))
    a_punct, b_punct = a in ALIGN_PUNCTUATION, b in ALIGN_PUNCTUATION
    if a_punct and b_punct:
        pos = 0.0
    elif not a_punct and not b_punct:
        pos = 0.25
    else:
        pos = 0.499
    char: float
    if not (_all_cjk(a) and _all_cjk(b)):
        char = 0.5
    else:
        pinyin = char_pinyin if granularity == "char" else word_pinyin
        x, y, px, py = a, b, pinyin(a), pinyin(b)
        if len(x) > len(y):
            x, y, px, py = y, x, py, px
        char = 0 if x == y else _spell_cost(x, y, px, py, resources)
    # Summation order matters for exact ties: ChERRANT adds semantic + char + pos in char mode
    # and semantic + pos + char in word mode.
    if granularity == "char":
        cost = semantic / 6.0 + char + pos
    else:
        cost = semantic / 6.0 + pos + char
    resources.sub_cost_cache[cache_key] = cost
    return cost


@dataclass
class _Table:
    cost: list[list[float]]
    ops: list[list[tuple[str, ...]]]
    run: list[list[int]]  # consecutive "value changed" steps back along the diagonal
    scan: list[list[int]]  # how far back the transposition search read the diagonal
    low: int  # band: diagonals d = a - b in [low, high] are computed
    high: int


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


def _fill(
    src: Sequence[str],
    tgt: Sequence[str],
    sub: Callable[[str, str], float],
    low: int,
    high: int,
) -> _Table:
    n, m = len(src), len(tgt)
    cost = [[INF] * (m + 1) for _ in range(n + 1)]
    ops: list[list[tuple[str, ...]]] = [[()] * (m + 1) for _ in range(n + 1)]
    run = [[0] * (m + 1) for _ in range(n + 1)]
    scan = [[0] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for a in range(1, min(n, high) + 1):
        cost[a][0] = cost[a - 1][0] + 1
        ops[a][0] = ("D",)
    for b in range(1, min(m, -low) + 1):
        cost[0][b] = cost[0][b - 1] + 1
        ops[0][b] = ("I",)

    # Necessary condition for a transposition ending at (i, j) with length k+1: src[i] occurs
    # in tgt[j-k..j-1] and tgt[j] occurs in src[i-k..i-1]. last_in_tgt[c][j] is the latest
    # index < j where tgt has c (-1 if none).
    last_in_tgt: dict[str, list[int]] = {}
    for c in set(src):
        row, last = [-1] * (m + 1), -1
        for b in range(m):
            row[b] = last
            if tgt[b] == c:
                last = b
        row[m] = last
        last_in_tgt[c] = row
    last_in_src: dict[str, int] = {}

    for i in range(n):
        s_i = src[i]
        prev_cost, cur_cost = cost[i], cost[i + 1]
        prev_run, cur_run = run[i], run[i + 1]
        cur_ops, cur_scan = ops[i + 1], scan[i + 1]
        t_last = last_in_tgt[s_i]
        a = i + 1
        j_from = max(0, a - high - 1)
        j_to = min(m, a - low)  # exclusive bound on j (cell column b = j + 1 <= a - low)
        for j in range(j_from, j_to):
            b = j + 1
            diag = prev_cost[j]
            t_j = tgt[j]
            if s_i == t_j:
                value = diag
                cur_ops[b] = ("M",)
            else:
                del_cost = prev_cost[b] + 1
                ins_cost = cur_cost[j] + 1
                sub_cost = diag + sub(s_i, t_j)
                trans_cost = INF
                k_found = 0
                limit = prev_run[j]  # k may go up to the run length ending at (i, j)
                if limit:
                    k_min = j - t_last[j]
                    other = last_in_src.get(t_j, -1)
                    if i - other > k_min:
                        k_min = i - other
                    if t_last[j] >= 0 and other >= 0 and k_min <= limit:
                        k_found = _transposition(src, tgt, i, j, limit)
                        if k_found:
                            trans_cost = cost[i - k_found][j - k_found] + k_found
                cur_scan[b] = k_found if k_found else limit + 1
                value = trans_cost
                if sub_cost < value:
                    value = sub_cost
                if ins_cost < value:
                    value = ins_cost
                if del_cost < value:
                    value = del_cost
                kept: list[str] = []
                if trans_cost == value:
                    kept.append(f"T{k_found + 1}")
                if sub_cost == value:
                    kept.append("S")
                if ins_cost == value:
                    kept.append("I")
                if del_cost == value:
                    kept.append("D")
                cur_ops[b] = tuple(kept)
            cur_cost[b] = value
            # The transposition search at a later cell on this diagonal may step back over
            # this cell only while the diagonal value keeps changing.
            cur_run[b] = prev_run[j] + 1 if value != diag else 0
        last_in_src[s_i] = i
    return _Table(cost, ops, run, scan, low, high)


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


def _certified(table: _Table, n: int, m: int, visited: list[tuple[int, int]]) -> bool:
    """True when the banded table provably equals the full DP on everything we used.

    A band value v' is never below the true value v; it equals v when v' is below the cost of
    any path leaving the band (_outside_bound). We need that for the corner (then every cheapest
    path lies in the band, and every cell on one has its true value and true operations) and
    for every diagonal cell the transposition search read at the cells the back-track visited
    (the search stops on value equalities along the diagonal, so those values must be exact).
    """
    if table.low <= -m and table.high >= n:
        return True  # the band is the full table
    cost = table.cost
    if not cost[n][m] < _outside_bound(table, n, m, n - m):
        return False
    for a, b in visited:
        ops = table.ops[a][b]
        if a == 0 or b == 0 or ops == ("M",):
            continue
        bound = _outside_bound(table, n, m, a - b)
        i, j = a - 1, b - 1
        reach = min(table.scan[a][b], i, j)
        for k in range(reach + 1):
            if not cost[i - k][j - k] < bound:
                return False
    return True


def _backtrack(
    ops: list[list[tuple[str, ...]]], n: int, m: int, first_only: bool, max_paths: int
) -> tuple[list[list[Op]], bool, list[tuple[int, int]]]:
    """All cheapest paths, depth-first from (n, m), operations tried in stored order."""
    paths: list[list[Op]] = []
    visited: set[tuple[int, int]] = set()
    # Stack entries: (a, b, chain) where chain is a linked list (op, parent) of the ops taken
    # from the corner so far; sharing prefixes keeps memory linear in the depth.
    stack: list[tuple[int, int, tuple[Op, object] | None]] = [(n, m, None)]
    truncated = False
    while stack:
        a, b, chain = stack.pop()
        visited.add((a, b))
        if a + b == 0:
            path: list[Op] = []
            node: object = chain
            while node is not None:
                op, node = node  # type: ignore[misc]
                path.append(op)
            paths.append(path)
            if len(paths) >= max_paths:
                truncated = bool(stack)
                break
            continue
        cell_ops = ops[a][b]
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
    return paths, truncated, sorted(visited)


def align(
    src: Sequence[str],
    tgt: Sequence[str],
    resources: Resources,
    *,
    granularity: str = "char",
    strategy: str = "all",
    max_paths: int = DEFAULT_MAX_PATHS,
    band: int = 8,
) -> Alignment:
    """Cheapest alignments of two token sequences (ChERRANT order).

    strategy "first" returns only the first path (ChERRANT ``-s first``); "all" every cheapest
    path, up to ``max_paths``. ``band`` is the initial half-width of the computed diagonal band;
    it only affects speed (the band grows until the result is certified exact).
    """
    if strategy not in ("all", "first"):
        raise ValueError(f"strategy must be 'all' or 'first', got {strategy!r}")
    n, m = len(src), len(tgt)

    def sub(x: str, y: str) -> float:
        return substitution_cost(x, y, resources, granularity)

    first_only = strategy == "first" or abs(n - m) > FIRST_ONLY_LENGTH_GAP
    limit = 1 if strategy == "first" else max_paths
    width = band
    while True:
        low, high = min(0, n - m) - width, max(0, n - m) + width
        table = _fill(src, tgt, sub, max(low, -m), min(high, n))
        paths, truncated, visited = _backtrack(table.ops, n, m, first_only, limit)
        if _certified(table, n, m, visited):
            break
        width *= 4
    if strategy == "first":
        truncated = False
    return Alignment(paths=paths, cost=table.cost[n][m], truncated=truncated)
