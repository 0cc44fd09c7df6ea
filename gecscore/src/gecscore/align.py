"""Weighted Damerau-Levenshtein alignment with every cheapest path (ChERRANT semantics).

The cost model and the tie rules follow ChERRANT's ``modules/alignment.py`` exactly (see
docs/metrics/char.md): a forced match when tokens are equal; otherwise the candidates
transposition, substitution, insertion, deletion, in that order, and every candidate equal
(exact float equality) to the cell minimum is kept. Floats are added in the same order as the
reference so exact ties come out identical.

What we do differently, for speed, without changing any result:

* Substitution costs are memoised per token pair (``Resources.sub_cost_rows``), computed
  lazily for the cells actually filled, from cached per-token features.
* The transposition search (ChERRANT re-sorts growing windows at every cell) uses a run length
  per diagonal and a necessary-condition filter, then an incremental multiset check.
* The DP is computed in a band of diagonals around the corner-to-corner diagonal range,
  stored by diagonal, and widened until a certificate proves the banded result equals the
  full one (``_certified``). The fill computes values only; the tied operations of a cell are
  re-derived (``_cell_ops``) only for the cells the back-track visits.
* Back-tracking is iterative (no recursion limit) and stops after ``max_paths`` complete
  paths; the caller learns that the enumeration was truncated.
* When the optional C module ``_alignfill`` is built (an optional extension of the package's
  ``setup.py``: in the wheel, or in place by ``pip install -e``), the fill, back-track, certificate and band widening run in C: the
  same steps in the same order with the same float arithmetic, so the same paths (tested);
  about 5x less CPU per reference. ``GEC_PURE_PYTHON=1`` switches it off.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from gecscore.errors import GECError
from gecscore.resources import (
    ConfusionSets,
    Resources,
    SemanticClass,
    char_readings,
    pypinyin_readings,
)

try:  # the optional compiled core (_alignfill.c; built by the package's setup.py)
    from gecscore import _alignfill

    HAVE_NATIVE = True
except ImportError:  # not built: the pure-Python code below gives the same results
    HAVE_NATIVE = False

SemanticClassOrNone = SemanticClass | None

INF = float("inf")

# ChERRANT's alignment punctuation: its full-width list followed by string.punctuation.
# Membership is a SUBSTRING test in ChERRANT (``token in punct``), kept as such.
ALIGN_PUNCTUATION = (
    "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏"
    + "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)

# Back-tracking bound: at most this many complete cheapest paths are enumerated per
# alignment. The largest count on all MuCGEC-dev inputs is far below it (docs/metrics/char.md).
DEFAULT_MAX_PATHS = 10_000
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


@cache
def char_pinyin(token: str) -> frozenset[str]:
    """All readings of a character (pypinyin NORMAL style, heteronyms on); CJK characters
    come from the prebuilt table, which holds the same values (resources.char_readings)."""
    found = char_readings().get(token)
    return pypinyin_readings(token) if found is None else found


@cache
def word_pinyin(token: str) -> frozenset[str]:
    """Syllables of a word (pypinyin ``lazy_pinyin``, as ChERRANT's word tokenizer)."""
    from pypinyin import lazy_pinyin

    return frozenset(lazy_pinyin(token))


def _spell_cost(
    a: str, b: str, pa: frozenset[str], pb: frozenset[str], resources: Resources
) -> float:
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


_Features = tuple[SemanticClassOrNone, bool, bool, frozenset[str]]


def _features(token: str, resources: Resources, granularity: str) -> _Features:
    """(Cilin class, is punctuation, all CJK, readings) of a token, cached per resources."""
    cache = resources.token_features.setdefault(granularity, {})
    found = cache.get(token)
    if found is None:
        cjk = _all_cjk(token)
        readings = (
            (char_pinyin if granularity == "char" else word_pinyin)(token) if cjk else frozenset()
        )
        found = cache[token] = (
            resources.semantic.get(token),
            token in ALIGN_PUNCTUATION,
            cjk,
            readings,
        )
    return found


def substitution_cost(a: str, b: str, resources: Resources, granularity: str = "char") -> float:
    """ChERRANT's substitution cost for two different tokens, range 0.25 .. 1.999.

    Not memoised here: align() keeps every computed cost in ``resources.sub_cost_rows``.
    """
    sem_a, a_punct, a_cjk, pinyin_a = _features(a, resources, granularity)
    sem_b, b_punct, b_cjk, pinyin_b = _features(b, resources, granularity)
    if sem_a is None or sem_b is None:
        semantic = 4
    elif sem_a == sem_b:
        semantic = 0
    else:
        semantic = 2 * (
            3 - ((sem_a[0] == sem_b[0]) + (sem_a[1] == sem_b[1]) + (sem_a[2] == sem_b[2]))
        )
    if a_punct and b_punct:
        pos = 0.0
    elif not a_punct and not b_punct:
        pos = 0.25
    else:
        pos = 0.499
    char: float
    if not (a_cjk and b_cjk):
        char = 0.5
    else:
        x, y, px, py = a, b, pinyin_a, pinyin_b
        if len(x) == 1 and len(y) == 1:
            # Single characters (always, at char level): the same test as _spell_cost.
            confusion = resources.confusion
            char = (
                0.0 if (px & py) or y in confusion.get(x, ()) or x in confusion.get(y, ()) else 0.5
            )
        elif len(x) > len(y):
            x, y, px, py = y, x, py, px
            char = _spell_cost(x, y, px, py, resources)
        else:
            char = 0 if x == y else _spell_cost(x, y, px, py, resources)
    # Summation order matters for exact ties: ChERRANT adds semantic + char + pos in char mode
    # and semantic + pos + char in word mode.
    cost = semantic / 6.0 + char + pos if granularity == "char" else semantic / 6.0 + pos + char
    return cost


# Storage limit of one banded table (rows x band width). A pair needing more (only very long
# AND very different sentences: the band widens with the alignment cost) is rejected with a
# clear error instead of exhausting memory. Real data never comes close (docs/metrics/char.md).
MAX_TABLE_SLOTS = 4_000_000


class AlignmentTooLarge(GECError, ValueError):
    """The exact alignment would need more memory than MAX_TABLE_SLOTS allows."""


def substitution_costs(
    a: str, targets: Sequence[str], resources: Resources, granularity: str = "char"
) -> list[float]:
    """substitution_cost(a, t) for every t (all different from a), with a's features hoisted.

    Same arithmetic as substitution_cost (checked by tests); this is the cold-cache hot path
    (~190,000 pairs for 1,137 hypotheses), hence the names bound outside the loop.
    """
    if granularity != "char":
        return [substitution_cost(a, t, resources, granularity) for t in targets]
    sem_a, a_punct, a_cjk, pinyin_a = _features(a, resources, granularity)
    confusion = resources.confusion
    confusion_get = confusion.get
    confusable = confusion_get(a, ())
    single = len(a) == 1
    known_features = resources.token_features.setdefault(granularity, {}).get
    shares_no_reading = pinyin_a.isdisjoint
    # pos: 0 for two punctuation marks, 0.25 for two other tokens, 0.499 for one of each.
    pos_if_punct, pos_if_other = (0.0, 0.499) if a_punct else (0.499, 0.25)
    out: list[float] = []
    append = out.append
    for t in targets:
        found = known_features(t)
        if found is None:
            found = _features(t, resources, granularity)
        sem_b, b_punct, b_cjk, pinyin_b = found
        if sem_a is None or sem_b is None:
            semantic = 4
        elif sem_a == sem_b:
            semantic = 0
        else:
            semantic = 2 * (
                3 - ((sem_a[0] == sem_b[0]) + (sem_a[1] == sem_b[1]) + (sem_a[2] == sem_b[2]))
            )
        pos = pos_if_punct if b_punct else pos_if_other
        if not (a_cjk and b_cjk):
            char = 0.5
        elif single and len(t) == 1:
            char = (
                0.0
                if not shares_no_reading(pinyin_b) or t in confusable or a in confusion_get(t, ())
                else 0.5
            )
        else:
            append(substitution_cost(a, t, resources, granularity))
            continue
        append(semantic / 6.0 + char + pos)
    return out


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


class _NativeCosts:
    """Substitution-cost memo of the compiled fill: token ids and a C hash table of costs."""

    def __init__(self) -> None:
        self.table = _alignfill.PairCosts()
        self.ids: dict[str, int] = {}
        self.tokens: list[str] = []
        # Char level: per-token features for the compiled cost model (a module built before
        # it existed lacks CharFeatures; then every cost comes from Python, as before).
        compiled_model = getattr(_alignfill, "CharFeatures", None)
        self.char_features = compiled_model() if compiled_model is not None else None
        self.feature_ids: dict[str, int] = {}  # Cilin class parts and pinyin readings -> ids

    def add_missing(self, keys: list[int], resources: Resources, granularity: str) -> None:
        """Compute the costs the C code reported missing (cold memo) and memoise them.

        At char level the compiled cost model computes them from the tokens' features (about
        8x faster than the Python loop on a cold memo). What is left (other granularities, or
        no compiled model) is grouped by source token: a key is (source id << 32) | target id;
        sorted, each source's keys are one run, found by bisection. The cost model stays in
        Python (substitution_costs, one call per source token)."""
        if granularity == "char" and self.char_features is not None:
            self.describe_new_tokens(resources)
            keys = _alignfill.char_costs(self.table, self.char_features, keys)
            if not keys:
                return
        ordered = sorted(set(keys))
        tokens = self.tokens
        add = self.table.add
        start, end = 0, len(ordered)
        while start < end:
            base = ordered[start] & ~0xFFFFFFFF
            stop = bisect_left(ordered, base + (1 << 32), start, end)
            run = ordered[start:stop]
            targets = [tokens[key - base] for key in run]
            add(run, substitution_costs(tokens[base >> 32], targets, resources, granularity))
            start = stop

    def describe_new_tokens(self, resources: Resources) -> None:
        """Hand the compiled cost model the char-level features of the tokens it lacks.

        The same features substitution_costs reads (_features): Cilin class parts, punctuation,
        all-CJK, readings; for a single character also its single-character confusion set."""
        features = self.char_features
        assert features is not None
        ids = self.feature_ids
        confusion = resources.confusion
        compact_confusion: Callable[[str], str]
        if isinstance(confusion, ConfusionSets):
            compact_confusion = confusion.compact_members
        else:  # hand-built resources: a plain mapping of sets
            compact_confusion = lambda token: ConfusionSets.compact(list(confusion.get(token, ())))  # noqa: E731

        for token in self.tokens[len(features) :]:
            semantic, punct, cjk, readings = _features(token, resources, "char")
            if semantic is None:
                major, middle, minor = -1, -1, -1
            else:
                major, middle, minor = (ids.setdefault(part, len(ids)) for part in semantic)
            single = len(token) == 1
            features.append(
                major,
                middle,
                minor,
                punct | (cjk << 1) | (single << 2),
                ord(token) if single else 0,
                [ids.setdefault(reading, len(ids)) for reading in readings],
                compact_confusion(token) if single else "",
            )

    def token_ids(self, tokens: Sequence[str]) -> list[int]:
        ids = self.ids
        out = []
        for token in tokens:
            found = ids.get(token)
            if found is None:
                found = ids[token] = len(self.tokens)
                self.tokens.append(token)
            out.append(found)
        return out


def native_enabled() -> bool:
    """True when the compiled fill is built and not switched off (GEC_PURE_PYTHON=1)."""
    return HAVE_NATIVE and os.environ.get("GEC_PURE_PYTHON") != "1"


def make_grid(
    src: Sequence[str], tgt: Sequence[str], resources: Resources, granularity: str
) -> _Grid:
    """The per-pair state of one alignment, with the resources' memoised substitution costs."""

    def sub(x: str, y: str) -> float:
        return substitution_cost(x, y, resources, granularity)

    def batch(x: str, ys: list[str]) -> list[float]:
        return substitution_costs(x, ys, resources, granularity)

    return _Grid(src, tgt, sub, resources.sub_cost_rows.setdefault(granularity, {}), batch)


def _native_costs(resources: Resources, granularity: str) -> _NativeCosts:
    """The resources' compiled cost memo for a granularity (made on first use)."""
    native = resources.native_costs.get(granularity)
    if native is None:
        native = resources.native_costs[granularity] = _NativeCosts()
    return native


def _compiled_tables(
    src: Sequence[str],
    tgt: Sequence[str],
    resources: Resources,
    granularity: str,
    low: int,
    high: int,
) -> tuple[list[list[float]], list[list[int]]]:
    """The C fill's banded tables (cost, run rows), for the tests that hold them equal to _fill's.

    The product calls _alignfill.align, which runs this fill and then the back-track in C."""
    native = _native_costs(resources, granularity)
    src_ids, tgt_ids = native.token_ids(src), native.token_ids(tgt)
    while True:
        result = _alignfill.fill(native.table, src_ids, tgt_ids, low, high)
        if isinstance(result, tuple):
            break
        native.add_missing(result, resources, granularity)
    stride = high - low + 3
    cost = array("d", result[0]).tolist()
    run = array("i", result[1]).tolist()
    rows = range(len(src) + 1)
    return (
        [cost[a * stride : (a + 1) * stride] for a in rows],
        [run[a * stride : (a + 1) * stride] for a in rows],
    )


def _align_native(
    src: Sequence[str],
    tgt: Sequence[str],
    resources: Resources,
    granularity: str,
    band: int,
    first_only: bool,
    max_paths: int,
) -> tuple[list[list[Op]], bool, float]:
    """Fill, back-track and certificate in C (the same steps as align() below, bit for bit)."""
    native = _native_costs(resources, granularity)
    src_ids, tgt_ids = native.token_ids(src), native.token_ids(tgt)
    while True:
        result = _alignfill.align(
            native.table, src_ids, tgt_ids, band, first_only, max_paths, MAX_TABLE_SLOTS
        )
        if isinstance(result, tuple):
            return result
        if isinstance(result, int):
            raise AlignmentTooLarge(
                f"sentence pair too long and too different to align exactly ({len(src)} x "
                f"{len(tgt)} tokens would need a band of {result} diagonals; limit "
                f"{MAX_TABLE_SLOTS} cells)"
            )
        native.add_missing(result, resources, granularity)


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

    first_only = strategy == "first" or abs(n - m) > FIRST_ONLY_LENGTH_GAP
    limit = 1 if strategy == "first" else max_paths
    if native_enabled():
        paths, truncated, cost = _align_native(
            src, tgt, resources, granularity, band, first_only, limit
        )
        return Alignment(paths=paths, cost=cost, truncated=truncated and strategy != "first")
    grid = make_grid(src, tgt, resources, granularity)
    width = band
    while True:
        low, high = min(0, n - m) - width, max(0, n - m) + width
        table = _fill(grid, max(low, -m), min(high, n))
        # A band whose corner is not exact is widened without back-tracking: its paths would
        # be dropped (a long pair of unrelated sentences enumerated max_paths paths per band).
        if _corner_exact(table, n, m):
            paths, truncated, visited = _backtrack(grid, table, first_only, limit)
            if _certified(table, n, m, visited):
                break
        # Every cheapest path lies on diagonals d with |d| + |n - m - d| <= cost <= the banded
        # cost, so this width is enough for the corner condition; grow at least geometrically.
        needed = int((table.at(n, m) - abs(n - m)) // 2)
        width = max(2 * width, needed)
    if strategy == "first":
        truncated = False
    return Alignment(paths=paths, cost=table.at(n, m), truncated=truncated)
