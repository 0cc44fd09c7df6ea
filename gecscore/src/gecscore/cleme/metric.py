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
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    check_corpus,
)
from gecscore.options import check_beta, check_choice, check_count

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
        check_choice(self.level, "level", LEVELS)
        check_choice(self.assumption, "assumption", ASSUMPTIONS)
        check_choice(self.granularity, "granularity", GRANULARITIES)
        check_count(self.max_refs, "max_refs", optional=True)
        check_count(self.workers, "workers")


@dataclass(frozen=True)
class CLEMEConfig(_ChunkConfig):
    """``cleme``'s options (CLEME v1.0's defaults)."""

    beta: float = 0.5
    length_weighting: bool = True
    select: Selection = "f"  # "accuracy": v1.0's accuracy scorers

    def __post_init__(self) -> None:
        super().__post_init__()
        check_beta(self.beta)
        check_choice(self.select, "select", SELECTIONS)


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
    ``assumption``, all at full precision. ``sentences`` are each sentence's F (CLEME's own
    4-decimal value, with which it chooses the reference) and weighted counts with the
    sentence-level weights (as CLEME scores a sentence), at either level; at sentence level
    P/R/F are their unrounded means. Assembled by ``cleme.scorers.cleme_fields`` (over
    ``score_cleme``), as the command's."""

    name = "cleme"
    Config = CLEMEConfig

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        from gecscore.cleme.scorers import cleme_fields

        config = self.config
        assert isinstance(config, CLEMEConfig)
        hyps, refs = self._inputs(sources, hypotheses, references)
        _, fields = cleme_fields(
            hyps,
            refs,
            level=config.level,
            assumption=config.assumption,
            length_weighting=config.length_weighting,
            beta=config.beta,
            max_refs=config.max_refs,
            select=config.select,
        )
        return Result.from_fields(**fields)


class CLEME2(_ChunkMetric):
    """CLEME2.0: ``score`` the weighted sum of hit, 1-wrong, 1-under and 1-over;
    ``counts`` (TP, FP, FN) of the chosen references; ``details``: ``hit``, ``wrong``,
    ``under``, ``over``, ``fp_ne``, ``fp_un``, ``tn``, ``level``, ``assumption``;
    ``sentences`` each sentence's score with the sentence-level factors (and the counts of
    its chosen reference), without model ``weights`` only. Assembled by
    ``cleme.v2.cleme2_fields`` (over ``score_cleme2``), as the command's."""

    name = "cleme2"
    Config = CLEME2Config

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        from gecscore.cleme.v2 import cleme2_fields

        config = self.config
        assert isinstance(config, CLEME2Config)
        hyps, refs = self._inputs(sources, hypotheses, references)
        _, fields = cleme2_fields(
            hyps,
            refs,
            level=config.level,
            assumption=config.assumption,
            factors=config.factors,
            weights=config.weights,
            max_refs=config.max_refs,
        )
        return Result.from_fields(**fields)
