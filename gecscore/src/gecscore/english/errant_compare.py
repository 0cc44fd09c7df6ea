"""ERRANT compare: hypothesis M2 against reference M2, as ``errant_compare`` of errant 3.0.2.

Semantics kept exactly (the published ERRANT numbers depend on them):

* Every ``A`` line of a block becomes a key of its annotator (last ``|||`` field). A block
  without ``A`` lines is one ``noop`` edit of annotator 0; ``noop`` never counts.
* Keys: span correction ``(start, end, correction)`` (default, ``cs``), ``cse`` adds the type,
  ``ds`` is ``(start, end)``, ``dt`` splits each edit into the tokens it touches (an insertion
  touches the token on its right). The correction string is compared as written (spaces kept).
* ``UNK`` edits count only for detection; ``single`` keeps edits 0:1, 1:0, 1:1 (by tokens of the
  correction), ``multi`` keeps the rest; ``filt`` drops the named types. An annotator whose
  edits were all filtered is still an annotator (with no edits).
* Per sentence every (hypothesis annotator, reference annotator) pair is tried in order of first
  appearance; the pair with the best F of the running corpus totals plus the pair's counts, P
  and R ROUNDED to 4 decimals first, wins; ties: more TP, then fewer FP, then fewer FN, then
  the earlier pair. A TP counts once per reference edit of that key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscore.compare import (
    CompareError,
    add_counts,
    choose_pair,
    compare_pair,
    group_categories,
)
from gecscore.compare_options import PairTracer
from gecscore.compare_table import format_table
from gecscore.counts import Counts, check_beta
from gecscore.errors import InputError, OptionError
from gecscore.m2 import NOOP_TYPE, M2Block, M2Edit
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    check_corpus,
)
from gecscore.result_data import counted_fields
from gecscore.signature import Field, Signature

MODES = ("cs", "cse", "ds", "dt")
CAT_LEVELS = (1, 2, 3)
METRIC_VERSION = "errant-3.0.2"

__all__ = [
    "ERRANT",
    "CategoryScores",
    "CompareOptions",
    "ERRANTConfig",
    "ErrantResult",
    "SentenceCounts",
    "compare_blocks",
    "result_fields",
    "edit_dicts",
    "format_result",
]

Key = tuple[object, ...]
EditDict = dict[Key, list[str]]


@dataclass(frozen=True)
class CompareOptions:
    mode: str = "cs"
    beta: float = 0.5
    single: bool = False
    multi: bool = False
    filt: tuple[str, ...] = ()
    cat: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise OptionError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.cat is not None and self.cat not in CAT_LEVELS:
            raise OptionError(f"cat must be one of {CAT_LEVELS}, got {self.cat!r}")
        check_beta(self.beta)

    @property
    def signature(self) -> str:
        fields: list[Field] = [("mode", self.mode)]
        if self.single:
            fields.append(("single", None))
        if self.multi:
            fields.append(("multi", None))
        if self.filt:
            fields.append(("filt", ",".join(self.filt)))
        return Signature(f"errant-f{self.beta:g}", METRIC_VERSION, tuple(fields)).text


@dataclass(frozen=True)
class SentenceCounts:
    index: int  # 0-based sentence index
    tp: int
    fp: int
    fn: int
    hyp_annotator: int
    ref_annotator: int


@dataclass(frozen=True)
class CategoryScores:
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f: float


@dataclass(frozen=True)
class ErrantResult:
    tp: int
    fp: int
    fn: int
    p: float  # rounded to 4 decimals, as errant_compare prints
    r: float
    f: float
    options: CompareOptions
    categories: dict[str, CategoryScores]  # empty unless options.cat is set; sorted by name
    sentences: list[SentenceCounts] = field(default_factory=list)

    @property
    def signature(self) -> str:
        return self.options.signature


def _keep(edit: M2Edit, options: CompareOptions) -> bool:
    detection = options.mode in ("ds", "dt")
    if not detection and edit.type == "UNK":
        return False
    width = edit.end - edit.start
    cor_tokens = len(edit.correction.split())
    if options.single and (width >= 2 or cor_tokens >= 2):
        return False
    if options.multi and width < 2 and cor_tokens < 2:
        return False
    return not (options.filt and edit.type in options.filt)


def _keys(edit: M2Edit, mode: str) -> Iterable[Key]:
    start, end = edit.start, edit.end
    if mode == "dt":
        if start == -1:
            return [(start, start)]
        if start == end:
            return [(start, start + 1)]
        return [(token, token + 1) for token in range(start, end)]
    if mode == "ds":
        return [(start, end)]
    if mode == "cse":
        return [(start, end, edit.type, edit.correction)]
    return [(start, end, edit.correction)]


def edit_dicts(edits: Sequence[M2Edit], options: CompareOptions) -> dict[int, EditDict]:
    """Per annotator: key -> the types of the edits with that key (in file order)."""
    by_annotator: dict[int, EditDict] = {}
    if not edits:
        edits = [M2Edit(-1, -1, NOOP_TYPE, "-NONE-", 0)]
    for edit in edits:
        keyed = by_annotator.setdefault(edit.annotator, {})
        if not _keep(edit, options):
            continue
        for key in _keys(edit, options.mode):
            keyed.setdefault(key, []).append(edit.type)
    return by_annotator


def compare_blocks(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    options: CompareOptions | None = None,
    tracer: PairTracer | None = None,
) -> ErrantResult:
    """Corpus counts of hypothesis blocks against reference blocks (same sentence order).

    The pair of each sentence is chosen as ChERRANT's comparison does (``compare.choose_pair``:
    both copy errant_compare's rule); only the edit keys differ (``edit_dicts``). ``tracer``
    watches every sentence's choice (errant_compare's ``-v``)."""
    options = options or CompareOptions()
    if len(hyp_blocks) != len(ref_blocks):
        raise CompareError(
            f"the hypothesis has {len(hyp_blocks)} sentences but the reference has "
            f"{len(ref_blocks)}"
        )
    total = [0, 0, 0]
    total_cats: dict[str, list[int]] = {}
    sentences: list[SentenceCounts] = []
    beta = options.beta
    for index, (hyp_block, ref_block) in enumerate(zip(hyp_blocks, ref_blocks, strict=True)):
        hyp = edit_dicts(hyp_block.edits, options)
        ref = edit_dicts(ref_block.edits, options)
        if tracer is not None:
            tracer.sentence(index, hyp_block)
        best, hyp_id, ref_id = choose_pair(hyp, ref, total, beta, tracer)
        if options.cat is not None:
            for name, counts in compare_pair(hyp[hyp_id], ref[ref_id])[3].items():
                add_counts(total_cats.setdefault(name, [0, 0, 0]), counts)
        add_counts(total, best)
        sentences.append(SentenceCounts(index, *best, hyp_id, ref_id))
    categories: dict[str, CategoryScores] = {}
    if options.cat is not None:
        for name, (tp, fp, fn) in group_categories(total_cats, options.cat).items():
            categories[name] = CategoryScores(tp, fp, fn, *Counts(tp, fp, fn).prf(beta, digits=4))
    tp, fp, fn = total
    p, r, f = Counts(tp, fp, fn).prf(beta, digits=4)
    return ErrantResult(tp, fp, fn, p, r, f, options, categories, sentences)


def result_fields(result: ErrantResult) -> dict[str, Any]:
    """The ``errant`` Result of a comparison, unrounded (``ERRANT``, ``errant-compare --json``):
    ``details``: ``mode`` and ``categories`` (name -> TP, FP, FN, P, R, F)."""
    return counted_fields(
        "errant",
        counts=(result.tp, result.fp, result.fn),
        beta=result.options.beta,
        signature=result.signature,
        sentence_counts=[(s.tp, s.fp, s.fn) for s in result.sentences],
        categories={name: (c.tp, c.fp, c.fn) for name, c in result.categories.items()},
        details={"mode": result.options.mode},
    )


def format_result(result: ErrantResult) -> str:
    """The text errant_compare prints (category table first when ``cat`` is set)."""
    options = result.options
    values = (result.tp, result.fp, result.fn, result.p, result.r, result.f)
    categories = result.categories if options.cat is not None else None
    return format_table(options.mode, options.beta, values, categories)


@dataclass(frozen=True)
class ERRANTConfig(MetricConfig):
    """``errant_compare``'s options (its defaults); see :class:`CompareOptions`."""

    mode: str = "cs"  # cs, cse, ds or dt
    beta: float = 0.5
    single: bool = False
    multi: bool = False
    filt: tuple[str, ...] = ()
    cat: int | None = None

    def __post_init__(self) -> None:
        self.options()  # its checks, raising OptionError

    def options(self) -> CompareOptions:
        return CompareOptions(self.mode, self.beta, self.single, self.multi, self.filt, self.cat)


