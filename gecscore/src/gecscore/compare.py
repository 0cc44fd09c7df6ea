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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from gecscore.compare_options import edit_filter, filter_fields
from gecscore.counts import Counts, check_beta, precision_recall_f
from gecscore.errors import InputError, OptionError
from gecscore.m2 import M2Block, M2Edit
from gecscore.result_data import counted_fields
from gecscore.signature import Field, Signature

if TYPE_CHECKING:
    from typing import Any

    from gecscore.compare_options import PairTracer

__all__ = [
    "CAT_LEVELS",
    "METRIC_VERSION",
    "MODES",
    "CompareError",
    "CompareResult",
    "EditDict",
    "Key",
    "Scores",
    "SentenceResult",
    "add_counts",
    "category_key",
    "choose_pair",
    "compare_m2",
    "compare_pair",
    "edit_dicts",
    "group_categories",
    "reference_count_curve",
    "result_fields",
    "scores",
    "signature",
]

MODES = ("cs", "cse", "ds", "dt")
CAT_LEVELS = (1, 2, 3)
METRIC_VERSION = "1"

Key = tuple[object, ...]
EditDict = dict[Key, list[str]]


class CompareError(InputError):
    """Hypothesis and reference M2 files that cannot be compared; names the block."""


# Result types are named tuples, not frozen dataclasses: importing dataclasses costs ~12 ms
# of each `compare` run, which is timed against ChERRANT's whole script.
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


def scores(tp: int, fp: int, fn: int, beta: float = 0.5) -> Scores:
    """Counts with ChERRANT's P/R/F, rounded to 4 decimals."""
    return Scores(tp, fp, fn, *Counts(tp, fp, fn).prf(beta, digits=4))


# What a block without edits stands for: one noop edit of annotator 0 (never counted).
_NOOP_EDIT = M2Edit(-1, -1, "noop", "-NONE-", 0)


