"""GLEU without tuning (Napoles et al. 2015, updated 2016), as cnap/gec-ranking @50b5032.

Statistics of one hypothesis against its source and ONE reference (whitespace tokens, n = 1..4):
``hyp_len, ref_len`` and per n ``max(|h & r| - |h & (s \\ r)|, 0), max(hyp_len + 1 - n, 0)`` with
n-gram multisets; ``s \\ r`` keeps the source n-grams whose KEY is not in the reference (with
their source counts). Corpus GLEU = ``exp(min(0, 1 - r/c) + mean log precision)`` over summed
statistics, 0 when any statistic is 0. The order is always 4 (the reference script ignores -n).

Several references: the reference script runs 500 iterations; in iteration j it seeds Python's
generator with ``j * 101`` and draws one reference per sentence with Python 2's
``randint(0, R - 1)``, i.e. ``int(random() * R)`` (Python 3's ``randint`` draws differently; its
``seed(int)`` and ``random()`` do not). The score is the mean over iterations. ``draw="python2"``
(default) reproduces this exactly; ``draw="expected"`` is deterministic: the GLEU of the expected
statistics (each sentence's statistics averaged over its references), the value the sampled
mean approaches as the corpus grows (it differs from the mean over draws by the sampling noise
and a Jensen term of order 1/sentences).

Sentence level (``compute_gleu -d``): per sentence, the mean over its references of the smoothed
GLEU (every 0 statistic replaced by 1).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gecscore.errors import InputError, OptionError
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    SentenceScore,
    check_corpus,
)
from gecscore.options import check_choice, check_count
from gecscore.signature import Signature

__all__ = [
    "DRAWS",
    "GLEU",
    "ITERATIONS",
    "METRIC_VERSION",
    "ORDER",
    "GLEUConfig",
    "GleuCorpus",
    "GleuResult",
    "NgramCounts",
    "Stats",
    "corpus_gleu",
    "gleu_from_stats",
    "gleu_from_table",
    "ngram_counts",
    "python2_draws",
    "sentence_stats",
    "tokens",
]

ORDER = 4
ITERATIONS = 500
DRAWS = ("python2", "expected")
METRIC_VERSION = "gec-ranking-50b5032"

Stats = tuple[int, ...]  # (c, r, match1, total1, ..., match4, total4)
NgramCounts = list[Counter[tuple[str, ...]]]

# Python 2 splits byte strings on ASCII whitespace only; Python 3's str.split() would also
# split on NO-BREAK SPACE, IDEOGRAPHIC SPACE, ... and change the token counts.
_ASCII_WHITESPACE = re.compile(r"[ \t\n\r\x0b\x0c]+")


def tokens(line: str) -> list[str]:
    """Whitespace tokens exactly as the Python 2 script sees them (``str.split()`` on bytes)."""
    if line.isascii():
        return line.split()
    return [token for token in _ASCII_WHITESPACE.split(line) if token]


def ngram_counts(words: Sequence[str], order: int = ORDER) -> NgramCounts:
    return [
        Counter(tuple(words[i : i + n]) for i in range(len(words) + 1 - n))
        for n in range(1, order + 1)
    ]


def _clipped_overlap(hyp: Counter[tuple[str, ...]], other: Counter[tuple[str, ...]]) -> int:
    """``sum((hyp & other).values())`` without building the intersection Counter."""
    return sum(min(count, other[key]) for key, count in hyp.items() if key in other)


@dataclass(frozen=True)
class _Reference:
    length: int
    ngrams: NgramCounts
    source_only: NgramCounts  # source n-grams whose key is not in this reference


def _reference(source: NgramCounts, ref_words: Sequence[str]) -> _Reference:
    ref = ngram_counts(ref_words)
    source_only = [
        Counter({key: count for key, count in s.items() if key not in r})
        for s, r in zip(source, ref, strict=True)
    ]
    return _Reference(len(ref_words), ref, source_only)


def _stats(hyp: NgramCounts, hyp_len: int, ref: _Reference) -> Stats:
    stats = [hyp_len, ref.length]
    for n in range(1, ORDER + 1):
        h = hyp[n - 1]
        matches = _clipped_overlap(h, ref.ngrams[n - 1])
        penalty = _clipped_overlap(h, ref.source_only[n - 1])
        stats.append(max(matches - penalty, 0))
        stats.append(max(hyp_len + 1 - n, 0))
    return tuple(stats)


def sentence_stats(source: str, hyp: str, ref: str) -> Stats:
    """The 10 GLEU statistics of one hypothesis against its source and one reference."""
    hyp_words = tokens(hyp)
    reference = _reference(ngram_counts(tokens(source)), tokens(ref))
    return _stats(ngram_counts(hyp_words), len(hyp_words), reference)


def gleu_from_stats(stats: Sequence[float], *, smooth: bool = False) -> float:
    """GLEU of (summed) statistics; ``smooth`` replaces each 0 by 1 (sentence level)."""
    if smooth:
        stats = [value if value != 0 else 1 for value in stats]
    if any(value == 0 for value in stats):
        return 0.0
    c, r = stats[0], stats[1]
    log_precision = (
        sum(math.log(float(stats[i]) / stats[i + 1]) for i in range(2, 2 + 2 * ORDER, 2)) / ORDER
    )
    return math.exp(min(0.0, 1.0 - float(r) / c) + log_precision)


def _mt_key(seed: int) -> list[int]:
    """The init_by_array key Python's ``seed(int)`` uses: 32-bit chunks of abs(seed), low first."""
    seed = abs(seed)
    key = []
    while True:
        key.append(seed & 0xFFFFFFFF)
        seed >>= 32
        if not seed:
            return key


