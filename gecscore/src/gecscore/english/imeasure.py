"""I-measure (Felice & Briscoe 2015), as ``mfelice/imeasure`` @fc79fdf run with ``-nomix``.

The published CoNLL-2014 scores (Chollampatt & Ng 2018, nusnlp/gecmetrics) were made with that
commit: the gold M2 converted by its ``m2_to_ixml.py``, then ``ieval.py -nomix`` with the other
options at their defaults (maximise correction WAcc, optimise per sentence, WAcc weight 2,
F beta 1). ``-nomix`` is what reproduces them: the default (mixing annotators) builds the
cartesian product of every error's alternatives, 3.5e13 candidate references for sentence 333
of CoNLL-2014, and never finishes; the published INPUT sentence scores also agree with
``-nomix`` on all 1,312 sentences and with mixing on only 1,210.

What one sentence gets (all reproduced here):

* Candidate references: one per annotator who has edits (that annotator's corrections applied
  to the source, from the last span to the first; an edit that would empty the sentence is
  skipped), plus the source itself when the block has no ``A`` line at all or an annotator has
  only a ``noop`` line. Identical texts are one candidate. Candidates are tried in the order of
  a Python 2 dict keyed by their text, because the first of equally good ones is kept.
* Corrections are tokenised as ``m2_to_ixml.py`` does with NLTK's ``word_tokenize``; only the
  rules of it that can change an already tokenised M2 correction are applied (a ``,`` or ``:``
  before a non-digit, a final ``.``, ``...``, ``;@#$%&?!``, brackets and ``--`` are split off).
* Alignment: the exact three-way sum-of-pairs alignment of source, hypothesis and reference
  (match 0, mismatch 3, gap 2 per pair), or the two-way one when two of the three are equal
  (source = hypothesis or source = reference; hypothesis = reference still takes the three-way
  path, as in the reference code), with its back-trace preferences, so ties between alignments
  are broken the same way.
* Each column counts for detection and correction: TP, TN, FP, FN and FPN (a changed token that
  the reference changes differently is an FP, an FN and an FPN for correction, a TP for
  detection). ``WAcc = (w TP + TN) / (w (TP + FP) + TN + FN - (w + 1) FPN / 2)``;
  the baseline is the same with the source as hypothesis; ``I`` is the relative improvement of
  the system's WAcc over the baseline's, in [-1, 1] (``floor(WAcc)`` when they are equal).
* The reference kept is the one with the highest correction WAcc (ties: I, accuracy, then the
  same for detection), per sentence (``optimise="sentence"``, default) or for the running corpus
  totals (``optimise="corpus"``). Corpus scores come from the summed counts.

The alignment is computed with numpy, one anti-diagonal of (source, hypothesis) positions at a
time, for batches of similar tables; big tables only where an optimal alignment can pass
(Carrillo-Lipman bound). A suffix shared by the three texts is matched directly (an optimal
alignment always matches it, and the back-trace prefers that), and so is a shared prefix (the
counts checked equal, see ``_split``). docs/metrics/imeasure.md has the details.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from gecscore.counts import precision_recall_f
from gecscore.english.gleu import tokens as python2_tokens
from gecscore.m2 import NOOP_TYPE, M2Block
from gecscore.signature import COLON, Signature

METRIC_VERSION = "imeasure-fc79fdf-nomix"
Optimise = Literal["sentence", "corpus"]
OPTIMISE: tuple[Optimise, ...] = ("sentence", "corpus")

_GAP = ""  # the gap symbol of the reference's alignments (no token is empty)
_GAP_COST = 2
_MISMATCH_COST = 3
_TWO_GAPS = 2 * _GAP_COST

# Costs stay below 6 x (sum of the three lengths): 32 bits halve the memory traffic.
_COST = np.int32
IntArray = npt.NDArray[np.int32]


# --- counts and scores ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    """Token counts of one aspect (detection or correction)."""

    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0
    fpn: int = 0  # tokens that are both an FP and an FN (correction only)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp,
            self.tn + other.tn,
            self.fp + other.fp,
            self.fn + other.fn,
            self.fpn + other.fpn,
        )

    def prf(self, beta: float) -> tuple[float, float, float]:
        # ieval.py's arithmetic: the "imeasure" convention of the library's one P/R/F.
        return precision_recall_f(
            self.tp, self.tp + self.fp, self.tp + self.fn, beta, convention="imeasure"
        )

    def f_score(self, beta: float) -> float:
        return self.prf(beta)[2]

    def accuracy(self) -> float:
        denominator = self.tp + self.tn + self.fp + self.fn - self.fpn
        # No token at all (an empty source, hypothesis and reference): the reference divides by
        # zero; here there was nothing to do and nothing was done.
        return (self.tp + self.tn) / denominator if denominator else 1.0

    def weighted_accuracy(self, weight: float) -> float:
        # Operation order of the reference (the values are exact in binary anyway).
        numerator = weight * self.tp + self.tn
        denominator = (
            weight * (self.tp + self.fp) + self.tn + self.fn - (weight + 1) * (self.fpn / 2)
        )
        return numerator / denominator if denominator else 1.0  # no token at all


def improvement(wacc_sys: float, wacc_base: float) -> float:
    """I: relative WAcc improvement over the baseline, in [-1, 1]."""
    if wacc_sys == wacc_base:
        return float(math.floor(wacc_sys))
    if wacc_sys > wacc_base:
        return (wacc_sys - wacc_base) / (1.0 - wacc_base)
    return wacc_sys / wacc_base - 1.0


@dataclass(frozen=True)
class SentenceCounts:
    """Detection and correction counts of one hypothesis against one reference."""

    detection: Counts
    correction: Counts

    def __add__(self, other: SentenceCounts) -> SentenceCounts:
        return SentenceCounts(self.detection + other.detection, self.correction + other.correction)


ZERO = SentenceCounts(Counts(), Counts())


@dataclass(frozen=True)
class AspectScores:
    counts: Counts
    base: Counts
    p: float
    r: float
    f: float
    acc: float
    acc_base: float
    wacc: float
    wacc_base: float
    i: float

    @classmethod
    def of(cls, counts: Counts, base: Counts, *, weight: float, beta: float) -> AspectScores:
        wacc = counts.weighted_accuracy(weight)
        wacc_base = base.weighted_accuracy(weight)
        return cls(
            counts,
            base,
            *counts.prf(beta),
            counts.accuracy(),
            base.accuracy(),
            wacc,
            wacc_base,
            improvement(wacc, wacc_base),
        )

    def key(self) -> tuple[float, float, float]:
        """What the reference maximises for this aspect (WAcc, then I, then accuracy)."""
        return (self.wacc, self.i, self.acc)


@dataclass(frozen=True)
class IMeasureConfig:
    weight: float = 2.0  # weight of TP and FP in WAcc (-w)
    beta: float = 1.0  # beta of the complementary F score (-b)
    optimise: Optimise = "sentence"  # -opt:sent|corpus

    def __post_init__(self) -> None:
        if self.optimise not in OPTIMISE:
            raise ValueError(
                f"optimise must be one of {', '.join(OPTIMISE)}, got {self.optimise!r}"
            )
        if not self.weight > 0:
            raise ValueError(f"the WAcc weight must be positive, got {self.weight}")

    @property
    def signature(self) -> str:
        return Signature(
            "imeasure",
            METRIC_VERSION,
            (
                ("level", "token"),
                ("max", "correction-wacc"),
                ("optimise", self.optimise),
                ("w", f"{self.weight:g}"),
                ("beta", f"{self.beta:g}"),
                ("refs", "per-annotator"),
            ),
            style=COLON,
        ).text


@dataclass(frozen=True)
class SentenceResult:
    reference: int  # index of the chosen candidate in GoldSentence.references
    counts: SentenceCounts
    base: SentenceCounts
    detection: AspectScores
    correction: AspectScores

    @property
    def imeasure(self) -> float:
        return self.correction.i


@dataclass(frozen=True)
class IMeasureResult:
    detection: AspectScores
    correction: AspectScores
    sentences: list[SentenceResult]
    config: IMeasureConfig = field(default_factory=IMeasureConfig)

    @property
    def imeasure(self) -> float:
        """Corpus I of correction, a fraction in [-1, 1] (the reference prints it x 100)."""
        return self.correction.i

    @property
    def signature(self) -> str:
        return self.config.signature


# --- gold references ----------------------------------------------------------------------------

# NLTK word_tokenize rules (nltk 3.4.5, as run by m2_to_ixml.py) that can split an already
# tokenised correction, in NLTK's order. Quote conversion and contraction splitting are not
# reproduced (no CoNLL-2014 correction has a double quote or an unsplit contraction).
_CORRECTION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile("([^\\.])(\\.)([\\]\\)}>\"'\u00bb\u201d\u2019 ]*)\\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.\.\."), r" ... "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> "),
    (re.compile(r"--"), r" -- "),
)


def tokenise_correction(text: str) -> str:
    """A correction as m2_to_ixml.py writes it (first alternative, NLTK-style splitting)."""
    text = text.split("||")[0]
    for pattern, replacement in _CORRECTION_RULES:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def _python2_hash(text: str) -> int:
    """CPython 2.7's hash of a str/unicode (no -R), as a signed 64-bit integer."""
    if not text:
        return 0
    mask = (1 << 64) - 1
    value = ord(text[0]) << 7
    for char in text:
        value = ((1000003 * value) ^ ord(char)) & mask
    value ^= len(text)
    if value >= 1 << 63:
        value -= 1 << 64
    return -2 if value == -1 else value


