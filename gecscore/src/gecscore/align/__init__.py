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
  about 4x less CPU per reference on MuCGEC dev (docs/benchmarks.md). ``GEC_PURE_PYTHON=1``
  switches it off.

Modules: ``costs`` (the substitution cost model), ``table`` (the banded table and its Python
fill), ``backtrack`` (paths and the band certificate), ``native`` (the bridge to the C core);
``align()`` here ties them together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.align.backtrack import _backtrack, _certified, _corner_exact
from gecscore.align.costs import (
    ALIGN_PUNCTUATION,
    char_pinyin,
    substitution_cost,
    substitution_costs,
    word_pinyin,
)
from gecscore.align.native import HAVE_NATIVE, _align_native, native_enabled
from gecscore.align.table import (
    INF,
    MAX_TABLE_SLOTS,
    AlignmentTooLarge,
    Op,
    _fill,
    make_grid,
)
from gecscore.resources import Resources

__all__ = [
    "ALIGN_PUNCTUATION",
    "DEFAULT_MAX_PATHS",
    "FIRST_ONLY_LENGTH_GAP",
    "HAVE_NATIVE",
    "INF",
    "MAX_TABLE_SLOTS",
    "Alignment",
    "AlignmentTooLarge",
    "Op",
    "align",
    "char_pinyin",
    "make_grid",
    "native_enabled",
    "substitution_cost",
    "substitution_costs",
    "word_pinyin",
]

# Back-tracking bound: at most this many complete cheapest paths are enumerated per
# alignment. The largest count on all MuCGEC-dev inputs is far below it (docs/metrics/char.md).
DEFAULT_MAX_PATHS = 10_000
# ChERRANT follows only the first operation of each cell when the lengths differ by more.
FIRST_ONLY_LENGTH_GAP = 10


@dataclass(frozen=True)
class Alignment:
    paths: list[list[Op]]  # cheapest paths in ChERRANT's depth-first order
    cost: float
    truncated: bool  # True when max_paths stopped the enumeration


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
