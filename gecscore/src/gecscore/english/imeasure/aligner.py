"""The reference tool's three-way (and two-way) alignment of source, hypothesis and reference,
and the detection and correction counts of its columns (numpy, batched by anti-diagonal)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from gecscore.english.imeasure.counts import AspectCounts, SentenceCounts

__all__ = [
    "IntArray",
    "Triple",
    "align_counts",
    "align_counts_many",
    "alignment_columns",
]


_GAP = ""  # the gap symbol of the reference's alignments (no token is empty)
_GAP_COST = 2
_MISMATCH_COST = 3
_TWO_GAPS = 2 * _GAP_COST

# Costs stay below 6 x (sum of the three lengths): 32 bits halve the memory traffic.
_COST = np.int32
IntArray = npt.NDArray[np.int32]


def _column_counts(columns: Iterable[tuple[str, str, str]]) -> SentenceCounts:
    d_tp = d_tn = d_fp = d_fn = 0
    c_tp = c_fp = c_fn = c_fpn = 0
    for src, hyp, ref in columns:
        if src == hyp:
            if hyp == ref:
                d_tn += 1
            else:
                d_fn += 1
        elif src == ref:
            d_fp += 1
        else:
            d_tp += 1
            if hyp == ref:
                c_tp += 1
            else:
                c_fp += 1
                c_fn += 1
                c_fpn += 1
    return SentenceCounts(
        AspectCounts(d_tp, d_tn, d_fp, d_fn, 0),
        AspectCounts(c_tp, d_tn, d_fp + c_fp, d_fn + c_fn, c_fpn),
    )


def _codes(*sequences: Sequence[str]) -> list[IntArray]:
    vocabulary: dict[str, int] = {}
    return [
        np.array([vocabulary.setdefault(t, len(vocabulary)) for t in s], dtype=_COST)
        for s in sequences
    ]


def _mismatch(a: IntArray, b: IntArray) -> IntArray:
    return np.where(a[:, None] == b[None, :], 0, _MISMATCH_COST).astype(_COST)


def _pairwise_table(cost: IntArray) -> IntArray:
    """Edit-distance tables (gap 2, mismatch 3) of a batch ``cost[..., i, j]``, row by row.

    Row i is min(up + gap, diagonal + cost), then a running minimum along j for the
    left-to-right gaps (subtract the gap ramp, accumulate the minimum, add it back).
    """
    rows, cols = cost.shape[-2] + 1, cost.shape[-1] + 1
    table = np.empty((*cost.shape[:-2], rows, cols), dtype=_COST)
    ramp = _GAP_COST * np.arange(cols, dtype=_COST)
    table[..., 0, :] = ramp
    for i in range(1, rows):
        row = table[..., i, :]
        row[..., 0] = i * _GAP_COST
        row[..., 1:] = np.minimum(
            table[..., i - 1, 1:] + _GAP_COST, table[..., i - 1, :-1] + cost[..., i - 1, :]
        )
        row -= ramp
        table[..., i, :] = np.minimum.accumulate(row, axis=-1) + ramp
    return table


def _pairwise_columns(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, str]]:
    """The reference's pairwise alignment: back-trace preferring match, then gap in b, then a."""
    code_a, code_b = _codes(a, b)
    table = _pairwise_table(_mismatch(code_a, code_b)).tolist()
    columns: list[tuple[str, str]] = []
    i, j = len(a), len(b)
    while i or j:
        if i and j:
            cost = 0 if a[i - 1] == b[j - 1] else _MISMATCH_COST
            if table[i][j] == table[i - 1][j - 1] + cost:
                columns.append((a[i - 1], b[j - 1]))
                i, j = i - 1, j - 1
                continue
        if i and table[i][j] == table[i - 1][j] + _GAP_COST:
            columns.append((a[i - 1], _GAP))
            i -= 1
            continue
        columns.append((_GAP, b[j - 1]))
        j -= 1
    return columns


Triple = tuple[Sequence[str], Sequence[str], Sequence[str]]


