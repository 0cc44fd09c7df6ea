"""PT-M2 in the library's calling convention: ``PTM2`` (edit files, ``gecscore.ptm2``) and
``PTM2M2`` (text against gold on the MaxMatch lattice, ``gecscore.ptm2_m2``). Both need an
edit-weight provider in their ``Config``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.errors import InputError, OptionError
from gecscore.m2 import M2Block
from gecscore.maxmatch.scorer import DEFAULT_MAX_ARCS
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
from gecscore.options import check_beta, check_choice, check_count
from gecscore.ptm2 import DEFAULT_CHUNK, GRANULARITIES, LEVELS, PTM2Result, score_ptm2
from gecscore.ptm2_m2 import score_ptm2_m2
from gecscore.weights.base import EditWeightProvider

__all__ = ["PTM2", "PTM2Config", "PTM2M2", "PTM2M2Config", "ptm2_result", "required_provider"]


@dataclass(frozen=True)
class PTM2Config(MetricConfig):
    """PT-M2's options. ``weights`` is required: an edit-weight provider
    (``gecscore.weights.make_provider(MODEL_PATH)`` for BERTScore weights, ``SelfWeights()``
    for weight 1, i.e. ChERRANT's counts). Text inputs are extracted like ChERRANT's."""

    weights: EditWeightProvider | None = None
    level: str = "corpus"  # or "sentence"
    granularity: str = "char"  # "word": word edits (PT-ERRANT; jieba words for Chinese text)
    beta: float = 0.5
    max_refs: int | None = None
    resources: str | None = None  # ChERRANT's data folder for text inputs
    chunk_size: int = DEFAULT_CHUNK

    def __post_init__(self) -> None:
        check_choice(self.level, "level", LEVELS)
        check_choice(self.granularity, "granularity", GRANULARITIES)
        check_beta(self.beta)
        check_count(self.max_refs, "max_refs", optional=True)
        check_count(self.chunk_size, "chunk_size")


def required_provider(weights: EditWeightProvider | None, metric: str) -> EditWeightProvider:
    if weights is None:
        raise OptionError(
            f"{metric} needs edit weights: Config(weights=make_provider(MODEL_PATH)) "
            "(gecscore.weights), or weights=SelfWeights() to count every edit as 1"
        )
    return weights


def ptm2_result(name: str, result: PTM2Result, details: dict[str, object]) -> Result:
    """A weighted result in the calling convention (sentences: F with weighted counts)."""
    return counted_result(
        name,
        result,
        beta=result.beta,
        sentences=(
            SentenceScore(s.f, (s.counts.tp, s.counts.fp, s.counts.fn)) for s in result.sentences
        ),
        details={"level": result.level, **details},
    )


class PTM2(Metric):
    """PT-M2 (char edits) / PT-ERRANT (word edits): P/R/F of weighted edit counts;
    ``counts`` the weighted (TP, FP, FN); ``sentences`` each sentence's F and counts;
    ``details``: ``level``. Hypotheses and references: ``Gold`` M2 blocks, or text (the char
    extractor, as ChERRANT)."""

    name = "ptm2"
    Config = PTM2Config

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        assert isinstance(self.config, PTM2Config)
        self.provider = required_provider(self.config.weights, "PT-M2")

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        config = self.config
        assert isinstance(config, PTM2Config)
        blocks: list[Sequence[M2Block]] = []
        for texts in (hypotheses, references):
            if isinstance(texts, Gold):
                blocks.append(texts)
                continue
            from gecscore.cherrant import char_blocks
            from gecscore.resources import load_resources

            per_sentence = (
                [[t] for t in texts]
                if texts is hypotheses
                else [[refs[i] for refs in texts] for i in range(len(sources))]
            )
            blocks.append(
                char_blocks(
                    sources,
                    per_sentence,  # type: ignore[arg-type]
                    resources=load_resources(config.resources),
                    granularity=config.granularity,
                )
            )
        result = score_ptm2(
            blocks[0],
            blocks[1],
            self.provider,
            level=config.level,
            granularity=config.granularity,
            beta=config.beta,
            max_refs=config.max_refs,
            chunk_size=config.chunk_size,
        )
        return ptm2_result(self.name, result, {})


@dataclass(frozen=True)
class PTM2M2Config(MetricConfig):
    """PT-M2 on the MaxMatch lattice (``--base m2``: level corpus; ``sentm2``: sentence);
    ``weights`` is required, as for ``ptm2``."""

    weights: EditWeightProvider | None = None
    level: str = "corpus"
    beta: float = 0.5
    max_unchanged_words: int = 2
    max_arcs: int | None = DEFAULT_MAX_ARCS
    chunk_size: int = DEFAULT_CHUNK

    def __post_init__(self) -> None:
        check_choice(self.level, "level", LEVELS)
        check_beta(self.beta)
        check_count(self.max_unchanged_words, "max_unchanged_words", 0)
        check_count(self.max_arcs, "max_arcs", 0, optional=True)
        check_count(self.chunk_size, "chunk_size")


class PTM2M2(Metric):
    """PT-M2 with m2scorer's edits: hypotheses are text, references ``Gold`` (or text with
    the English extractor, as M2); ``details``: ``level``, ``bounded_sentences``."""

    name = "ptm2-m2"
    Config = PTM2M2Config

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        assert isinstance(self.config, PTM2M2Config)
        self.provider = required_provider(self.config.weights, "PT-M2")

    def score_corpus(
        self, sources: Sequence[str], hypotheses: Hypotheses, references: References = ()
    ) -> Result:
        from gecscore.maxmatch.scorer import gold_from_references

        check_corpus(sources, hypotheses, references)
        if isinstance(hypotheses, Gold):
            raise InputError("PT-M2 (MaxMatch) takes the system's corrected text, not its M2 edits")
        c = self.config
        assert isinstance(c, PTM2M2Config)
        result, bounded = score_ptm2_m2(
            hypotheses,
            gold_from_references(sources, references),
            self.provider,
            level=c.level,
            beta=c.beta,
            max_unchanged_words=c.max_unchanged_words,
            max_arcs=c.max_arcs,
            chunk_size=c.chunk_size,
        )
        return ptm2_result(self.name, result, {"bounded_sentences": bounded})
