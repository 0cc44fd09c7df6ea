"""The bridge to the optional compiled core (``gecscore._alignfill``, built from _alignfill.c):
its substitution-cost memo, and the fill, back-track and certificate run in C."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence

from gecscore.align import table
from gecscore.align.costs import _features, substitution_costs
from gecscore.align.table import AlignmentTooLarge, Op
from gecscore.resources import ConfusionSets, Resources

__all__ = [
    "native_enabled",
]


try:  # the optional compiled core (_alignfill.c; built by the package's setup.py)
    from gecscore import _alignfill

    HAVE_NATIVE = True
except ImportError:  # not built: the pure-Python fill (table.py) gives the same results
    HAVE_NATIVE = False


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
            native.table, src_ids, tgt_ids, band, first_only, max_paths, table.MAX_TABLE_SLOTS
        )
        if isinstance(result, tuple):
            return result
        if isinstance(result, int):
            raise AlignmentTooLarge(
                f"sentence pair too long and too different to align exactly ({len(src)} x "
                f"{len(tgt)} tokens would need a band of {result} diagonals; limit "
                f"{table.MAX_TABLE_SLOTS} cells)"
            )
        native.add_missing(result, resources, granularity)