def _threeway_tables(problems: Sequence[Triple]) -> IntArray:
    """Sum-of-pairs cost tables D[b, i, j, k] of the reference for a batch of triples.

    Each triple's table is the corner of the padded batch table (a cell depends only on cells
    with smaller indices). The table is filled by anti-diagonals i + j = t: in the (i, j) rows
    of the table those cells lie n2 rows apart, and so do their predecessors on t - 2 and
    t - 1, so every step works on strided views; the last dependency, D[i, j, k - 1], is a
    running minimum along k.
    """
    n1 = max(len(p[0]) for p in problems)
    n2 = max(len(p[1]) for p in problems)
    n3 = max(len(p[2]) for p in problems)
    batch = len(problems)
    codes = np.full((3, batch, max(n1, n2, n3)), -1, dtype=_COST)
    for b, problem in enumerate(problems):
        vocabulary: dict[str, int] = {}
        for axis, sequence in enumerate(problem):
            codes[axis, b, : len(sequence)] = [
                vocabulary.setdefault(t, len(vocabulary)) for t in sequence
            ]
    x1, x2, x3 = codes[0, :, :n1], codes[1, :, :n2], codes[2, :, :n3]
    c12 = np.where(x1[:, :, None] == x2[:, None, :], 0, _MISMATCH_COST).astype(_COST)
    c13 = np.where(x1[:, :, None] == x3[:, None, :], 0, _MISMATCH_COST).astype(_COST)
    c23 = np.where(x2[:, :, None] == x3[:, None, :], 0, _MISMATCH_COST).astype(_COST)
    table = np.empty((batch, n1 + 1, n2 + 1, n3 + 1), dtype=_COST)
    k_ramp = np.arange(n3 + 1, dtype=_COST)
    i_col = np.arange(n1 + 1, dtype=_COST)[:, None]
    j_col = np.arange(n2 + 1, dtype=_COST)[:, None]
    table[:, :, :, 0] = _pairwise_table(c12) + _GAP_COST * (i_col + np.arange(n2 + 1))
    table[:, :, 0, :] = _pairwise_table(c13) + _GAP_COST * (i_col + k_ramp)
    table[:, 0, :, :] = _pairwise_table(c23) + _GAP_COST * (j_col + k_ramp)
    rows = table.reshape(batch, (n1 + 1) * (n2 + 1), n3 + 1)  # a view: row i * (n2 + 1) + j
    c13_gap = c13 + _TWO_GAPS
    c23_reversed = c23[:, ::-1]  # row n2 - j of it is c23[j - 1]
    c23_gap_reversed = c23_reversed + _TWO_GAPS
    ramp = _TWO_GAPS * k_ramp
    for t in range(2, n1 + n2 + 1):
        lo, hi = max(1, t - n2), min(n1, t - 1)
        if lo > hi:
            continue
        start, stop = t + lo * n2, t + hi * n2 + 1
        # (i - 1, j - 1), (i - 1, j) and (i, j - 1) are n2 + 2, n2 + 1 and 1 rows back.
        both = rows[:, start - n2 - 2 : stop - n2 - 2 : n2]
        prev_i = rows[:, start - n2 - 1 : stop - n2 - 1 : n2]
        prev_j = rows[:, start - 1 : stop - 1 : n2]
        i = np.arange(lo, hi + 1)
        cij = c12[:, i - 1, t - i - 1][:, :, None]
        cik = c13[:, lo - 1 : hi]
        cjk = c23_reversed[:, n2 - t + lo : n2 - t + hi + 1]
        best = both[:, :, :-1] + (cik + cjk + cij)
        np.minimum(best, both[:, :, 1:] + (cij + _TWO_GAPS), out=best)
        np.minimum(best, prev_i[:, :, :-1] + c13_gap[:, lo - 1 : hi], out=best)
        np.minimum(
            best,
            prev_j[:, :, :-1] + c23_gap_reversed[:, n2 - t + lo : n2 - t + hi + 1],
            out=best,
        )
        np.minimum(best, np.minimum(prev_i[:, :, 1:], prev_j[:, :, 1:]) + _TWO_GAPS, out=best)
        block = rows[:, start:stop:n2]
        block[:, :, 1:] = best
        block -= ramp
        # D[i, j, k] = min(best[k], D[i, j, k - 1] + 2 gaps): a running minimum along k.
        rows[:, start:stop:n2] = np.minimum.accumulate(block, axis=2) + ramp
    return table


