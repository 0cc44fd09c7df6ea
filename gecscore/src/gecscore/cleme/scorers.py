"""CLEME (v1.0) precision / recall / F and accuracy at corpus and sentence level.

Corpus level sums the counts of the best reference of each sentence, chosen greedily with the
running totals; sentence level averages per-sentence scores. Both follow the reference code
THUKElab/CLEME v1.0 (commit 5fc7617), including its rounding to 4 decimals, because rounding
takes part in choosing the best reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from gecscore.cleme.counting import Assumption
from gecscore.cleme.evaluate import ChunkEvaluation, LengthEvaluation, evaluate_lengths
from gecscore.cleme.model import Sentence
from gecscore.cleme.weighting import (
    NO_WEIGHTING,
    LengthWeigher,
    LengthWeighting,
    Level,
    WeightedCounts,
    default_weighting,
)
from gecscore.counts import f_key
from gecscore.errors import OptionError
from gecscore.result_data import counted_fields
from gecscore.signature import COLON_V, Field, Signature

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CLEME_VERSION",
    "SELECTIONS",
    "ClemeScore",
    "Selection",
    "SentenceCleme",
    "accuracy",
    "best_per_sentence",
    "cleme",
    "cleme_fields",
    "corpus_totals",
    "numpy_mean",
    "score_cleme",
    "score_evaluation",
    "sentence_scores",
]

CLEME_VERSION = "1.0(THUKElab/CLEME@5fc7617)"


def accuracy(tp: float, fp: float, fn: float, tn: float) -> float:
    total = tp + fp + fn + tn
    return round((tp + tn) / total, 4) if total else 0.0


def numpy_mean(values: Sequence[float]) -> float:
    """The mean as numpy computes it (pairwise summation), 0 for no values.

    Imported here, not at module level: numpy costs ~0.1 s of start-up that corpus-level
    runs do not need, and sentence-level means must match the reference to the last bit
    before rounding.
    """
    if not values:
        return 0.0
    import numpy

    return float(numpy.average(values))


Selection = Literal["f", "accuracy"]
SELECTIONS: tuple[Selection, ...] = ("f", "accuracy")


def corpus_totals(
    per_sentence: Sequence[Sequence[WeightedCounts]], beta: float = 0.5, select: Selection = "f"
) -> WeightedCounts:
    """Greedy best reference per sentence: max F (or, ``select="accuracy"``, accuracy) of
    (totals + candidate) rounded to 4 decimals, then more TP, fewer FP, fewer FN, more TN;
    the first reference wins ties.

    The accuracy variant is v1.0's ``CorpusScorerForAccuracy`` as intended: that code never
    updates its best accuracy, so it always ends up with the LAST reference.
    """
    total = WeightedCounts()
    for candidates in per_sentence:
        best: WeightedCounts | None = None
        best_key: tuple[float, ...] = (-1.0, 0.0, 0.0, 0.0, 0.0)
        for counts in candidates:
            if select == "f":
                goal = (total + counts).prf(beta)[2]
            else:
                goal = accuracy(
                    total.tp + counts.tp,
                    total.fp + counts.fp,
                    total.fn + counts.fn,
                    total.tn + counts.tn,
                )
            key = (goal, counts.tp, -counts.fp, -counts.fn, counts.tn)
            if key > best_key:  # lexicographic on signed keys
                best, best_key = counts, key
        if best is not None:
            total = total + best
    return total


# A NamedTuple, not a frozen dataclass: `cleme` on M2 then never imports dataclasses, and
# tuples are cheaper to build.
class ClemeScore(NamedTuple):
    """A CLEME result. Counts are weighted (floats); at sentence level they are the sums of
    each sentence's chosen reference and p/r/f/acc are means of per-sentence scores."""

    tp: float
    fp: float
    fn: float
    tn: float
    p: float
    r: float
    f: float
    acc: float
    sentences: int
    level: Level
    assumption: Assumption
    beta: float
    bias: float
    signature: str
    select: Selection = "f"

    def as_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data[f_key(self.beta)] = data.pop("f")
        return data


def _signature(
    level: Level,
    assumption: Assumption,
    beta: float,
    weighting: LengthWeighting | None,
    bias: float,
    max_refs: int | None,
    select: Selection = "f",
) -> str:
    weights = (
        "none"
        if weighting is None or weighting == NO_WEIGHTING
        else f"length({weighting.describe()},b={bias:.4f})"
    )
    fields: list[Field] = [
        ("level", level),
        ("assume", assumption),
        ("beta", f"{beta:g}"),
        ("weight", weights),
        ("refs", "all" if max_refs is None else str(max_refs)),
    ]
    if select != "f":
        fields.append(("select", select))
    return Signature("CLEME", CLEME_VERSION, tuple(fields), style=COLON_V).text


