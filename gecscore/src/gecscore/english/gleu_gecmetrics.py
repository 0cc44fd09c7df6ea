"""GLEU as gec-metrics 0.1.1 computes it (``get_metric("gleu")``), for comparing with the
meta-evaluation figures it prints (SEEDA EW_edit Pearson 0.9008).

It is not cnap/gec-ranking's ``compute_gleu`` (that one is :mod:`gecscore.english.gleu`, equal
to the published CoNLL-14 scores); gec-metrics rewrites GLEU with GREEN's counts (Koyama et al.
2024), which changes two things:

* per n-gram of the hypothesis (counts s, h, r; sentences split on single spaces, not
  stripped): TP = TI + TK - UD and FP = OI + 2 UD with TI = max(min(r, h) - s, 0),
  TK = min(s, h, r), OI = max(h - max(s, r), 0), UD = max(min(s, h) - r, 0) -- source n-grams
  missing from the reference are counted with their frequency, where ``compute_gleu`` drops
  an n-gram's count once its key is in the reference;
* the references are drawn with Python 3's ``random.seed(j * 101)`` and ``random.randint(0,
  R - 1)`` per sentence (``compute_gleu`` is Python 2, whose ``randint`` draws differently).

Corpus score: per draw, precision per order = TP / (TP + FP) (1 when FP = 0) over the summed
counts, GLEU = exp(min(0, 1 - ref_len / hyp_len) + mean log precision) (0 when a precision is
0 or less); the mean over the draws (500).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.errors import InputError
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    check_corpus,
)
from gecscore.options import check_count
from gecscore.signature import Signature

__all__ = [
    "GLEUGecMetrics",
    "GLEUGecMetricsConfig",
    "ITERATIONS",
    "ORDER",
    "gecmetrics_gleu",
]


ITERATIONS = 500
ORDER = 4


def _ngrams(sentence: str, order: int) -> list[Counter[tuple[str, ...]]]:
    if sentence == "":
        return [Counter() for _ in range(order)]
    words = sentence.split(" ")
    return [
        Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
        for n in range(1, order + 1)
    ]


def _counts(source: str, hypothesis: str, reference: str, order: int) -> list[tuple[int, int]]:
    """(TP, FP) per order of one hypothesis against one reference."""
    out = []
    for s_counts, h_counts, r_counts in zip(
        _ngrams(source, order), _ngrams(hypothesis, order), _ngrams(reference, order), strict=True
    ):
        tp = fp = 0
        for ngram, h in h_counts.items():
            s, r = s_counts.get(ngram, 0), r_counts.get(ngram, 0)
            ud = max(min(s, h) - r, 0)
            tp += max(min(r, h) - s, 0) + min(s, h, r) - ud
            fp += max(h - max(s, r), 0) + 2 * ud
        out.append((tp, fp))
    return out


def _score(counts: list[list[int]], hyp_len: int, ref_len: int, order: int) -> float:
    log_bp = min(0, 1 - ref_len / hyp_len)
    precisions = [1.0 if fp == 0 else tp / (tp + fp) for tp, fp in counts]
    if any(p <= 0 for p in precisions):
        return 0
    return math.exp(log_bp + sum(math.log(p) for p in precisions) / order)


def gecmetrics_gleu(
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    iterations: int = ITERATIONS,
    order: int = ORDER,
) -> float:
    """gec-metrics 0.1.1's corpus GLEU (``references[k][i]``: reference k of sentence i)."""
    n_refs = len(references)
    table = [
        [_counts(sources[i], hyp, ref[i], order) for ref in references]
        for i, hyp in enumerate(hypotheses)
    ]
    ref_lens = [[len(ref[i].split(" ")) for ref in references] for i in range(len(sources))]
    hyp_len = sum(len(hyp.split(" ")) for hyp in hypotheses)
    draws = random.Random()
    scores = []
    for j in range(iterations):
        draws.seed(j * 101)
        chosen = [draws.randint(0, n_refs - 1) for _ in range(len(sources))]
        summed = [[0, 0] for _ in range(order)]
        for i, k in enumerate(chosen):
            for n, (tp, fp) in enumerate(table[i][k]):
                summed[n][0] += tp
                summed[n][1] += fp
        ref_len = sum(ref_lens[i][k] for i, k in enumerate(chosen))
        scores.append(_score(summed, hyp_len, ref_len, order))
    return sum(scores) / len(scores)


@dataclass(frozen=True)
class GLEUGecMetricsConfig(MetricConfig):
    iterations: int = ITERATIONS
    order: int = ORDER

    def __post_init__(self) -> None:
        check_count(self.iterations, "iterations")
        check_count(self.order, "order")


class GLEUGecMetrics(Metric):
    """gec-metrics 0.1.1's GLEU in the library's calling convention (corpus score only)."""

    name = "gleu-gecm"
    Config = GLEUGecMetricsConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        if isinstance(references, Gold) or isinstance(hypotheses, Gold):
            raise InputError("gleu-gecm scores corrected text, not M2 edits")
        config = self.config
        assert isinstance(config, GLEUGecMetricsConfig)
        score = gecmetrics_gleu(
            sources, hypotheses, references, iterations=config.iterations, order=config.order
        )
        signature = Signature(
            "gleu-gecm",
            "gec-metrics-0.1.1",
            (
                ("order", str(config.order)),
                ("refs", str(len(references))),
                ("iterations", str(config.iterations)),
            ),
        ).text
        return Result(metric=self.name, score=score, signature=signature)