@lru_cache(maxsize=16)
def python2_draws(sentences: int, references: int, iterations: int) -> np.ndarray:
    """Reference index per (iteration, sentence): ``seed(j*101)``, Python 2 ``randint(0, R-1)``.

    Python's ``seed(int)`` is Mersenne Twister ``init_by_array`` of the seed's 32-bit chunks and
    ``random()`` the 53-bit ``(a >> 5, b >> 6)`` draw, which is also what numpy's legacy
    ``RandomState(key).random_sample`` computes; ``int(u * R)`` is Python 2's ``randint``.
    (Checked against ``random.Random`` and Python 2.7 in the tests.)
    """
    draws = np.empty((iterations, sentences), dtype=np.intp)
    for j in range(iterations):
        uniform = np.random.RandomState(_mt_key(j * 101)).random_sample(sentences)
        draws[j] = (uniform * references).astype(np.intp)
    draws.setflags(write=False)
    return draws


@dataclass(frozen=True)
class GleuResult:
    gleu: float  # corpus score (mean over iterations for several references)
    iterations: int  # 1 for one reference or draw="expected"
    draw: str
    references: int
    sentence_scores: list[float] | None  # compute_gleu -d values, when asked for
    std: float  # standard deviation over iterations (0.0 when there is one)

    @property
    def signature(self) -> str:
        return Signature(
            "gleu",
            METRIC_VERSION,
            (
                ("order", str(ORDER)),
                ("refs", str(self.references)),
                ("draw", self.draw),
                ("iterations", str(self.iterations)),
            ),
        ).text


class GleuCorpus:
    """Sources and references prepared once (n-gram counts), to score many systems."""

    def __init__(self, sources: Sequence[str], refs_list: Sequence[Sequence[str]]) -> None:
        if not refs_list:
            raise InputError("GLEU needs at least one reference")
        n = len(sources)
        lengths = [len(refs) for refs in refs_list]
        if any(length != n for length in lengths):
            raise InputError(
                f"sources ({n}) and references ({', '.join(map(str, lengths))}) must have the "
                "same number of lines"
            )
        self.size = n
        self.references = len(refs_list)
        self._refs: list[list[_Reference]] = []
        self._sources: list[list[str]] = []
        self._sources_ngrams: list[NgramCounts] = []
        # Statistics of an unchanged sentence (hypothesis == source), computed once per sentence:
        # most sentences of most systems are left unchanged.
        self._unchanged: dict[int, list[Stats]] = {}
        for i, source_line in enumerate(sources):
            words = tokens(source_line)
            source = ngram_counts(words)
            self._sources.append(words)
            self._sources_ngrams.append(source)
            self._refs.append([_reference(source, tokens(refs[i])) for refs in refs_list])

    def stats(self, hyps: Sequence[str]) -> np.ndarray:
        """Statistics per (sentence, reference): an int array of shape (N, R, 10)."""
        if len(hyps) != self.size:
            raise InputError(f"{len(hyps)} hypotheses for {self.size} sources")
        table = np.zeros((self.size, self.references, 2 + 2 * ORDER), dtype=np.int64)
        for i, hyp_line in enumerate(hyps):
            hyp_words = tokens(hyp_line)
            if hyp_words == self._sources[i]:
                unchanged = self._unchanged.get(i)
                if unchanged is None:
                    source = self._sources_ngrams[i]
                    unchanged = [_stats(source, len(hyp_words), ref) for ref in self._refs[i]]
                    self._unchanged[i] = unchanged
                table[i] = unchanged
                continue
            hyp = ngram_counts(hyp_words)
            for r, reference in enumerate(self._refs[i]):
                table[i, r] = _stats(hyp, len(hyp_words), reference)
        return table

    def score(
        self,
        hyps: Sequence[str],
        *,
        draw: str = "python2",
        iterations: int = ITERATIONS,
        sentence: bool = False,
    ) -> GleuResult:
        if draw not in DRAWS:
            raise OptionError(f"draw must be one of {DRAWS}, got {draw!r}")
        if iterations < 1:
            raise OptionError(f"iterations must be at least 1, got {iterations}")
        return gleu_from_table(
            self.stats(hyps), draw=draw, iterations=iterations, sentence=sentence
        )


