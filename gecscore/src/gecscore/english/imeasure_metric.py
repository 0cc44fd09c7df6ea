"""I-measure in the library's calling convention (the scorer is ``gecscore.english.imeasure``).

References are ``Gold`` M2 blocks: the candidate references are made from the annotators'
edits the way ``m2_to_ixml.py`` makes them (``english/imeasure.py`` says how), so plain text
references cannot stand in for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.english.imeasure import (
    OPTIMISE,
    AspectScores,
    IMeasureConfig,
    IMeasureResult,
    score_systems,
)
from gecscore.errors import InputError
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
from gecscore.options import check_beta, check_choice, check_positive

__all__ = ["IMeasure", "IMeasureMetricConfig", "aspect_data", "imeasure_result"]


@dataclass(frozen=True)
class IMeasureMetricConfig(MetricConfig):
    """``ieval.py -nomix``'s options (its defaults)."""

    weight: float = 2.0  # weight of TP and FP in WAcc (-w)
    beta: float = 1.0  # beta of the complementary F score (-b)
    optimise: str = "sentence"  # "sentence" or "corpus" (-opt)

    def __post_init__(self) -> None:
        check_choice(self.optimise, "optimise", OPTIMISE)
        check_positive(self.weight, "weight")  # of TP and FP in WAcc
        check_beta(self.beta)

    def scorer_config(self) -> IMeasureConfig:
        return IMeasureConfig(weight=self.weight, beta=self.beta, optimise=self.optimise)  # type: ignore[arg-type]


class IMeasure(Metric):
    """I-measure: ``score`` is the corpus I of correction (a fraction in [-1, 1]; ieval.py
    prints it x 100); ``precision``/``recall``/``f`` and ``counts`` (TP, FP, FN) are
    correction's token-level ones with F at ``beta``, so ``score`` is not ``f`` here;
    ``sentences``: each sentence's I with its correction counts; ``details``: see
    :func:`imeasure_result`."""

    name = "imeasure"
    Config = IMeasureMetricConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        if isinstance(hypotheses, Gold):
            raise InputError("I-measure takes the system's corrected text, not its M2 edits")
        if not isinstance(references, Gold):
            raise InputError(
                "I-measure reads annotated references: pass references=Gold(read_m2(GOLD.m2))"
            )
        config = self.config
        assert isinstance(config, IMeasureMetricConfig)
        result = score_systems({"system": list(hypotheses)}, references, config.scorer_config())[
            "system"
        ]
        return imeasure_result(result)


def aspect_data(scores: AspectScores) -> dict[str, float]:
    """One aspect's (detection's or correction's) counts and scores, as plain numbers."""
    c = scores.counts
    return {
        "tp": c.tp,
        "tn": c.tn,
        "fp": c.fp,
        "fn": c.fn,
        "fpn": c.fpn,
        "p": scores.p,
        "r": scores.r,
        "f": scores.f,
        "acc": scores.acc,
        "acc_base": scores.acc_base,
        "wacc": scores.wacc,
        "wacc_base": scores.wacc_base,
        "i": scores.i,
    }


def imeasure_result(result: IMeasureResult) -> Result:
    """The ``imeasure`` Result of a score (``IMeasure`` and ``imeasure --json``): ``score`` the
    corpus I of correction, ``precision``/``recall``/``f`` correction's token-level P/R/F at
    ``beta``; ``details``: ``wacc``, ``wacc_base`` and both aspects in full (``correction``,
    ``detection``: counts, P/R/F, Acc, WAcc and I)."""
    correction = result.correction
    counts = correction.counts
    return Result(
        metric="imeasure",
        score=result.imeasure,
        signature=result.signature,
        precision=correction.p,
        recall=correction.r,
        beta=result.config.beta,
        f=correction.f,
        counts=(counts.tp, counts.fp, counts.fn),
        sentences=tuple(
            SentenceScore(
                s.imeasure,
                (s.correction.counts.tp, s.correction.counts.fp, s.correction.counts.fn),
            )
            for s in result.sentences
        ),
        details={
            "wacc": correction.wacc,
            "wacc_base": correction.wacc_base,
            "correction": aspect_data(correction),
            "detection": aspect_data(result.detection),
        },
    )