def edit_dicts(
    block: M2Block,
    max_refs: int | None,
    mode: str,
    keep: Callable[[M2Edit], bool] | None = None,
) -> dict[int, EditDict]:
    """Per annotator: edit key -> the categories of the edits with that key, in file order.

    ``keep`` (``edit_filter``) drops edits after their annotator is counted, as ChERRANT's
    filters do: an annotator whose edits are all dropped stays, with no edit.
    Written as one loop per mode because it runs for every block of both files
    (``compare`` must not be slower than ChERRANT's own script).
    """
    edits = [edit for target in block.targets for edit in target.edits]
    if max_refs is not None:
        edits = [edit for edit in edits if edit.annotator < max_refs]
    if not edits:
        edits = [_NOOP_EDIT]
    by_annotator: dict[int, EditDict] = {}
    if keep is not None:
        for edit in edits:
            by_annotator.setdefault(edit.annotator, {})
        edits = [edit for edit in edits if keep(edit)]
    keyed: EditDict | None
    key: Key
    if mode == "cs":
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
    """TP, FP, FN of one (hypothesis, reference) annotator pair: ``compare_pair`` without
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


def compare_pair(hyp: EditDict, ref: EditDict) -> tuple[int, int, int, dict[str, list[int]]]:
    """TP, FP, FN and per-category [TP, FP, FN] of one hypothesis vs one reference annotator."""
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


def category_key(cat: str, level: int) -> str:
    """The row of ``cat`` in a level-1/2/3 category table (ChERRANT's and ERRANT's ``-cat``)."""
    if cat == "UNK":
        return cat
    if level == 1:
        return cat[0]
    if level == 2:
        return cat[2:]
    return cat


def choose_pair(
    hyp: dict[int, EditDict],
    ref: dict[int, EditDict],
    total: list[int],
    beta: float,
    tracer: PairTracer | None = None,
) -> tuple[tuple[int, int, int], int, int]:
    """The best (hypothesis, reference) annotator pair of a sentence and its TP/FP/FN: the
    best F (rounded) of the running corpus ``total`` [TP, FP, FN] plus the pair's counts;
    ties go to larger TP, then smaller FP, then smaller FN, then the earlier pair."""
    if tracer is None and len(hyp) == 1 and len(ref) == 1:
        # One candidate pair: it is the best whatever its F (saves the F computation).
        hyp_id, hyp_edits = next(iter(hyp.items()))
        ref_id, ref_edits = next(iter(ref.items()))
        return _pair_counts(hyp_edits, ref_edits), hyp_id, ref_id
    total_tp, total_fp, total_fn = total
    best = (0, 0, 0)
    best_f = -1.0
    best_hyp = best_ref = 0
    for hyp_id, hyp_edits in hyp.items():
        for ref_id, ref_edits in ref.items():
            tp, fp, fn = candidate = _pair_counts(hyp_edits, ref_edits)
            matched = total_tp + tp
            # The one P/R/F on totals (no Counts object per candidate: this loop is hot).
            f = precision_recall_f(
                matched, matched + total_fp + fp, matched + total_fn + fn, beta, digits=4
            )[2]
            b_tp, b_fp, b_fn = best
            if (
                f > best_f
                or (f == best_f and tp > b_tp)
                or (f == best_f and tp == b_tp and fp < b_fp)
                or (f == best_f and tp == b_tp and fp == b_fp and fn < b_fn)
            ):
                best, best_f, best_hyp, best_ref = candidate, f, hyp_id, ref_id
            if tracer is not None:
                tracer.pair(hyp_id, hyp_edits, ref_id, ref_edits, candidate, total)
    if tracer is not None:
        tracer.chosen(best_hyp, hyp[best_hyp], best_ref, ref[best_ref])
    return best, best_hyp, best_ref


def add_counts(total: list[int], counts: Sequence[int]) -> None:
    """``total`` [TP, FP, FN] += ``counts`` (in place)."""
    total[0] += counts[0]
    total[1] += counts[1]
    total[2] += counts[2]


def group_categories(total_cats: dict[str, list[int]], level: int) -> dict[str, list[int]]:
    """Per-category [TP, FP, FN] summed into the rows of a level-``level`` table, by name."""
    grouped: dict[str, list[int]] = {}
    for name, counts in total_cats.items():
        add_counts(grouped.setdefault(category_key(name, level), [0, 0, 0]), counts)
    return {name: grouped[name] for name in sorted(grouped)}


def _check_options(mode: str, cat: int | None, max_refs: int | None, beta: float) -> None:
    check_beta(beta)
    if mode not in MODES:
        raise OptionError(f"mode must be one of {MODES}, got {mode!r}")
    if cat is not None and cat not in CAT_LEVELS:
        raise OptionError(f"cat must be one of {CAT_LEVELS}, got {cat!r}")
    if max_refs is not None and max_refs < 1:
        raise OptionError(f"max_refs must be at least 1, got {max_refs}")


def _check_lengths(hyp_blocks: Sequence[M2Block], ref_blocks: Sequence[M2Block]) -> None:
    if len(hyp_blocks) == len(ref_blocks):
        return
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


def _skip_reason(ref: dict[int, EditDict], reference_num: int | None) -> str | None:
    """Why a sentence is not scored: another reference count than asked, or its only
    reference annotator has only an ``NA`` edit."""
    if reference_num is not None and len(ref) != reference_num:
        return "reference-count"
    if len(ref) == 1:
        only = next(iter(ref.values()))
        if len(only) == 1 and next(iter(only.values()))[0] == "NA":
            return "not-annotatable"
    return None


def _compare_sentences(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    *,
    max_refs: int | None,
    reference_num: int | None,
    mode: str,
    beta: float,
    cat: int | None,
    keep: Callable[[M2Edit], bool] | None = None,
    tracer: PairTracer | None = None,
) -> tuple[list[int], dict[str, list[int]], list[SentenceResult], list[int]]:
    """Corpus [TP, FP, FN], per-category counts (with ``cat``), the sentences and the block
    indices whose sources differ, choosing each sentence's pair on the running totals."""
    total = [0, 0, 0]
    total_cats: dict[str, list[int]] = {}
    sentences: list[SentenceResult] = []
    mismatches: list[int] = []
    for index, (hyp_block, ref_block) in enumerate(zip(hyp_blocks, ref_blocks, strict=True)):
        if hyp_block.source != ref_block.source:
            # ChERRANT does not check sources (its own demo files differ in one character),
            # so a mismatch is reported, not fatal.
            mismatches.append(index)
        hyp = edit_dicts(hyp_block, max_refs, mode, keep)
        ref = edit_dicts(ref_block, max_refs, mode, keep)
        if reference_num is not None or len(ref) == 1:  # only then can it be skipped
            skipped = _skip_reason(ref, reference_num)
            if skipped is not None:
                sentences.append(
                    SentenceResult(index, hyp_block.line, 0, 0, 0, None, None, skipped, {})
                )
                continue
        if tracer is not None:
            tracer.sentence(index, hyp_block)
        best, hyp_id, ref_id = choose_pair(hyp, ref, total, beta, tracer)
        best_cats: dict[str, list[int]] = {}
        if cat is not None:
            best_cats = compare_pair(hyp[hyp_id], ref[ref_id])[3]
            for name, counts in best_cats.items():
                add_counts(total_cats.setdefault(name, [0, 0, 0]), counts)
        total[0] += best[0]
        total[1] += best[1]
        total[2] += best[2]
        sentences.append(
            SentenceResult(
                index,
                hyp_block.line,
                *best,
                hyp_id,
                ref_id,
                None,
                {name: (c[0], c[1], c[2]) for name, c in best_cats.items()},
            )
        )
    return total, total_cats, sentences, mismatches