def _errant_blocks(sources: Sequence[str], texts: Sequence[Sequence[str]]) -> list[M2Block]:
    """ERRANT M2 blocks of whitespace-tokenised text (``errant_parallel``; needs spaCy)."""
    from gecscore.english.errant_edits import parallel_to_m2_blocks

    for i, source in enumerate(sources):
        if not source.strip():
            raise InputError(f"sentence {i + 1}: empty source (errant_parallel skips it)")
    return parallel_to_m2_blocks(sources, texts)


class ERRANT(Metric):
    """errant_compare's F-beta; ``counts`` (TP, FP, FN), P/R/F at full precision (errant_compare
    prints them rounded to 4 decimals);
    ``sentences`` the counts of each sentence's chosen pair (score: their F); ``details``:
    ``mode`` and ``categories`` (``{name: (tp, fp, fn, p, r, f)}`` when ``cat``). Text
    hypotheses or references get ERRANT's edits (``errant_parallel``: spaCy and errant, the
    ``[english]`` extra); ``Gold`` M2 blocks need neither."""

    name = "errant"
    Config = ERRANTConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        config = self.config
        assert isinstance(config, ERRANTConfig)
        options = config.options()
        hyp_blocks = (
            hypotheses
            if isinstance(hypotheses, Gold)
            else _errant_blocks(sources, [list(hypotheses)])
        )
        ref_blocks = (
            references if isinstance(references, Gold) else _errant_blocks(sources, references)
        )
        result = compare_blocks(hyp_blocks, ref_blocks, options)
        return Result.from_fields(**result_fields(result))