def python2_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a Python 2.7 dict (or set) after inserting ``keys`` in order."""
    unique = list(dict.fromkeys(keys))
    size = 8
    table: list[str | None] = [None] * size

    def insert(slots: list[str | None], key: str) -> None:
        mask = len(slots) - 1
        hashed = _python2_hash(key)
        index = hashed & mask
        perturb = hashed & ((1 << 64) - 1)
        while slots[index & mask] is not None:
            index = ((index << 2) + index + perturb + 1) & ((1 << 64) - 1)
            perturb >>= 5
        slots[index & mask] = key

    for fill, key in enumerate(unique, start=1):
        insert(table, key)
        if fill * 3 >= size * 2:  # dictresize / set_table_resize to 4 x used
            new_size = 8
            while new_size <= 4 * fill:
                new_size <<= 1
            old = table
            size = new_size
            table = [None] * size
            for existing in old:
                if existing is not None:
                    insert(table, existing)
    return [key for key in table if key is not None]


@dataclass(frozen=True)
class GoldSentence:
    source: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]  # candidate references, in the order they are tried
    base: tuple[SentenceCounts, ...]  # the source as hypothesis, against each reference


def _apply_corrections(source: list[str], edits: Sequence[tuple[int, int, str]]) -> str:
    corrected = source[:]
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        previous = corrected[:]
        corrected[start:end] = text.split()
        if not corrected:  # NUCLE has long deletions with no correction: keep the sentence
            corrected = previous
    joined = " ".join(corrected)
    return joined if joined.strip() else " ".join(source)


def candidate_references(block: M2Block) -> list[tuple[str, ...]]:
    """The references ``ieval.py -nomix`` tries for one gold block, in its order."""
    source = python2_tokens(block.source)
    source_text = " ".join(source)
    by_annotator: dict[int, list[tuple[int, int, str]]] = {}
    present: set[int] = set()
    for target in block.targets:
        for edit in target.edits:
            present.add(edit.annotator)
            if (edit.start, edit.end) == (-1, -1) and edit.type.lower() == NOOP_TYPE:
                continue
            text = "" if edit.correction == "-NONE-" else tokenise_correction(edit.correction)
            by_annotator.setdefault(edit.annotator, []).append((edit.start, edit.end, text))
    texts: list[str] = []
    if not present or len(by_annotator) < len(present):
        texts.append(source_text)
    # Annotators are visited in the order of a Python 2 set of their ids (as strings), filled
    # in the order their alternatives appear in the converted file (by error span).
    first_span = {a: min((s, e) for s, e, _ in edits) for a, edits in by_annotator.items()}
    annotators = python2_order(
        str(a) for a in sorted(by_annotator, key=lambda a: (first_span[a], a))
    )
    for annotator in annotators:
        merged: dict[tuple[int, int], str] = {}
        for start, end, text in by_annotator[int(annotator)]:
            key = (start, end)
            merged[key] = f"{merged[key]} {text}" if key in merged else text
        edits = [(s, e, t) for (s, e), t in merged.items()]
        texts.append(_apply_corrections(list(source), edits))
    return [tuple(text.split()) for text in python2_order(texts)]


def gold_sentences(blocks: Sequence[M2Block]) -> list[GoldSentence]:
    """Candidate references and their baseline counts for every block of a gold M2."""
    sources = [tuple(python2_tokens(block.source)) for block in blocks]
    references = [tuple(candidate_references(block)) for block in blocks]
    base = iter(
        align_counts_many(
            [(s, s, r) for s, refs in zip(sources, references, strict=True) for r in refs]
        )
    )
    return [
        GoldSentence(source, refs, tuple(next(base) for _ in refs))
        for source, refs in zip(sources, references, strict=True)
    ]


# --- alignment ----------------------------------------------------------------------------------


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
        Counts(d_tp, d_tn, d_fp, d_fn, 0),
        Counts(c_tp, d_tn, d_fp + c_fp, d_fn + c_fn, c_fpn),
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


# --- scoring -------------------------------------------------------------------------------------


def _sentence_key(detection: AspectScores, correction: AspectScores) -> tuple[float, ...]:
    return correction.key() + detection.key()


def _scores(
    counts: SentenceCounts, base: SentenceCounts, config: IMeasureConfig
) -> tuple[AspectScores, AspectScores]:
    return (
        AspectScores.of(counts.detection, base.detection, weight=config.weight, beta=config.beta),
        AspectScores.of(counts.correction, base.correction, weight=config.weight, beta=config.beta),
    )


Cache = dict[tuple[tuple[str, ...], ...], SentenceCounts]


def _fill_cache(
    systems: Iterable[Sequence[Sequence[str]]], gold: Sequence[GoldSentence], cache: Cache
) -> None:
    """Align every (source, hypothesis, reference) the systems need, in batches, once."""
    needed: dict[tuple[tuple[str, ...], ...], None] = {}
    for hypotheses in systems:
        for hypothesis, sentence in zip(hypotheses, gold, strict=True):
            hyp = tuple(hypothesis)
            if hyp != sentence.source:
                for reference in sentence.references:
                    key = (sentence.source, hyp, reference)
                    if key not in cache:
                        needed[key] = None
    keys = list(needed)
    cache.update(zip(keys, align_counts_many([(s, h, r) for s, h, r in keys]), strict=True))


def score_corpus(
    hypotheses: Sequence[Sequence[str]],
    gold: Sequence[GoldSentence],
    config: IMeasureConfig | None = None,
    *,
    cache: Cache | None = None,
) -> IMeasureResult:
    """I-measure of one system: ``hypotheses`` are token lists, one per gold sentence."""
    config = config or IMeasureConfig()
    if len(hypotheses) != len(gold):
        raise ValueError(f"{len(hypotheses)} hypotheses for {len(gold)} gold sentences")
    cache = {} if cache is None else cache
    _fill_cache([hypotheses], gold, cache)
    total, total_base = ZERO, ZERO
    results: list[SentenceResult] = []
    for hypothesis, sentence in zip(hypotheses, gold, strict=True):
        hyp = tuple(hypothesis)
        best: tuple[float, ...] | None = None
        chosen: SentenceResult | None = None
        for index, (reference, base) in enumerate(
            zip(sentence.references, sentence.base, strict=True)
        ):
            # The source as hypothesis is the baseline's own alignment.
            counts = base if hyp == sentence.source else cache[(sentence.source, hyp, reference)]
            detection, correction = _scores(counts, base, config)
            if config.optimise == "corpus":
                compared = _sentence_key(*_scores(total + counts, total_base + base, config))
            else:
                compared = _sentence_key(detection, correction)
            if best is None or compared > best:
                best = compared
                chosen = SentenceResult(index, counts, base, detection, correction)
        assert chosen is not None  # every gold sentence has at least one reference
        results.append(chosen)
        total += chosen.counts
        total_base += chosen.base
    detection, correction = _scores(total, total_base, config)
    return IMeasureResult(detection, correction, results, config)


def score_systems(
    hyp_lines_by_system: Mapping[str, Sequence[str]],
    gold_blocks: Sequence[M2Block] | Sequence[GoldSentence],
    config: IMeasureConfig | None = None,
) -> dict[str, IMeasureResult]:
    """I-measure of several systems (raw output lines, one per gold block) in one pass."""
    gold: Sequence[GoldSentence]
    if gold_blocks and isinstance(gold_blocks[0], M2Block):
        gold = gold_sentences([b for b in gold_blocks if isinstance(b, M2Block)])
    else:
        gold = [g for g in gold_blocks if isinstance(g, GoldSentence)]
    tokenised = {
        system: [python2_tokens(line) for line in lines]
        for system, lines in hyp_lines_by_system.items()
    }
    for system, hypotheses in tokenised.items():
        if len(hypotheses) != len(gold):
            raise ValueError(f"{system}: {len(hypotheses)} lines for {len(gold)} gold sentences")
    cache: Cache = {}
    _fill_cache(tokenised.values(), gold, cache)  # one batched alignment pass for all systems
    return {
        system: score_corpus(hypotheses, gold, config, cache=cache)
        for system, hypotheses in tokenised.items()
    }