def score_evaluation(
    evaluation: ChunkEvaluation | LengthEvaluation,
    *,
    level: Level = "corpus",
    weighting: LengthWeighting | None = None,
    beta: float = 0.5,
    select: Selection = "f",
) -> ClemeScore:
    """CLEME from partitioned, counted sentences. ``weighting`` None means the default table
    for the level and assumption; pass ``NO_WEIGHTING`` to count chunks plainly. ``select``
    chooses each sentence's reference by F (default) or by accuracy (v1.0's accuracy
    scorers)."""
    if select not in SELECTIONS:
        raise OptionError(f"select must be one of {SELECTIONS}, got {select!r}")
    table = weighting if weighting is not None else default_weighting(level, evaluation.assumption)
    bias = evaluation.mean_corrected_length
    weigher = LengthWeigher(table, bias)
    per_sentence = evaluation.weighted_counts(weigher)
    signature = _signature(
        level, evaluation.assumption, beta, table, bias, evaluation.max_refs, select
    )
    n = len(per_sentence)
    if level == "corpus":
        total = corpus_totals(per_sentence, beta, select)
        p, r, f = total.prf(beta)
        acc = accuracy(total.tp, total.fp, total.fn, total.tn)
        return ClemeScore(
            total.tp,
            total.fp,
            total.fn,
            total.tn,
            p,
            r,
            f,
            acc,
            n,
            level,
            evaluation.assumption,
            beta,
            bias,
            signature,
            select,
        )
    if level != "sentence":
        raise OptionError(f"level must be 'corpus' or 'sentence', got {level!r}")
    details = best_per_sentence(per_sentence, beta, select)
    total = WeightedCounts()
    for detail in details:
        total = total + detail.counts

    def mean(values: list[float]) -> float:
        # 4-decimal rounding of numpy's mean, as the reference averages.
        return round(numpy_mean(values), 4)

    return ClemeScore(
        total.tp,
        total.fp,
        total.fn,
        total.tn,
        mean([d.p for d in details]),
        mean([d.r for d in details]),
        mean([d.f for d in details]),
        mean([d.acc for d in details]),
        n,
        level,
        evaluation.assumption,
        beta,
        bias,
        signature,
        select,
    )


class SentenceCleme(NamedTuple):
    """One sentence at sentence level: the chosen reference (0-based among the usable ones;
    0 under the independent assumption), its counts and the rounded P/R/F/Acc."""

    reference: int
    counts: WeightedCounts
    p: float
    r: float
    f: float
    acc: float


def best_per_sentence(
    per_sentence: Sequence[Sequence[WeightedCounts]], beta: float = 0.5, select: Selection = "f"
) -> list[SentenceCleme]:
    """v1.0's sentence-level choice: max F, then P, then R, then the LOWER accuracy (HEAD
    prefers the higher; we follow v1.0); the first reference wins a full tie. With
    ``select="accuracy"`` (v1.0's ``SentenceScorerForAccuracy``): max accuracy only."""
    details: list[SentenceCleme] = []
    for candidates in per_sentence:
        best: SentenceCleme | None = None
        best_key: tuple[float, ...] = (-1.0, -1.0, -1.0, 1.0)
        for k, counts in enumerate(candidates):
            sp, sr, sf = counts.prf(beta)
            sacc = accuracy(counts.tp, counts.fp, counts.fn, counts.tn)
            key = (sf, sp, sr, -sacc) if select == "f" else (sacc, 0.0, 0.0, 0.0)
            if key > best_key:  # lexicographic on signed keys
                best, best_key = SentenceCleme(k, counts, sp, sr, sf, sacc), key
        if best is None:
            raise ValueError("a sentence without any reference result")
        details.append(best)
    return details


def sentence_scores(
    evaluation: ChunkEvaluation | LengthEvaluation,
    *,
    weighting: LengthWeighting | None = None,
    beta: float = 0.5,
    select: Selection = "f",
) -> list[SentenceCleme]:
    """Per-sentence CLEME (e.g. to store one row per sentence, or to rank systems by
    TrueSkill over sentence scores); ``weighting`` None means the sentence-level default
    table for the evaluation's assumption. Takes either evaluation, as score_evaluation does."""
    table = (
        weighting if weighting is not None else default_weighting("sentence", evaluation.assumption)
    )
    weigher = LengthWeigher(table, evaluation.mean_corrected_length)
    return best_per_sentence(evaluation.weighted_counts(weigher), beta, select)


