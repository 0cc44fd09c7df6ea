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
from gecscore.errors import GECError
from gecscore.metric import (
    Gold,
    Metric,
    MetricConfig,
    References,
    Result,
    SentenceScore,
    check_corpus,
)
from gecscore.signature import Signature

UNITS = ("word", "char")
# The reference's metric version: gec-metrics 0.1.1's GREEN (the formulas above).
METRIC_VERSION = "gec-metrics-0.1.1"

IntArray = npt.NDArray[np.int64]


def units(sentence: str, unit: str) -> Sequence[str]:
    """The units of a (stripped) sentence: words split on single spaces, or characters."""
    sentence = sentence.strip()
    if not sentence:
        return ()
    return sentence.split(" ") if unit == "word" else sentence


def _three_way(s: int, h: int, r: int) -> tuple[int, int, int]:
    tp = max(s - max(r, h), 0) + max(min(r, h) - s, 0) + min(s, h, r)
    fp = max(min(s, r) - h, 0) + max(h - max(s, r), 0)
    fn = max(min(s, h) - r, 0) + max(r - max(s, h), 0)
    return tp, fp, fn


def counts_of(source: NgramCounts, hypothesis: NgramCounts, reference: NgramCounts) -> IntArray:
    """(TP, FP, FN) per order (an ``order x 3`` int array) of one hypothesis and one reference."""
    out = np.zeros((len(source), 3), dtype=np.int64)
    for k, (s, h, r) in enumerate(zip(source, hypothesis, reference, strict=True)):
        tp = fp = fn = 0
        for ngram in s.keys() | h.keys() | r.keys():
            a, b, c = _three_way(s.get(ngram, 0), h.get(ngram, 0), r.get(ngram, 0))
            tp += a
            fp += b
            fn += c
        out[k] = (tp, fp, fn)
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


class GreenCorpus:
    """Sources and references prepared once (n-gram counts), to score many systems."""

    def __init__(
        self,
        sources: Sequence[str],
        references: Sequence[Sequence[str]],
        *,
        n: int = 4,
        beta: float = 2.0,
        unit: str = "word",
    ) -> None:
        check_corpus(sources, sources, references)
        self.n, self.beta, self.unit = n, beta, unit
        self.size = len(sources)
        self.references = len(references)
        self._sources = [self._ngrams(line) for line in sources]
        self._source_text = [line.strip() for line in sources]
        self._references = [
            [self._ngrams(refs[i]) for refs in references] for i in range(self.size)
        ]
        # Most sentences of most systems are left unchanged: their counts, computed once.
        self._unchanged: dict[int, list[IntArray]] = {}

    def _ngrams(self, sentence: str) -> NgramCounts:
        found = units(sentence, self.unit)
        if not found:
            return [Counter() for _ in range(self.n)]
        return ngram_counts(found, self.n)

    def table(self, hypotheses: Sequence[str]) -> list[list[IntArray]]:
        """Per sentence and reference, the ``order x 3`` (TP, FP, FN) counts."""
        if len(hypotheses) != self.size:
            raise GECError(f"{len(hypotheses)} hypotheses for {self.size} sources")
        out = []
        for i, line in enumerate(hypotheses):
            source = self._sources[i]
            if line.strip() == self._source_text[i]:
                cached = self._unchanged.get(i)
                if cached is None:
                    cached = [counts_of(source, source, ref) for ref in self._references[i]]
                    self._unchanged[i] = cached
                out.append(cached)
                continue
            hyp = self._ngrams(line)
            out.append([counts_of(source, hyp, ref) for ref in self._references[i]])
        return out

    def score(self, hypotheses: Sequence[str]) -> GreenScores:
        chosen: list[int] = []
        sentence_scores: list[float] = []
        best_counts = np.zeros((self.size, self.n, 3), dtype=np.int64)
        for i, per_reference in enumerate(self.table(hypotheses)):
            best, best_score = 0, green_from_counts(per_reference[0].tolist(), self.beta)
            for k in range(1, len(per_reference)):
                value = green_from_counts(per_reference[k].tolist(), self.beta)
                if best_score < value:  # the first best reference wins a tie
                    best, best_score = k, value
            chosen.append(best)
            sentence_scores.append(best_score)
            best_counts[i] = per_reference[best]
        corpus = green_from_counts(best_counts.sum(axis=0).tolist(), self.beta)
        return GreenScores(corpus, sentence_scores, chosen, best_counts)

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
        if self.unit not in UNITS:
            raise GECError(f"GREEN unit must be one of {', '.join(UNITS)}, got {self.unit!r}")
        if self.n < 1:
            raise GECError(f"GREEN n must be at least 1, got {self.n}")
        if not self.beta > 0:
            raise GECError(f"GREEN beta must be positive, got {self.beta}")


class GREEN(Metric):
    """GREEN (Koyama et al. 2024) in the library's calling convention. Sentence scores are
    gec-metrics' ``score_sentence`` values; ``details`` has ``chosen`` (the reference each
    sentence took), ``counts`` (summed TP/FP/FN per order) and the options."""

    name = "green"
    Config = GREENConfig

    def corpus(self, sources: Sequence[str], references: Sequence[Sequence[str]]) -> GreenCorpus:
        """Sources and references prepared once, to score several systems."""
        config = self.config
        assert isinstance(config, GREENConfig)
        return GreenCorpus(sources, references, n=config.n, beta=config.beta, unit=config.unit)

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        if isinstance(references, Gold):
            raise GECError("GREEN scores against corrected text, not M2 edits")
        corpus = self.corpus(sources, references)
        return self.result(corpus, corpus.score(hypotheses))

    def result(self, corpus: GreenCorpus, scores: GreenScores) -> Result:
        return Result(
            metric=self.name,
            score=scores.score,
            signature=corpus.signature(),
            beta=corpus.beta,
            sentences=tuple(SentenceScore(value) for value in scores.sentence_scores),
            details={
                "n": corpus.n,
                "unit": corpus.unit,
                "chosen": list(scores.chosen),
                "counts": scores.counts.sum(axis=0).tolist(),
            },
        )
