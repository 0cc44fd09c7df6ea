"""Compare hypothesis and reference M2 files (ChERRANT ``compare_m2_for_evaluation.py``).

Semantics kept exactly, because the published MuCGEC numbers depend on them:

* Each ``A`` line becomes a key, grouped by annotator id (the last field). Alternative
  alignments ``T<r>-A<k>`` share the id r, so their edits are UNIONED and a key present in k
  alternatives counts k times.
* A block without edits is one ``noop`` edit of annotator 0; noop never counts.
* A sentence whose only reference annotator has only an ``NA`` edit is skipped (0/0/0).
* The best (hypothesis annotator, reference annotator) pair per sentence is chosen greedily in
  file order on the F of (running corpus totals + candidate), F ROUNDED to 4 decimals; ties go
  to larger TP, then smaller FP, then smaller FN, then the earlier pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from scoring.gec.counts import Counts
from scoring.gec.m2 import M2Block, M2Edit

TYPE_CHECKING = False  # not imported from typing, see the result types below

MODES = ("correction", "ds", "dt", "cse")
CAT_LEVELS = (1, 2, 3)
METRIC_VERSION = "1"

Key = tuple[object, ...]
EditDict = dict[Key, list[str]]


class CompareError(ValueError):
    """Hypothesis and reference M2 files that cannot be compared; names the block."""


# Result types are named tuples, not frozen dataclasses: importing dataclasses costs ~12 ms
# of each `compare` run, which issue #17 times against ChERRANT's whole script. Type checkers
# read the NamedTuple classes; at run time the same fields come from collections.namedtuple
# (typing.NamedTuple would import typing, ~3 ms). A test checks both field lists agree.
if TYPE_CHECKING:
    from typing import NamedTuple

    class Scores(NamedTuple):
        tp: int
        fp: int
        fn: int
        p: float  # rounded to 4 decimals, as ChERRANT prints
        r: float
        f: float

    class SentenceResult(NamedTuple):
        # The field shadows tuple.index(), which has no use on a result.
        index: int  # type: ignore[assignment]  # 0-based block index
        line: int  # 1-based line of the hypothesis S line (0 if unknown)
        tp: int
        fp: int
        fn: int
        hyp_annotator: int | None  # chosen pair; None when the sentence was skipped
        ref_annotator: int | None
        skipped: str | None  # "not-annotatable" / "reference-count" or None
        # TP/FP/FN per category of the chosen pair; empty when skipped or when ``cat`` was not
        # given (as CompareResult.categories: counting them is a third of the comparison).
        categories: dict[str, tuple[int, int, int]]

    class CompareResult(NamedTuple):
        tp: int
        fp: int
        fn: int
        p: float
        r: float
        f: float
        beta: float
        mode: str
        max_refs: int | None
        reference_num: int | None
        categories: dict[str, Scores]  # empty unless cat was given
        sentences: list[SentenceResult]
        signature: str
        source_mismatches: list[int]  # block indices, 0-based

else:
    from collections import namedtuple

    Scores = namedtuple("Scores", ["tp", "fp", "fn", "p", "r", "f"])
    SentenceResult = namedtuple(
        "SentenceResult",
        ["index", "line", "tp", "fp", "fn", "hyp_annotator", "ref_annotator", "skipped"]
        + ["categories"],
    )
    CompareResult = namedtuple(
        "CompareResult",
        ["tp", "fp", "fn", "p", "r", "f", "beta", "mode", "max_refs", "reference_num"]
        + ["categories", "sentences", "signature", "source_mismatches"],
    )


def scores(tp: int, fp: int, fn: int, beta: float = 0.5) -> Scores:
    """Counts with ChERRANT's P/R/F, rounded to 4 decimals."""
    return Scores(tp, fp, fn, *Counts(tp, fp, fn).prf(beta, digits=4))


# What a block without edits stands for: one noop edit of annotator 0 (never counted).
_NOOP_EDIT = M2Edit(-1, -1, "noop", "-NONE-", 0)


