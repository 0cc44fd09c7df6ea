"""CLEME2.0: hit-, wrong-, under- and over-correction, and their weighted combination.

From the same chunk outcomes as CLEME (reference: THUKElab/CLEME HEAD e90abea,
``core/evaluation/scorers/scorer_heuo.py``):

* ne = TP + FP_ne + FN chunks that needed a correction;
* hit = TP / ne, wrong = FP_ne / ne, under = FN / ne (0 when ne = 0);
* over = FP_un / (TP + FP) (0 when the hypothesis changed nothing);
* score = f_hit*hit + f_wrong*(1-wrong) + f_under*(1-under) + f_over*(1-over).

Counts are unweighted by default; with an edit-weight provider (BERTScore) they are the
similarity weights of CLEME2.0-sim (``similarity.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from gecscore.cleme.counting import Assumption
from gecscore.cleme.evaluate import ChunkEvaluation, evaluate_chunks
from gecscore.cleme.model import Sentence
from gecscore.cleme.scorers import numpy_mean
from gecscore.cleme.similarity import similarity_counts
from gecscore.cleme.weighting import Level, WeightedCounts, unweighted_counts
from gecscore.errors import OptionError
from gecscore.signature import COLON_V, Signature

if TYPE_CHECKING:
    # Importing the weights package loads torch: only annotations need it here.
    from gecscore.weights.base import EditWeightProvider, ProgressCallback

__all__ = [
    "CLEME2_VERSION",
    "CORPUS_FACTORS",
    "SENTENCE_FACTORS",
    "Aspects",
    "Cleme2Score",
    "Factors",
    "SentenceCleme2",
    "aspects",
    "best_per_sentence2",
    "cleme2",
    "cleme2_fields",
    "corpus_totals2",
    "default_factors",
    "score_cleme2",
    "score_evaluation2",
    "sentence_scores2",
]

CLEME2_VERSION = "2.0(THUKElab/CLEME@e90abea)"


@dataclass(frozen=True, slots=True)
class Factors:
    """Weights of hit, 1-wrong, 1-under and 1-over in the score; they must sum to 1."""

    hit: float
    wrong: float
    under: float
    over: float

    def __post_init__(self) -> None:
        if abs(self.hit + self.wrong + self.under + self.over - 1.0) > 1e-5:
            raise OptionError(
                f"CLEME2.0 factors must sum to 1, got {self.hit}+{self.wrong}+{self.under}+{self.over}"
            )

    def describe(self) -> str:
        return f"{self.hit:g}/{self.wrong:g}/{self.under:g}/{self.over:g}"


# The values of the CLEME2.0 paper (HEAD main.py); the scorer class default 0.50/0.40/0.05/0.05
# is not what the paper reports.
CORPUS_FACTORS = Factors(0.45, 0.35, 0.15, 0.05)
SENTENCE_FACTORS = Factors(0.35, 0.25, 0.20, 0.20)


def default_factors(level: Level) -> Factors:
    if level == "corpus":
        return CORPUS_FACTORS
    if level == "sentence":
        return SENTENCE_FACTORS
    raise OptionError(f"level must be 'corpus' or 'sentence', got {level!r}")


@dataclass(frozen=True, slots=True)
class Aspects:
    hit: float
    wrong: float
    under: float
    over: float
    score: float


def aspects(tp: float, fp_ne: float, fp_un: float, fn: float, factors: Factors) -> Aspects:
    ne = tp + fp_ne + fn
    fp = fp_ne + fp_un
    hit = tp / ne if ne else 0.0
    wrong = fp_ne / ne if ne else 0.0
    under = fn / ne if ne else 0.0
    over = fp_un / (tp + fp) if tp + fp else 0.0
    score = (
        factors.hit * hit
        + factors.wrong * (1 - wrong)
        + factors.under * (1 - under)
        + factors.over * (1 - over)
    )
    return Aspects(hit, wrong, under, over, score)


@dataclass(frozen=True, slots=True)
class Cleme2Score:
    """CLEME2.0 result: counts of the chosen references and the four aspects + score.

    At sentence level the aspects and score are means over sentences (not rounded)."""

    tp: float
    fp: float
    fp_ne: float
    fp_un: float
    fn: float
    tn: float
    hit: float
    wrong: float
    under: float
    over: float
    score: float
    sentences: int
    level: Level
    assumption: Assumption
    signature: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SentenceCleme2:
    """One sentence at sentence level: the chosen reference (0-based among the usable ones),
    its counts and aspects."""

    reference: int
    counts: WeightedCounts
    aspects: Aspects


def best_per_sentence2(
    per_sentence: Sequence[Sequence[WeightedCounts]], factors: Factors
) -> list[SentenceCleme2]:
    """HEAD's sentence-level choice: max by (score, hit, -wrong, -under, -over); the first
    reference wins a full tie."""
    details: list[SentenceCleme2] = []
    for candidates in per_sentence:
        best: SentenceCleme2 | None = None
        best_key = (-1.0, -1.0, 1.0, 1.0, 1.0)
        for k, c in enumerate(candidates):
            a = aspects(c.tp, c.fp_ne, c.fp_un, c.fn, factors)
            key = (a.score, a.hit, -a.wrong, -a.under, -a.over)
            if key > best_key:  # lexicographic on signed keys
                best, best_key = SentenceCleme2(k, c, a), key
        if best is None:
            raise ValueError("a sentence without any reference result")
        details.append(best)
    return details


def sentence_scores2(
    evaluation: ChunkEvaluation,
    *,
    factors: Factors | None = None,
    weights: EditWeightProvider | None = None,
) -> list[SentenceCleme2]:
    """Per-sentence CLEME2.0 (e.g. one row per sentence for the aspects chart); ``factors``
    None means the sentence-level factors."""
    return best_per_sentence2(
        _counts(evaluation, weights, None), factors if factors is not None else SENTENCE_FACTORS
    )


def _counts(
    evaluation: ChunkEvaluation,
    weights: EditWeightProvider | None,
    progress: ProgressCallback | None,
) -> list[list[WeightedCounts]]:
    if weights is None:
        return [
            [unweighted_counts(tally) for tally in sentence.tallies]
            for sentence in evaluation.sentences
        ]
    return similarity_counts(evaluation, weights, progress=progress)


def _signature2(
    evaluation: ChunkEvaluation, level: Level, used: Factors, weights: EditWeightProvider | None
) -> str:
    weight_name = "none" if weights is None else f"similarity({weights.signature})"
    refs = "all" if evaluation.max_refs is None else str(evaluation.max_refs)
    return Signature(
        "CLEME2.0",
        CLEME2_VERSION,
        (
            ("level", level),
            ("assume", evaluation.assumption),
            ("factors", used.describe()),
            ("weight", weight_name),
            ("refs", refs),
        ),
        style=COLON_V,
    ).text


def corpus_totals2(
    per_sentence: Sequence[Sequence[WeightedCounts]], used: Factors
) -> WeightedCounts:
    """Greedy best reference per sentence: max score of (totals + candidate), then more TP,
    fewer FP, fewer FN, more TN; the first reference wins ties."""
    total = WeightedCounts()
    for candidates in per_sentence:
        best: WeightedCounts | None = None
        best_key: tuple[float, ...] = (-1.0, 0.0, 0.0, 0.0, 0.0)
        for c in candidates:
            running = aspects(
                total.tp + c.tp,
                total.fp_ne + c.fp_ne,
                total.fp_un + c.fp_un,
                total.fn + c.fn,
                used,
            )
            key = (running.score, c.tp, -c.fp, -c.fn, c.tn)
            if key > best_key:
                best, best_key = c, key
        if best is not None:
            total = total + best
    return total


def _result2(
    total: WeightedCounts,
    values: Sequence[float],  # hit, wrong, under, over, score
    n: int,
    level: Level,
    evaluation: ChunkEvaluation,
    signature: str,
) -> Cleme2Score:
    hit, wrong, under, over, score = values
    return Cleme2Score(
        total.tp,
        total.fp,
        total.fp_ne,
        total.fp_un,
        total.fn,
        total.tn,
        hit,
        wrong,
        under,
        over,
        score,
        n,
        level,
        evaluation.assumption,
        signature,
    )


def score_evaluation2(
    evaluation: ChunkEvaluation,
    *,
    level: Level = "corpus",
    factors: Factors | None = None,
    weights: EditWeightProvider | None = None,
    progress: ProgressCallback | None = None,
) -> Cleme2Score:
    """CLEME2.0 from partitioned, counted sentences: plain chunk counts, or with ``weights``
    the similarity-weighted counts of CLEME2.0-sim (``similarity.py``).

    Corpus level: the aspects of the greedily chosen counts' totals. Sentence level: the
    mean (numpy's) of each sentence's best aspects; counts are the chosen counts' sums.
    """
    used = factors if factors is not None else default_factors(level)
    per_sentence = _counts(evaluation, weights, progress)
    signature = _signature2(evaluation, level, used, weights)
    n = len(per_sentence)
    if level == "corpus":
        total = corpus_totals2(per_sentence, used)
        result = aspects(total.tp, total.fp_ne, total.fp_un, total.fn, used)
        values = (result.hit, result.wrong, result.under, result.over, result.score)
        return _result2(total, values, n, level, evaluation, signature)
    if level != "sentence":
        raise OptionError(f"level must be 'corpus' or 'sentence', got {level!r}")
    details = best_per_sentence2(per_sentence, used)
    chosen = [detail.aspects for detail in details]
    total = WeightedCounts()
    for detail in details:
        total = total + detail.counts
    means = (
        numpy_mean([a.hit for a in chosen]),
        numpy_mean([a.wrong for a in chosen]),
        numpy_mean([a.under for a in chosen]),
        numpy_mean([a.over for a in chosen]),
        numpy_mean([a.score for a in chosen]),
    )
    return _result2(total, means, n, level, evaluation, signature)


def score_cleme2(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    factors: Factors | None = None,
    weights: EditWeightProvider | None = None,
    max_refs: int | None = None,
    progress: ProgressCallback | None = None,
    with_sentences: bool = True,
) -> tuple[Cleme2Score, list[SentenceCleme2]]:
    """The one assembly of CLEME2.0's score: ``hypotheses[i]`` (one correction each) against
    ``references[i]``, at ``level``, and (``with_sentences``) each sentence's score from the
    SAME evaluation, with the sentence-level factors and plain chunk counts (what ranking
    systems by sentence scores needs beside the corpus score). With model ``weights`` there
    are no sentence scores: they would ask the model a second time. The command ``cleme2``
    and the metric class ``get_metric("cleme2")`` (through :func:`cleme2_fields`) and
    :func:`cleme2` call this.
    """
    evaluation = evaluate_chunks(hypotheses, references, assumption=assumption, max_refs=max_refs)
    score = score_evaluation2(
        evaluation, level=level, factors=factors, weights=weights, progress=progress
    )
    if not with_sentences or weights is not None:
        return score, []
    return score, sentence_scores2(evaluation)


def cleme2(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    factors: Factors | None = None,
    weights: EditWeightProvider | None = None,
    max_refs: int | None = None,
    progress: ProgressCallback | None = None,
) -> Cleme2Score:
    """CLEME2.0 of a system (:func:`score_cleme2` without the sentence scores); unweighted
    chunk counts unless a weight provider is given (BERTScore weights: CLEME2.0-sim)."""
    score, _ = score_cleme2(
        hypotheses,
        references,
        level=level,
        assumption=assumption,
        factors=factors,
        weights=weights,
        max_refs=max_refs,
        progress=progress,
        with_sentences=False,
    )
    return score


def cleme2_fields(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    factors: Factors | None = None,
    weights: EditWeightProvider | None = None,
    max_refs: int | None = None,
) -> tuple[Cleme2Score, dict[str, Any]]:
    """:func:`score_cleme2` and the ``cleme2`` Result of the same evaluation (``result_data``'s
    arguments; ``CLEME2`` and ``cleme2 --json`` both use it): no F-beta, so no ``beta``,
    ``precision``, ``recall`` or ``f``. ``sentences``: each sentence's score with the
    sentence-level factors, from plain chunk counts only (none with model ``weights``)."""
    score, chosen = score_cleme2(
        hypotheses,
        references,
        level=level,
        assumption=assumption,
        factors=factors,
        weights=weights,
        max_refs=max_refs,
    )
    return score, {
        "metric": "cleme2",
        "score": score.score,
        "signature": score.signature,
        "counts": (score.tp, score.fp, score.fn),
        "sentences": [(s.aspects.score, (s.counts.tp, s.counts.fp, s.counts.fn)) for s in chosen],
        "details": {
            "hit": score.hit,
            "wrong": score.wrong,
            "under": score.under,
            "over": score.over,
            "fp_ne": score.fp_ne,
            "fp_un": score.fp_un,
            "tn": score.tn,
            "level": score.level,
            "assumption": score.assumption,
        },
    }