_UNREACHED = 1 << 29  # a cost no alignment reaches; sums with it stay inside 32 bits


def _through(forward: IntArray, cost: IntArray) -> IntArray:
    """The best pairwise cost through each cell: the prefix table plus the suffix table."""
    backward = _pairwise_table(np.ascontiguousarray(cost[::-1, ::-1]))[::-1, ::-1]
    return forward + backward


def _unreached_table(t12: IntArray, t13: IntArray, t23: IntArray) -> IntArray:
    """A three-way table with its three zero faces filled from the pairwise tables (a face is
    one pair aligned, the third string all gaps) and every other cell unreached."""
    n1, n2, n3 = t12.shape[0] - 1, t12.shape[1] - 1, t13.shape[1] - 1
    table = np.full((n1 + 1, n2 + 1, n3 + 1), _UNREACHED, dtype=_COST)
    k_ramp = np.arange(n3 + 1, dtype=_COST)
    i_col = np.arange(n1 + 1, dtype=_COST)[:, None]
    table[:, :, 0] = t12 + _GAP_COST * (i_col + np.arange(n2 + 1, dtype=_COST))
    table[:, 0, :] = t13 + _GAP_COST * (i_col + k_ramp)
    table[0, :, :] = t23 + _GAP_COST * (np.arange(n2 + 1, dtype=_COST)[:, None] + k_ramp)
    return table


def _bounded_threeway_table(problem: Triple) -> IntArray:
    """The same table as ``_threeway_tables([problem])[0]`` on every cell an optimal alignment
    can pass through; other cells may be larger (never smaller). The back-trace only visits
    cells of optimal alignments and only compares with cells that are on one exactly when the
    whole table's comparison holds, so its columns are the same.

    Carrillo-Lipman bound: the sum-of-pairs cost of an alignment through (i, j, k) is at least
    the sum over the three pairs of the best pairwise cost through the projected cell (prefix
    plus suffix). With an upper bound U on the optimum, only cells whose bound is <= U can be on
    an optimal alignment, so each anti-diagonal only fills the block of (i, k) that holds them.
    If the filled optimum exceeds U, U was too small: it grows and the fill is redone.
    """
    s1, s2, s3 = problem
    n1, n2, n3 = len(s1), len(s2), len(s3)
    c1, c2, c3 = _codes(s1, s2, s3)
    c12, c13, c23 = _mismatch(c1, c2), _mismatch(c1, c3), _mismatch(c2, c3)
    t12, t13, t23 = _pairwise_table(c12), _pairwise_table(c13), _pairwise_table(c23)
    p12, p13, p23 = _through(t12, c12), _through(t13, c13), _through(t23, c23)
    p23_reversed = p23[::-1]  # row n2 - j of it is p23[j]
    lower = int(t12[n1, n2] + t13[n1, n3] + t23[n2, n3])
    k_ramp = np.arange(n3 + 1, dtype=_COST)
    ramp = _TWO_GAPS * k_ramp
    c13_gap = c13 + _TWO_GAPS
    c23_reversed = c23[::-1]
    c23_gap_reversed = c23_reversed + _TWO_GAPS
    slack = 48
    while True:
        upper = lower + slack
        table = _unreached_table(t12, t13, t23)
        rows = table.reshape((n1 + 1) * (n2 + 1), n3 + 1)
        for t in range(2, n1 + n2 + 1):
            lo, hi = max(1, t - n2), min(n1, t - 1)
            if lo > hi:
                continue
            i = np.arange(lo, hi + 1)
            bound = (
                p12[i, t - i][:, None]
                + p13[lo : hi + 1, 1:]
                + p23_reversed[n2 - t + lo : n2 - t + hi + 1, 1:]
            )
            inside = bound <= upper
            i_any = np.flatnonzero(inside.any(axis=1))
            if i_any.size == 0:
                continue
            k_any = np.flatnonzero(inside.any(axis=0))
            a, b = lo + int(i_any[0]), lo + int(i_any[-1])  # i range of the block
            ka, kb = 1 + int(k_any[0]), 1 + int(k_any[-1])  # k range of the block
            start, stop = t + a * n2, t + b * n2 + 1
            both = rows[start - n2 - 2 : stop - n2 - 2 : n2, ka - 1 : kb + 1]
            prev_i = rows[start - n2 - 1 : stop - n2 - 1 : n2, ka - 1 : kb + 1]
            prev_j = rows[start - 1 : stop - 1 : n2, ka - 1 : kb + 1]
            ib = np.arange(a, b + 1)
            cij = c12[ib - 1, t - ib - 1][:, None]
            cik = c13[a - 1 : b, ka - 1 : kb]
            cjk = c23_reversed[n2 - t + a : n2 - t + b + 1, ka - 1 : kb]
            best = both[:, :-1] + (cik + cjk + cij)
            np.minimum(best, both[:, 1:] + (cij + _TWO_GAPS), out=best)
            np.minimum(best, prev_i[:, :-1] + c13_gap[a - 1 : b, ka - 1 : kb], out=best)
            np.minimum(
                best,
                prev_j[:, :-1] + c23_gap_reversed[n2 - t + a : n2 - t + b + 1, ka - 1 : kb],
                out=best,
            )
            np.minimum(best, np.minimum(prev_i[:, 1:], prev_j[:, 1:]) + _TWO_GAPS, out=best)
            block = rows[start:stop:n2, ka - 1 : kb + 1]
            block[:, 1:] = best
            block -= ramp[ka - 1 : kb + 1]
            rows[start:stop:n2, ka - 1 : kb + 1] = (
                np.minimum.accumulate(block, axis=1) + ramp[ka - 1 : kb + 1]
            )
        if int(table[n1, n2, n3]) <= upper:
            return table
        slack *= 4