def _edit_dicts(block: M2Block, max_refs: int | None, mode: str) -> dict[int, EditDict]:
    """Per annotator: edit key -> the categories of the edits with that key, in file order.

    Written as one loop per mode because it runs for every block of both files (issue #17:
    ``compare`` must not be slower than ChERRANT's own script).
    """
    edits = [edit for target in block.targets for edit in target.edits]
    if max_refs is not None:
        edits = [edit for edit in edits if edit.annotator < max_refs]
    if not edits:
        edits = [_NOOP_EDIT]
    by_annotator: dict[int, EditDict] = {}
    keyed: EditDict | None
    key: Key
    if mode == "correction":
        for start, end, cat, cor, coder in edits:
            keyed = by_annotator.get(coder)
            if keyed is None:
                keyed = by_annotator[coder] = {}
            if cat == "UNK":
                continue  # UNK edits only make sense for detection
            key = (start, end, cor.replace(" ", ""))
            cats = keyed.get(key)
            if cats is None:
                keyed[key] = [cat]
            else:
                cats.append(cat)
        return by_annotator
    for start, end, cat, cor, coder in edits:
        keyed = by_annotator.setdefault(coder, {})
        if mode == "dt":
            if start == -1:
                keyed.setdefault((start, start), []).append(cat)
            elif start == end and start >= 0:
                keyed.setdefault((start, start + 1), []).append(cat)
            else:
                for token in range(start, end):
                    keyed.setdefault((token, token + 1), []).append(cat)
        elif mode == "ds":
            keyed.setdefault((start, end), []).append(cat)
        elif cat != "UNK":  # cse
            keyed.setdefault((start, end, cat, cor.replace(" ", "")), []).append(cat)
    return by_annotator


def _pair_counts(hyp: EditDict, ref: EditDict) -> tuple[int, int, int]:
    """TP, FP, FN of one (hypothesis, reference) annotator pair: ``_compare_pair`` without
    the categories, which are only needed for the pair finally chosen."""
    tp = fp = fn = 0
    for key, hyp_cats in hyp.items():
        if hyp_cats[0] == "noop":
            continue
        ref_cats = ref.get(key)
        if ref_cats is not None:
            tp += len(ref_cats)  # the reference's categories count the TPs
        else:
            fp += len(hyp_cats)
    for key, ref_cats in ref.items():
        if ref_cats[0] != "noop" and key not in hyp:
            fn += len(ref_cats)
    return tp, fp, fn


def _compare_pair(hyp: EditDict, ref: EditDict) -> tuple[int, int, int, dict[str, list[int]]]:
    tp = fp = fn = 0
    cats: dict[str, list[int]] = {}
    for key, hyp_cats in hyp.items():
        if hyp_cats[0] == "noop":
            continue
        ref_cats = ref.get(key)
        if ref_cats is not None:
            for cat in ref_cats:  # the reference's categories count the TPs
                tp += 1
                cats.setdefault(cat, [0, 0, 0])[0] += 1
        else:
            for cat in hyp_cats:
                fp += 1
                cats.setdefault(cat, [0, 0, 0])[1] += 1
    for key, ref_cats in ref.items():
        if ref_cats[0] == "noop":
            continue
        if key not in hyp:
            for cat in ref_cats:
                fn += 1
                cats.setdefault(cat, [0, 0, 0])[2] += 1
    return tp, fp, fn, cats


def _category_key(cat: str, level: int) -> str | None:
    if cat == "UNK":
        return cat
    if level == 1:
        return cat[0]
    if level == 2:
        return cat[2:]
    return cat