def score_cleme(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    length_weighting: bool = True,
    weighting: LengthWeighting | None = None,
    beta: float = 0.5,
    max_refs: int | None = None,
    select: Selection = "f",
    with_sentences: bool = True,
) -> tuple[ClemeScore, list[SentenceCleme]]:
    """The one assembly of CLEME's score: ``hypotheses[i]`` (one correction each) against
    ``references[i]``, at ``level``, and (``with_sentences``) each sentence's score from the
    SAME evaluation, with the sentence-level weights (v1.0 scores a sentence with them; what
    ranking systems by sentence scores, TrueSkill or Expected Wins, needs beside the corpus
    score). The command ``cleme`` (through :func:`cleme`) and the metric class
    ``get_metric("cleme")`` (and through it meta-evaluation and the platform) call this.

    ``weighting`` overrides the default length-weighting tables; ``length_weighting=False``
    counts every chunk as 1; ``select="accuracy"`` picks references by accuracy.
    """
    evaluation = evaluate_lengths(hypotheses, references, assumption=assumption, max_refs=max_refs)
    if not length_weighting:
        table = sentence_table = NO_WEIGHTING
    elif weighting is not None:
        table = sentence_table = weighting
    else:
        table = default_weighting(level, assumption)
        sentence_table = default_weighting("sentence", assumption)
    score = score_evaluation(evaluation, level=level, weighting=table, beta=beta, select=select)
    if not with_sentences:
        return score, []
    weigher = LengthWeigher(sentence_table, evaluation.mean_corrected_length)
    return score, best_per_sentence(evaluation.weighted_counts(weigher), beta, select)


def cleme(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    length_weighting: bool = True,
    weighting: LengthWeighting | None = None,
    beta: float = 0.5,
    max_refs: int | None = None,
    select: Selection = "f",
) -> ClemeScore:
    """CLEME of a system (:func:`score_cleme` without the sentence scores)."""
    score, _ = score_cleme(
        hypotheses,
        references,
        level=level,
        assumption=assumption,
        length_weighting=length_weighting,
        weighting=weighting,
        beta=beta,
        max_refs=max_refs,
        select=select,
        with_sentences=False,
    )
    return score


def cleme_fields(
    hypotheses: Sequence[Sentence],
    references: Sequence[Sentence],
    *,
    level: Level = "corpus",
    assumption: Assumption = "dependent",
    length_weighting: bool = True,
    beta: float = 0.5,
    max_refs: int | None = None,
    select: Selection = "f",
) -> tuple[ClemeScore, dict[str, Any]]:
    """:func:`score_cleme` and the ``cleme`` Result of the same evaluation (``result_data``'s
    arguments; ``CLEME`` and ``cleme --json`` both use it), at full precision: corpus P/R/F
    and accuracy from the summed weighted counts (CLEME prints them rounded); at sentence
    level the unrounded means of the per-sentence values. ``sentences`` (at either level,
    sentence-level weights) are CLEME's own 4-decimal F's, with which it chooses each
    sentence's reference."""
    score, chosen = score_cleme(
        hypotheses,
        references,
        level=level,
        assumption=assumption,
        length_weighting=length_weighting,
        beta=beta,
        max_refs=max_refs,
        select=select,
    )
    details: dict[str, Any] = {
        "tn": score.tn,
        "bias": score.bias,
        "level": score.level,
        "assumption": score.assumption,
    }
    counts = (score.tp, score.fp, score.fn)
    sentences = [(d.f, (d.counts.tp, d.counts.fp, d.counts.fn)) for d in chosen]
    if level == "corpus":
        total = score.tp + score.fp + score.fn + score.tn
        details["acc"] = (score.tp + score.tn) / total if total else 0.0
        fields = counted_fields(
            "cleme", counts=counts, beta=beta, signature=score.signature, details=details
        )
        return score, {**fields, "sentences": sentences}
    details["acc"] = numpy_mean([d.acc for d in chosen])
    mean_f = numpy_mean([d.f for d in chosen])
    return score, {
        "metric": "cleme",
        "score": mean_f,
        "signature": score.signature,
        "precision": numpy_mean([d.p for d in chosen]),
        "recall": numpy_mean([d.r for d in chosen]),
        "beta": beta,
        "f": mean_f,
        "counts": counts,
        "sentences": sentences,
        "details": details,
    }