def _threeway_backtrace(table: IntArray, problem: Triple) -> list[tuple[str, str, str]]:
    """The reference's back-trace: all-match column first, then one gap, then two gaps."""
    s1, s2, s3 = problem
    cell = table.item
    columns: list[tuple[str, str, str]] = []
    i, j, k = len(s1), len(s2), len(s3)
    two = _TWO_GAPS
    while i or j or k:
        here = cell(i, j, k)
        a = s1[i - 1] if i else _GAP
        b = s2[j - 1] if j else _GAP
        c = s3[k - 1] if k else _GAP
        cij = 0 if a == b else _MISMATCH_COST
        cik = 0 if a == c else _MISMATCH_COST
        cjk = 0 if b == c else _MISMATCH_COST
        if i and j and k and here == cell(i - 1, j - 1, k - 1) + cij + cik + cjk:
            columns.append((a, b, c))
            i, j, k = i - 1, j - 1, k - 1
        elif i and j and here == cell(i - 1, j - 1, k) + cij + two:
            columns.append((a, b, _GAP))
            i, j = i - 1, j - 1
        elif i and k and here == cell(i - 1, j, k - 1) + cik + two:
            columns.append((a, _GAP, c))
            i, k = i - 1, k - 1
        elif j and k and here == cell(i, j - 1, k - 1) + cjk + two:
            columns.append((_GAP, b, c))
            j, k = j - 1, k - 1
        elif i and here == cell(i - 1, j, k) + two:
            columns.append((a, _GAP, _GAP))
            i -= 1
        elif j and here == cell(i, j - 1, k) + two:
            columns.append((_GAP, b, _GAP))
            j -= 1
        else:
            columns.append((_GAP, _GAP, c))
            k -= 1
    return columns


@dataclass(frozen=True)
class _Split:
    """A triple with its shared prefix and suffix taken off (they align as all-match columns)."""

    suffix: list[tuple[str, str, str]]  # last column first
    core: Triple
    prefix: list[tuple[str, str, str]]  # last column first
    kind: Literal["same", "pairwise-hyp", "pairwise-ref", "threeway"]