def compare_m2(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    *,
    max_refs: int | None = None,
    reference_num: int | None = None,
    mode: str = "correction",
    beta: float = 0.5,
    cat: int | None = None,
    signature_extra: str = "",
) -> CompareResult:
    """Corpus TP/FP/FN/P/R/F of hypothesis blocks against reference blocks.

    ``max_refs`` keeps reference (and hypothesis) annotators 0..k-1 (MuCGEC's "first k
    references"); ``reference_num`` scores only sentences with exactly that many reference
    annotators. ``mode``: correction (default), ds (span detection), dt (token detection),
    cse (correction + type). ``cat`` 1/2/3 fills the per-category table.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if cat is not None and cat not in CAT_LEVELS:
        raise ValueError(f"cat must be one of {CAT_LEVELS}, got {cat!r}")
    if max_refs is not None and max_refs < 1:
        raise ValueError(f"max_refs must be at least 1, got {max_refs}")
    if len(hyp_blocks) != len(ref_blocks):
        where = ""
        for index, (hyp_block, ref_block) in enumerate(zip(hyp_blocks, ref_blocks, strict=False)):
            if hyp_block.source != ref_block.source:
                where = (
                    f"; the first sentence whose sources differ is number {index + 1} "
                    f"(hypothesis line {hyp_block.line}, reference line {ref_block.line})"
                )
                break
        raise CompareError(
            f"the hypothesis has {len(hyp_blocks)} sentences but the reference has "
            f"{len(ref_blocks)}{where}"
        )
    total_tp = total_fp = total_fn = 0
    total_cats: dict[str, list[int]] = {}
    sentences: list[SentenceResult] = []
    mismatches: list[int] = []
    for index, (hyp_block, ref_block) in enumerate(zip(hyp_blocks, ref_blocks, strict=True)):
        if hyp_block.source != ref_block.source:
            # ChERRANT does not check sources (its own demo files differ in one character),
            # so a mismatch is reported, not fatal.
            mismatches.append(index)
        hyp = _edit_dicts(hyp_block, max_refs, mode)
        ref = _edit_dicts(ref_block, max_refs, mode)
        if reference_num is not None and len(ref) != reference_num:
            sentences.append(
                SentenceResult(index, hyp_block.line, 0, 0, 0, None, None, "reference-count", {})
            )
            continue
        if len(ref) == 1:
            only = next(iter(ref.values()))
            if len(only) == 1 and next(iter(only.values()))[0] == "NA":
                sentences.append(
                    SentenceResult(
                        index, hyp_block.line, 0, 0, 0, None, None, "not-annotatable", {}
                    )
                )
                continue
        if len(hyp) == 1 and len(ref) == 1:
            # One candidate pair: it is the best whatever its F (saves the F computation).
            hyp_id, hyp_edits = next(iter(hyp.items()))
            ref_id, ref_edits = next(iter(ref.items()))
            best = _pair_counts(hyp_edits, ref_edits)
            best_pair: tuple[int | None, int | None] = (hyp_id, ref_id)
        else:
            best = (0, 0, 0)
            best_f = -1.0
            best_pair = (None, None)
            for hyp_id, hyp_edits in hyp.items():
                for ref_id, ref_edits in ref.items():
                    tp, fp, fn = candidate = _pair_counts(hyp_edits, ref_edits)
                    f = Counts(total_tp + tp, total_fp + fp, total_fn + fn).f_score(beta, digits=4)
                    b_tp, b_fp, b_fn = best
                    if (
                        f > best_f
                        or (f == best_f and tp > b_tp)
                        or (f == best_f and tp == b_tp and fp < b_fp)
                        or (f == best_f and tp == b_tp and fp == b_fp and fn < b_fn)
                    ):
                        best, best_f, best_pair = candidate, f, (hyp_id, ref_id)
        best_cats: dict[str, list[int]] = {}
        if cat is not None and best_pair[0] is not None and best_pair[1] is not None:
            best_cats = _compare_pair(hyp[best_pair[0]], ref[best_pair[1]])[3]
        total_tp += best[0]
        total_fp += best[1]
        total_fn += best[2]
        for name, counts in best_cats.items():
            into = total_cats.setdefault(name, [0, 0, 0])
            for position in range(3):
                into[position] += counts[position]
        sentences.append(
            SentenceResult(
                index,
                hyp_block.line,
                *best,
                best_pair[0],
                best_pair[1],
                None,
                {name: (c[0], c[1], c[2]) for name, c in best_cats.items()},
            )
        )
    categories: dict[str, Scores] = {}
    if cat is not None:
        grouped: dict[str, list[int]] = {}
        for name, counts in total_cats.items():
            key = _category_key(name, cat)
            assert key is not None
            into = grouped.setdefault(key, [0, 0, 0])
            for position in range(3):
                into[position] += counts[position]
        categories = {
            name: scores(grouped[name][0], grouped[name][1], grouped[name][2], beta)
            for name in sorted(grouped)
        }
    p, r, f = Counts(total_tp, total_fp, total_fn).prf(beta, digits=4)
    signature = "|".join(
        part
        for part in (
            f"metric=cherrant-f{beta:g}",
            f"version={METRIC_VERSION}",
            f"mode={mode}",
            f"refs={'all' if max_refs is None else f'first{max_refs}'}",
            f"refnum={'any' if reference_num is None else reference_num}",
            signature_extra,
        )
        if part
    )
    return CompareResult(
        total_tp,
        total_fp,
        total_fn,
        p,
        r,
        f,
        beta,
        mode,
        max_refs,
        reference_num,
        categories,
        sentences,
        signature,
        mismatches,
    )


def reference_count_curve(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    ks: Sequence[int],
    **options: object,
) -> list[CompareResult]:
    """Scores with the first k references for each k (MuCGEC's reference-count curve)."""
    return [compare_m2(hyp_blocks, ref_blocks, max_refs=k, **options) for k in ks]  # type: ignore[arg-type]