def signature(
    *,
    beta: float,
    mode: str,
    max_refs: int | None,
    reference_num: int | None,
    fields: Sequence[Field] = (),
) -> Signature:
    """The signature of a comparison; ``fields`` add how the M2 was made (input, extraction)."""
    return Signature(
        f"cherrant-f{beta:g}",
        METRIC_VERSION,
        (
            # "correction": the spelling first published for cs (stored signatures)
            ("mode", "correction" if mode == "cs" else mode),
            ("refs", "all" if max_refs is None else f"first{max_refs}"),
            ("refnum", "any" if reference_num is None else str(reference_num)),
            *fields,
        ),
    )


def compare_m2(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    *,
    max_refs: int | None = None,
    reference_num: int | None = None,
    mode: str = "cs",
    beta: float = 0.5,
    cat: int | None = None,
    signature_fields: Sequence[Field] = (),
    single: bool = False,
    multi: bool = False,
    filt: Sequence[str] = (),
    tracer: PairTracer | None = None,
) -> CompareResult:
    """Corpus TP/FP/FN/P/R/F of hypothesis blocks against reference blocks.

    ``max_refs`` keeps reference (and hypothesis) annotators 0..k-1 (MuCGEC's "first k
    references"); ``reference_num`` scores only sentences with exactly that many reference
    annotators. ``mode``: cs (span-based correction, the default), ds (span detection), dt (token detection),
    cse (correction + type). ``cat`` 1/2/3 fills the per-category table.
    ``signature_fields`` end the signature (e.g. ``(("input", "m2"),)``).
    ``single`` / ``multi`` / ``filt``: ChERRANT's edit filters (``edit_filter``); ``tracer``
    watches the choice of each sentence's pair (``PairTracer``).
    """
    _check_options(mode, cat, max_refs, beta)
    _check_lengths(hyp_blocks, ref_blocks)
    total, total_cats, sentences, mismatches = _compare_sentences(
        hyp_blocks,
        ref_blocks,
        max_refs=max_refs,
        reference_num=reference_num,
        mode=mode,
        beta=beta,
        cat=cat,
        keep=edit_filter(single, multi, filt),
        tracer=tracer,
    )
    categories: dict[str, Scores] = {}
    if cat is not None:
        categories = {
            name: scores(tp, fp, fn, beta)
            for name, (tp, fp, fn) in group_categories(total_cats, cat).items()
        }
    tp, fp, fn = total
    p, r, f = Counts(tp, fp, fn).prf(beta, digits=4)
    sig = signature(
        beta=beta,
        mode=mode,
        max_refs=max_refs,
        reference_num=reference_num,
        fields=(*filter_fields(single, multi, filt), *signature_fields),
    )
    return CompareResult(
        tp,
        fp,
        fn,
        p,
        r,
        f,
        beta,
        mode,
        max_refs,
        reference_num,
        categories,
        sentences,
        sig.text,
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


def result_fields(result: CompareResult) -> dict[str, Any]:
    """The ``cherrant`` Result of a comparison, unrounded (``ChERRANT``, ``compare --json``)."""
    return counted_fields(
        "cherrant",
        counts=(result.tp, result.fp, result.fn),
        beta=result.beta,
        signature=result.signature,
        sentence_counts=[(s.tp, s.fp, s.fn) for s in result.sentences],
        categories=result.categories,
        details={
            "mode": result.mode,
            "skipped": [s.index for s in result.sentences if s.skipped],
            "source_mismatches": list(result.source_mismatches),
        },
    )
