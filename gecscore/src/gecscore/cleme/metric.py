"""CLEME and CLEME2.0 in the library's calling convention (scorers: ``cleme.scorers`` and
``cleme.v2``).

Hypotheses and references are ``Gold`` M2 blocks (CLEME reads the first alignment of each
annotator) or text: Chinese text gets the char extractor's edits (``granularity`` "char" or
"word"), English text ERRANT's (``granularity="errant"``, needs spaCy and errant).
Kept apart from the scorers: ``python -m gecscore cleme`` must not load ``dataclasses``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from gecscore.cleme.counting import Assumption
from gecscore.cleme.inputs import ERRANT_GRANULARITY, sentences_from_m2, sentences_from_texts
from gecscore.cleme.model import Sentence
from gecscore.cleme.scorers import SELECTIONS, Selection
from gecscore.cleme.weighting import LEVELS, Level
from gecscore.counts import check_beta
from gecscore.errors import GECError
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    SentenceScore,
    check_corpus,
    counted_result,
)

if TYPE_CHECKING:
    from gecscore.cleme.v2 import Factors
    from gecscore.resources import Resources
    from gecscore.weights.base import EditWeightProvider

__all__ = ["CLEME", "CLEME2", "CLEME2Config", "CLEMEConfig"]

ASSUMPTIONS = ("dependent", "independent")
GRANULARITIES = ("char", "word", ERRANT_GRANULARITY)


@dataclass(frozen=True)
class _ChunkConfig(MetricConfig):
    level: Level = "corpus"
    assumption: Assumption = "dependent"
    max_refs: int | None = None
    # Extraction of text inputs:
    granularity: str = "char"  # "char" / "word" (Chinese), "errant" (English)
    simplified: bool = True
    resources: str | None = None  # ChERRANT's data folder; None: the default, "none": none
    workers: int = 1

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise GECError(f"level must be corpus or sentence, got {self.level!r}")
        if self.assumption not in ASSUMPTIONS:
            raise GECError(f"assumption must be dependent or independent, got {self.assumption!r}")
        if self.granularity not in GRANULARITIES:
            raise GECError(f"granularity must be one of {', '.join(GRANULARITIES)}")
        if self.max_refs is not None and self.max_refs < 1:
            raise GECError(f"max_refs must be at least 1, got {self.max_refs}")


@dataclass(frozen=True)
class CLEMEConfig(_ChunkConfig):
    """``cleme``'s options (CLEME v1.0's defaults)."""

    beta: float = 0.5
    length_weighting: bool = True
    select: Selection = "f"  # "accuracy": v1.0's accuracy scorers

    def __post_init__(self) -> None:
        super().__post_init__()
        check_beta(self.beta)
        if self.select not in SELECTIONS:
            raise GECError(f"select must be one of {', '.join(SELECTIONS)}, got {self.select!r}")


@dataclass(frozen=True)
class CLEME2Config(_ChunkConfig):
    """``cleme2``'s options: ``factors`` None are the paper's for the level; ``weights`` an
    edit-weight provider (``gecscore.weights.make_provider``) gives CLEME2.0-sim."""

    factors: Factors | None = None
    weights: EditWeightProvider | None = None


class _ChunkMetric(Metric):
    @cached_property
    def resources(self) -> Resources:
        from gecscore.resources import load_resources

        assert isinstance(self.config, _ChunkConfig)
        return load_resources(self.config.resources)

    def _sentences(
        self, sources: Sequence[str], items: Gold | Sequence[Sequence[str]]
    ) -> list[Sentence]:
        if isinstance(items, Gold):
            return sentences_from_m2(items)
        config = self.config
        assert isinstance(config, _ChunkConfig)
        return sentences_from_texts(
            list(zip(sources, items, strict=True)),
            resources=None if config.granularity == ERRANT_GRANULARITY else self.resources,
            granularity=config.granularity,
            simplified=config.simplified,
            workers=config.workers,
        )

    def _inputs(
        self, sources: Sequence[str], hypotheses: Hypotheses, references: References
    ) -> tuple[list[Sentence], list[Sentence]]:
        check_corpus(sources, hypotheses, references)
        hyps = self._sentences(
            sources, hypotheses if isinstance(hypotheses, Gold) else [[h] for h in hypotheses]
        )
        if isinstance(references, Gold):
            refs = self._sentences(sources, references)
        else:
            refs = self._sentences(
                sources, [[refs[i] for refs in references] for i in range(len(sources))]
            )
        return hyps, refs


class CLEME(_ChunkMetric):
    """CLEME (chunk-level, length-weighted): ``score`` the F-beta; ``counts`` the weighted
    (TP, FP, FN) of the chosen references; ``details``: ``tn``, ``acc``, ``bias``, ``level``,
    ``assumption``. ``sentences`` are each sentence's rounded F and weighted counts with the
    sentence-level weights (as CLEME scores a sentence), at either level; at sentence level
    P/R/F are their rounded means. The score is assembled by ``cleme.scorers.score_cleme``,
    as the command's."""

    name = "cleme"
    Config = CLEMEConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        from gecscore.cleme.scorers import score_cleme

        config = self.config
        assert isinstance(config, CLEMEConfig)
        hyps, refs = self._inputs(sources, hypotheses, references)
        score, per_sentence = score_cleme(
            hyps,
            refs,
            level=config.level,
            assumption=config.assumption,
            length_weighting=config.length_weighting,
            beta=config.beta,
            max_refs=config.max_refs,
            select=config.select,
        )
        sentences = tuple(
            SentenceScore(s.f, (s.counts.tp, s.counts.fp, s.counts.fn)) for s in per_sentence
        )
        return counted_result(
            self.name,
            score,
            beta=score.beta,
            sentences=sentences,
            details={
                "tn": score.tn,
                "acc": score.acc,
                "bias": score.bias,
                "level": score.level,
                "assumption": score.assumption,
            },
        )


class CLEME2(_ChunkMetric):
    """CLEME2.0: ``score`` the weighted sum of hit, 1-wrong, 1-under and 1-over;
    ``counts`` (TP, FP, FN) of the chosen references; ``details``: ``hit``, ``wrong``,
    ``under``, ``over``, ``fp_ne``, ``fp_un``, ``tn``, ``level``, ``assumption``;
    ``sentences`` each sentence's score with the sentence-level factors (and the counts of
    its chosen reference), without model ``weights`` only."""

    name = "cleme2"
    Config = CLEME2Config

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        from gecscore.cleme.evaluate import evaluate_chunks
        from gecscore.cleme.v2 import score_evaluation2, sentence_scores2

        config = self.config
        assert isinstance(config, CLEME2Config)
        hyps, refs = self._inputs(sources, hypotheses, references)
        # What gecscore.cleme.cleme2 does, keeping the evaluation for the sentence scores.
        evaluation = evaluate_chunks(
            hyps, refs, assumption=config.assumption, max_refs=config.max_refs
        )
        score = score_evaluation2(
            evaluation, level=config.level, factors=config.factors, weights=config.weights
        )
        # Sentence scores only from plain chunk counts: with model weights they would ask
        # the model a second time.
        sentences = (
            tuple(
                SentenceScore(s.aspects.score, (s.counts.tp, s.counts.fp, s.counts.fn))
                for s in sentence_scores2(evaluation)
            )
            if config.weights is None
            else ()
        )
        return Result(
            metric=self.name,
            score=score.score,
            signature=score.signature,
            counts=(score.tp, score.fp, score.fn),
            sentences=sentences,
            details={
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
        )