def _split(source: Sequence[str], hypothesis: Sequence[str], reference: Sequence[str]) -> _Split:
    src, hyp, ref = list(source), list(hypothesis), list(reference)
    if src == hyp == ref:
        return _Split([(t, t, t) for t in reversed(src)], ([], [], []), [], "same")
    # A suffix shared by all three is matched column by column: an optimal alignment always
    # does (moving the three last tokens into one column never costs more), and the
    # back-trace tries the all-match column first, so the columns are the reference's.
    suffix: list[tuple[str, str, str]] = []
    while src and hyp and ref and src[-1] == hyp[-1] == ref[-1]:
        token = src.pop()
        hyp.pop()
        ref.pop()
        suffix.append((token, token, token))
    # A shared prefix is matched too. Here the back-trace of the whole table may order tied
    # columns differently (it can leave the prefix region early); the counts were compared
    # with the whole-table back-trace on tie-heavy random triples
    # (gecscore/tests/imeasure/test_cases.py) and on the CoNLL-2014 systems (docs/metrics).
    shared = 0
    while (
        shared < len(src)
        and shared < len(hyp)
        and shared < len(ref)
        and src[shared] == hyp[shared] == ref[shared]
    ):
        shared += 1
    prefix = [(t, t, t) for t in reversed(src[:shared])]
    core = (src[shared:], hyp[shared:], ref[shared:])
    # Same tests, same order as the reference: hypothesis = reference (source different)
    # still takes the three-way path there.
    if list(source) == list(hypothesis):
        return _Split(suffix, core, prefix, "pairwise-hyp")
    if list(source) == list(reference):
        return _Split(suffix, core, prefix, "pairwise-ref")
    return _Split(suffix, core, prefix, "threeway")


# Cells of one padded batch of three-way tables (4 bytes each): about 16 MB.
_BATCH_CELLS = 4_000_000
# Tables at least this big are filled one at a time, only where an optimal alignment can be.
_BOUNDED_CELLS = 300_000


def _columns_many(
    triples: Sequence[Triple], *, bounded_cells: int = _BOUNDED_CELLS
) -> list[list[tuple[str, str, str]]]:
    splits = [_split(*triple) for triple in triples]
    cores: list[list[tuple[str, str, str]]] = [[] for _ in triples]
    threeway: list[int] = []
    for n, split in enumerate(splits):
        src, hyp, ref = split.core
        if split.kind == "pairwise-hyp":
            cores[n] = [(h, h, r) for h, r in _pairwise_columns(hyp, ref)]
        elif split.kind == "pairwise-ref":
            cores[n] = [(r, h, r) for r, h in _pairwise_columns(ref, hyp)]
        elif split.kind == "threeway":
            if (len(src) + 1) * (len(hyp) + 1) * (len(ref) + 1) >= bounded_cells:
                table = _bounded_threeway_table(split.core)
                cores[n] = _threeway_backtrace(table, split.core)
            else:
                threeway.append(n)
    # Batches of similar sizes, so little of a batch table is padding.
    threeway.sort(key=lambda n: tuple(sorted(len(s) for s in splits[n].core)))
    while threeway:
        batch = [threeway.pop()]
        dims = [len(s) + 1 for s in splits[batch[0]].core]
        while threeway:
            candidate = [
                max(d, len(s) + 1) for d, s in zip(dims, splits[threeway[-1]].core, strict=True)
            ]
            if (len(batch) + 1) * candidate[0] * candidate[1] * candidate[2] > _BATCH_CELLS:
                break
            batch.append(threeway.pop())
            dims = candidate
        tables = _threeway_tables([splits[n].core for n in batch])
        for b, n in enumerate(batch):
            cores[n] = _threeway_backtrace(tables[b], splits[n].core)
    return [split.suffix + core + split.prefix for split, core in zip(splits, cores, strict=True)]


def alignment_columns(
    source: Sequence[str], hypothesis: Sequence[str], reference: Sequence[str]
) -> list[tuple[str, str, str]]:
    """The reference tool's alignment of the three token sequences, last column first."""
    return _columns_many([(source, hypothesis, reference)])[0]


def align_counts(
    source: Sequence[str], hypothesis: Sequence[str], reference: Sequence[str]
) -> SentenceCounts:
    """Detection and correction counts of ``hypothesis`` against one ``reference``."""
    return _column_counts(alignment_columns(source, hypothesis, reference))


def align_counts_many(
    triples: Sequence[Triple], *, bounded_cells: int = _BOUNDED_CELLS
) -> list[SentenceCounts]:
    """``align_counts`` of many triples. Three-way tables are filled in batches; those of at
    least ``bounded_cells`` cells one at a time, only where an optimal alignment can pass."""
    return [
        _column_counts(columns) for columns in _columns_many(triples, bounded_cells=bounded_cells)
    ]