def corpus_gleu(
    sources: Sequence[str],
    hyps: Sequence[str],
    refs_list: Sequence[Sequence[str]],
    *,
    draw: str = "python2",
    iterations: int = ITERATIONS,
    sentence: bool = False,
) -> GleuResult:
    """GLEU of hypothesis lines; ``refs_list[k][i]`` is reference k of sentence i.

    Lines are whitespace-tokenised text. ``draw``: "python2" (the reference script's sampling,
    reproduces published scores) or "expected" (deterministic, see the module docstring).
    To score several systems, build one :class:`GleuCorpus` and call its ``score``.
    """
    return GleuCorpus(sources, refs_list).score(
        hyps, draw=draw, iterations=iterations, sentence=sentence
    )


def gleu_from_table(
    table: np.ndarray,
    *,
    draw: str = "python2",
    iterations: int = ITERATIONS,
    sentence: bool = False,
) -> GleuResult:
    """GLEU from the (N, R, 10) statistics of :meth:`GleuCorpus.stats`."""
    n, n_refs, width = table.shape
    sentence_scores = None
    if sentence:
        sentence_scores = [
            float(np.mean([gleu_from_stats(row, smooth=True) for row in table[i].tolist()]))
            for i in range(n)
        ]
    if n_refs == 1:
        score = gleu_from_stats(table[:, 0].sum(axis=0).tolist())
        return GleuResult(score, 1, draw, 1, sentence_scores, 0.0)
    if draw == "expected":
        expected = table.sum(axis=(0, 1)) / n_refs
        return GleuResult(gleu_from_stats(expected.tolist()), 1, draw, n_refs, sentence_scores, 0.0)
    indices = python2_draws(n, n_refs, iterations)
    # Sum of the drawn rows per iteration, one reference at a time: (iterations x N) masks times
    # (N x 10) statistics. Float64 products are exact for these integer counts (< 2**53).
    totals = np.zeros((iterations, width))
    values = table.astype(np.float64)
    for r in range(n_refs):
        totals += (indices == r).astype(np.float64) @ values[:, r, :]
    scores = [gleu_from_stats([int(v) for v in row]) for row in totals.tolist()]
    return GleuResult(
        float(np.mean(scores)), iterations, draw, n_refs, sentence_scores, float(np.std(scores))
    )


@dataclass(frozen=True)
class GLEUConfig(MetricConfig):
    """GLEU's options; the defaults are the reference script's."""

    draw: str = "python2"  # "python2" (the reference script's sampling) or "expected"
    iterations: int = ITERATIONS

    def __post_init__(self) -> None:
        check_choice(self.draw, "draw", DRAWS)
        check_count(self.iterations, "iterations")


class GLEU(Metric):
    """GLEU (Napoles et al. 2015/2016) in the library's calling convention; ``details`` has
    ``std`` (over the draws), ``iterations``, ``draw`` and ``references``. Sentence scores are
    the reference script's ``-d`` values."""

    name = "gleu"
    Config = GLEUConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references, metric="GLEU")
        assert not isinstance(hypotheses, Gold) and not isinstance(references, Gold)
        return self.score_prepared(self.corpus(sources, references), hypotheses)

    def corpus(self, sources: Sequence[str], references: Sequence[Sequence[str]]) -> GleuCorpus:
        """Sources and references prepared once, to score several systems
        (:meth:`score_prepared`)."""
        return GleuCorpus(sources, references)

    def score_prepared(self, corpus: GleuCorpus, hypotheses: Sequence[str]) -> Result:
        """:meth:`score_corpus` of one system against a prepared :meth:`corpus`."""
        config = self.config
        assert isinstance(config, GLEUConfig)
        gleu = corpus.score(
            hypotheses, draw=config.draw, iterations=config.iterations, sentence=True
        )
        return Result(
            metric=self.name,
            score=gleu.gleu,
            signature=gleu.signature,
            sentences=tuple(SentenceScore(value) for value in gleu.sentence_scores or ()),
            details={
                "std": gleu.std,
                "iterations": gleu.iterations,
                "draw": gleu.draw,
                "references": gleu.references,
            },
        )
