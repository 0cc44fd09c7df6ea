"""CLEME2.0: hit-, wrong-, under- and over-correction, and their weighted combination.

From the same chunk outcomes as CLEME (reference: THUKElab/CLEME HEAD e90abea,
``core/evaluation/scorers/scorer_heuo.py``):

* ne = TP + FP_ne + FN chunks that needed a correction;
* hit = TP / ne, wrong = FP_ne / ne, under = FN / ne (0 when ne = 0);
* over = FP_un / (TP + FP) (0 when the hypothesis changed nothing);
* score = f_hit*hit + f_wrong*(1-wrong) + f_under*(1-under) + f_over*(1-over).

Counts are unweighted by default; a length weighting or any per-chunk weigher (e.g. the
BERTScore similarity of CLEME2.0-sim) can be given instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from scoring.gec.cleme.counting import Assumption
from scoring.gec.cleme.evaluate import ChunkEvaluation, evaluate_chunks
from scoring.gec.cleme.model import Sentence
from scoring.gec.cleme.scorers import numpy_mean
from scoring.gec.cleme.weighting import (
    ChunkWeigher,
    Counts,
    LengthWeigher,
    LengthWeighting,
    Level,
    custom_weighted_counts,
    length_weighted_counts,
    unweighted_counts,
)

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
            raise ValueError(
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
    raise ValueError(f"level must be 'corpus' or 'sentence', got {level!r}")


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


def _per_sentence_counts(
    evaluation: ChunkEvaluation, weighting: LengthWeighting | None, weigher: ChunkWeigher | None
) -> list[list[Counts]]:
    out: list[list[Counts]] = []
    length_weigher = (
        LengthWeigher(weighting, evaluation.mean_corrected_length)
        if weighting is not None
        else None
    )
    for sentence in evaluation.sentences:
        row: list[Counts] = []
        for k, tally in enumerate(sentence.tallies):
            if weigher is not None:
                reference = k + 1 if evaluation.assumption == "dependent" else None
                row.append(custom_weighted_counts(sentence.partition, tally, weigher, reference))
            elif length_weigher is not None:
                row.append(length_weighted_counts(sentence.partition, tally, length_weigher))
            else:
                row.append(unweighted_counts(tally))
        out.append(row)
    return out


def score_evaluation2(
    evaluation: ChunkEvaluation,
    *,
    level: Level = "corpus",
    factors: Factors | None = None,
    weighting: LengthWeighting | None = None,
    weigher: ChunkWeigher | None = None,
) -> Cleme2Score:
    """CLEME2.0 from partitioned, counted sentences (unweighted unless a weighting is given)."""
    used = factors if factors is not None else default_factors(level)
    per_sentence = _per_sentence_counts(evaluation, weighting, weigher)
    if weigher is not None:
        weights = "custom"
    elif weighting is not None:
        weights = f"length({weighting.describe()},b={evaluation.mean_corrected_length:.4f})"
    else:
        weights = "none"
    refs = "all" if evaluation.max_refs is None else str(evaluation.max_refs)
    signature = (
        f"CLEME2.0|v:{CLEME2_VERSION}|level:{level}|assume:{evaluation.assumption}"
        f"|factors:{used.describe()}|weight:{weights}|refs:{refs}"
    )
    n = len(per_sentence)
    total = Counts()
    if level == "corpus":
        for candidates in per_sentence:
            best: Counts | None = None
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
        result = aspects(total.tp, total.fp_ne, total.fp_un, total.fn, used)
        return Cleme2Score(
            total.tp,
            total.fp,
            total.fp_ne,
            total.fp_un,
            total.fn,
            total.tn,
            result.hit,
            result.wrong,
            result.under,
            result.over,
            result.score,
            n,
            level,
            evaluation.assumption,
            signature,
        )
    if level != "sentence":
        raise ValueError(f"level must be 'corpus' or 'sentence', got {level!r}")
    chosen: list[Aspects] = []
    for candidates in per_sentence:
        best_c: Counts | None = None
        best_a: Aspects | None = None
        best_key = (-1.0, -1.0, 1.0, 1.0, 1.0)
        for c in candidates:
            a = aspects(c.tp, c.fp_ne, c.fp_un, c.fn, used)
            key = (a.score, a.hit, -a.wrong, -a.under, -a.over)
            if key > best_key:
                best_c, best_a, best_key = c, a, key
        if best_c is not None and best_a is not None:
            total = total + best_c
            chosen.append(best_a)

    def mean(values: list[float]) -> float:
        return numpy_mean(values)

    return Cleme2Score(
        total.tp,
        total.fp,
        total.fp_ne,
        total.fp_un,
        total.fn,
        total.tn,
        mean([a.hit for a in chosen]),
        mean([a.wrong for a in chosen]),
        mean([a.under for a in chosen]),
        mean([a.over for a in chosen]),
        mean([a.score for a in chosen]),
        n,
        level,
        evaluation.assumption,
        signature,
    )


def cleme2(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    factors: Factors | None = None,
    weighting: LengthWeighting | None = None,
    weigher: ChunkWeigher | None = None,
    max_refs: int | None = None,
) -> Cleme2Score:
    """CLEME2.0 of a system; unweighted chunk counts unless ``weighting``/``weigher`` given."""
    evaluation = evaluate_chunks(hypotheses, references, assumption=assumption, max_refs=max_refs)
    return score_evaluation2(
        evaluation, level=level, factors=factors, weighting=weighting, weigher=weigher
    )
