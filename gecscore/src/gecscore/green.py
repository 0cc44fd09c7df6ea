"""GREEN (Koyama et al. 2024): n-gram F-beta over source, hypothesis and reference, word or char
units, as gec-metrics 0.1.1 (``gec_metrics.metrics.GREEN``) computes it.

Each sentence is stripped; its units are the words of ``split(" ")`` (``unit="word"``: single
spaces, so two spaces make an empty word, as the reference does) or its characters
(``unit="char"``, spaces included); an empty sentence has no n-gram. For every n-gram of order
1..n with counts ``s`` (source), ``h`` (hypothesis), ``r`` (reference)::

    TP = max(s - max(r, h), 0) + max(min(r, h) - s, 0) + min(s, h, r)   # kept/deleted/inserted right
    FP = max(min(s, r) - h, 0) + max(h - max(s, r), 0)                   # over-deleted/inserted
    FN = max(min(s, h) - r, 0) + max(r - max(s, h), 0)                   # under-deleted/inserted

Per order, precision = TP / (TP + FP) (1 when FP = 0) and recall = TP / (TP + FN) (1 when
FN = 0); P and R are the geometric means over the orders (0 when one is 0), and the score is
F-beta of P and R (beta 2 by default). Each sentence takes the reference with the best
sentence score (the first on a tie); the corpus score is GREEN of the chosen references' counts
summed per order. Counts are summed as integers and the float steps are the reference's, in its
order, so the numbers are the same to the last bit.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gecscore.english.gleu import NgramCounts, ngram_counts
from gecscore.errors import InputError
from gecscore.metric import (
    Gold,
    Metric,
    MetricConfig,
    References,
    Result,
    SentenceScore,
    check_corpus,
)
from gecscore.options import check_beta, check_choice, check_count
from gecscore.signature import Signature

__all__ = [
    "OrderCounts",
    "GREEN",
    "GREENConfig",
    "GreenCorpus",
    "GreenScores",
    "IntArray",
    "METRIC_VERSION",
    "UNITS",
    "changed_ngrams",
    "counts_of",
    "unchanged_counts",
    "green_from_counts",
    "signature",
    "units",
]


UNITS = ("word", "char")
# The reference's metric version: gec-metrics 0.1.1's GREEN (the formulas above).
METRIC_VERSION = "gec-metrics-0.1.1"

IntArray = npt.NDArray[np.int64]


def units(sentence: str, unit: str) -> Sequence[str]:
    """The units of a (stripped) sentence: words split on single spaces, or characters (a
    string); none for an empty sentence."""
    sentence = sentence.strip()
    if not sentence:
        return []
    return sentence.split(" ") if unit == "word" else sentence


def _three_way(s: int, h: int, r: int) -> tuple[int, int, int]:
    """(TP, FP, FN) of one n-gram counted s, h, r times in source, hypothesis, reference
    (the module's formulas; conditional expressions instead of min/max calls: this is the
    inner loop)."""
    hr_max, hr_min = (h, r) if h > r else (r, h)
    sr_max, sr_min = (s, r) if s > r else (r, s)
    sh_max, sh_min = (s, h) if s > h else (h, s)
    tp = (s - hr_max if s > hr_max else 0) + (hr_min - s if hr_min > s else 0)
    tp += s if s < hr_min else hr_min
    fp = (sr_min - h if sr_min > h else 0) + (h - sr_max if h > sr_max else 0)
    fn = (sh_min - r if sh_min > r else 0) + (r - sh_max if r > sh_max else 0)
    return tp, fp, fn


# (TP, FP, FN) per n-gram order (not gecscore.counts.Counts, the edit counts).
OrderCounts = list[tuple[int, int, int]]


def counts_of(source: NgramCounts, hypothesis: NgramCounts, reference: NgramCounts) -> OrderCounts:
    """(TP, FP, FN) per order of one hypothesis and one reference, over every n-gram."""
    out: OrderCounts = []
    for s, h, r in zip(source, hypothesis, reference, strict=True):
        tp = fp = fn = 0
        for ngram in s.keys() | h.keys() | r.keys():
            a, b, c = _three_way(s.get(ngram, 0), h.get(ngram, 0), r.get(ngram, 0))
            tp += a
            fp += b
            fn += c
        out.append((tp, fp, fn))
    return out


def unchanged_counts(source: NgramCounts, reference: NgramCounts) -> OrderCounts:
    """``counts_of(source, source, reference)`` (a hypothesis equal to its source) without
    going over every n-gram: there ``_three_way(s, s, r)`` is (min(s, r), 0, |s - r|), and
    the sum of |s - r| is the two totals less twice the sum of min(s, r)."""
    out: OrderCounts = []
    for s, r in zip(source, reference, strict=True):
        if len(r) < len(s):
            tp = sum(
                count if count < own else own for g, count in r.items() if (own := s.get(g, 0))
            )
        else:
            tp = sum(
                count if count < own else own for g, count in s.items() if (own := r.get(g, 0))
            )
        out.append((tp, 0, sum(s.values()) + sum(r.values()) - 2 * tp))
    return out


def changed_ngrams(
    source: Sequence[str], hypothesis: Sequence[str], order: int
) -> list[dict[tuple[str, ...], int]]:
    """Per order, the n-grams whose count differs between hypothesis and source, with the
    difference (hypothesis minus source). Only n-grams that reach into the part between the
    common prefix and the common suffix can differ, so only those are counted."""
    ls, lh = len(source), len(hypothesis)
    limit = min(ls, lh)
    p = 0
    while p < limit and source[p] == hypothesis[p]:
        p += 1
    q = 0
    while q < limit - p and source[ls - 1 - q] == hypothesis[lh - 1 - q]:
        q += 1
    out = []
    for n in range(1, order + 1):
        delta: Counter[tuple[str, ...]] = Counter()
        for tokens, length, sign in ((hypothesis, lh, 1), (source, ls, -1)):
            # Start i: not wholly inside the prefix (i + n > p), not inside the suffix.
            for i in range(max(0, p - n + 1), min(length - n, length - q - 1) + 1):
                delta[tuple(tokens[i : i + n])] += sign
        out.append({ngram: d for ngram, d in delta.items() if d})
    return out


def green_from_counts(counts: Sequence[Sequence[float]], beta: float) -> float:
    """GREEN of per-order (TP, FP, FN) counts: the geometric means of P and R, then F-beta
    (the reference's ``aggregate_score``, the same float operations in the same order)."""
    precisions = [1.0 if fp == 0 else tp / (tp + fp) for tp, fp, _ in counts]
    recalls = [1.0 if fn == 0 else tp / (tp + fn) for tp, _, fn in counts]
    n = len(counts)
    p = 0.0 if 0 in precisions else math.exp(sum(math.log(x) for x in precisions) / n)
    r = 0.0 if 0 in recalls else math.exp(sum(math.log(x) for x in recalls) / n)
    if not p + r:
        return 0.0
    return float((1 + (beta**2)) * p * r) / (((beta**2) * p) + r)


@dataclass(frozen=True)
class GreenScores:
    """One system's GREEN: the corpus score, the sentence scores, and the chosen reference's
    per-order counts of every sentence (``sentences x order x 3``, for resampling)."""

    score: float
    sentence_scores: list[float]
    chosen: list[int]  # index of the chosen reference per sentence
    counts: IntArray


@dataclass(frozen=True)
class _Prepared:
    """One sentence's source units, source and reference n-grams, and the counts of a
    hypothesis equal to its source against each reference."""

    units: Sequence[str]
    source: NgramCounts
    references: list[NgramCounts]
    unchanged: list[OrderCounts]


class GreenCorpus:
    """Sources and references prepared once, to score many systems.

    The counts of a hypothesis equal to its source are computed once per sentence and
    reference (most sentences of most systems are unchanged); a changed hypothesis adds to
    them the change of each n-gram whose count differs from the source's (what
    :func:`changed_ngrams` finds around the edited span). Integer counts: the same numbers as
    counting every n-gram (:func:`counts_of`), which the tests check.

    With ``keep=False`` nothing is prepared up front: each sentence is prepared when it is
    scored and dropped after, for scoring one system (the n-gram counters of every source
    and reference take ~400 KB a sentence in character units: 8 GB for 20,000 sentences)."""

    def __init__(
        self,
        sources: Sequence[str],
        references: Sequence[Sequence[str]],
        *,
        n: int = 4,
        beta: float = 2.0,
        unit: str = "word",
        keep: bool = True,
    ) -> None:
        check_corpus(sources, sources, references)
        self.n, self.beta, self.unit = n, beta, unit
        self.size = len(sources)
        self.references = len(references)
        self._source_lines, self._reference_lines = sources, references
        self._prepared = [self._prepare(i) for i in range(self.size)] if keep else None

    def _prepare(self, index: int) -> _Prepared:
        found = units(self._source_lines[index], self.unit)
        source = self._ngrams(found)
        references = [self._ngrams(units(refs[index], self.unit)) for refs in self._reference_lines]
        unchanged = [unchanged_counts(source, ref) for ref in references]
        return _Prepared(found, source, references, unchanged)

    def _ngrams(self, found: Sequence[str]) -> NgramCounts:
        if not found:
            return [Counter() for _ in range(self.n)]
        return ngram_counts(found, self.n)

    def sentence_counts(self, index: int, hypothesis: str) -> list[OrderCounts]:
        """Per reference, the (TP, FP, FN) per order of sentence ``index``'s hypothesis."""
        prepared = self._prepare(index) if self._prepared is None else self._prepared[index]
        source_units = prepared.units
        hyp_units = units(hypothesis, self.unit)
        unchanged = prepared.unchanged
        if hyp_units == source_units:
            return unchanged
        changed = changed_ngrams(source_units, hyp_units, self.n)
        source = prepared.source
        out = []
        for ref, base in zip(prepared.references, unchanged, strict=True):
            counts = []
            for (tp, fp, fn), delta, s_counts, r_counts in zip(
                base, changed, source, ref, strict=True
            ):
                for ngram, d in delta.items():
                    s = s_counts.get(ngram, 0)
                    r = r_counts.get(ngram, 0)
                    new_tp, new_fp, new_fn = _three_way(s, s + d, r)
                    # _three_way(s, s, r), which the base counts hold: (min(s, r), 0, |s - r|).
                    tp += new_tp - (s if s < r else r)
                    fp += new_fp
                    fn += new_fn - (s - r if s > r else r - s)
                counts.append((tp, fp, fn))
            out.append(counts)
        return out

    def score(self, hypotheses: Sequence[str]) -> GreenScores:
        if len(hypotheses) != self.size:
            raise InputError(f"{len(hypotheses)} hypotheses for {self.size} sources")
        chosen: list[int] = []
        sentence_scores: list[float] = []
        best_counts: list[OrderCounts] = []
        for i, line in enumerate(hypotheses):
            per_reference = self.sentence_counts(i, line)
            best, best_score = 0, green_from_counts(per_reference[0], self.beta)
            for k in range(1, len(per_reference)):
                value = green_from_counts(per_reference[k], self.beta)
                if best_score < value:  # the first best reference wins a tie
                    best, best_score = k, value
            chosen.append(best)
            sentence_scores.append(best_score)
            best_counts.append(per_reference[best])
        table = np.array(best_counts, dtype=np.int64).reshape(self.size, self.n, 3)
        corpus = green_from_counts(table.sum(axis=0).tolist(), self.beta)
        return GreenScores(corpus, sentence_scores, chosen, table)

    def signature(self) -> str:
        return signature(n=self.n, beta=self.beta, unit=self.unit, references=self.references)


def signature(*, n: int, beta: float, unit: str, references: int) -> str:
    return Signature(
        "green",
        METRIC_VERSION,
        (("n", str(n)), ("beta", f"{beta:g}"), ("unit", unit), ("refs", str(references))),
    ).text


@dataclass(frozen=True)
class GREENConfig(MetricConfig):
    """GREEN's options; the defaults are gec-metrics 0.1.1's (n 4, beta 2.0, word units)."""

    n: int = 4
    beta: float = 2.0
    unit: str = "word"

    def __post_init__(self) -> None:
        check_choice(self.unit, "unit", UNITS)
        check_count(self.n, "n")
        check_beta(self.beta)


class GREEN(Metric):
    """GREEN (Koyama et al. 2024) in the library's calling convention. Sentence scores are
    gec-metrics' ``score_sentence`` values; ``details`` has ``chosen`` (the reference each
    sentence took), ``counts`` (summed TP/FP/FN per order) and the options."""

    name = "green"
    Config = GREENConfig

    def corpus(
        self, sources: Sequence[str], references: Sequence[Sequence[str]], *, keep: bool = True
    ) -> GreenCorpus:
        """Sources and references prepared once, to score several systems (``keep=False``:
        each sentence prepared as it is scored, for one system in bounded memory)."""
        config = self.config
        assert isinstance(config, GREENConfig)
        return GreenCorpus(
            sources, references, n=config.n, beta=config.beta, unit=config.unit, keep=keep
        )

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        if isinstance(references, Gold):
            raise InputError("GREEN scores against corrected text, not M2 edits")
        corpus = self.corpus(sources, references, keep=False)  # one system: nothing kept
        return self.result(corpus, corpus.score(hypotheses))

    def result(self, corpus: GreenCorpus, scores: GreenScores) -> Result:
        return Result(
            metric=self.name,
            score=scores.score,
            signature=corpus.signature(),
            beta=corpus.beta,
            f=scores.score,  # GREEN's score is its F-beta
            sentences=tuple(SentenceScore(value) for value in scores.sentence_scores),
            details={
                "n": corpus.n,
                "unit": corpus.unit,
                "chosen": list(scores.chosen),
                "counts": scores.counts.sum(axis=0).tolist(),
            },
        )
