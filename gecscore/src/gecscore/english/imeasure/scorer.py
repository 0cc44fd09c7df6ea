"""I-measure of systems: configuration, results, and the choice of reference per sentence."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from gecscore.english.gleu import tokens as python2_tokens
from gecscore.english.imeasure.aligner import align_counts_many
from gecscore.english.imeasure.counts import ZERO, AspectScores, SentenceCounts
from gecscore.english.imeasure.references import GoldSentence, gold_sentences
from gecscore.errors import InputError, OptionError
from gecscore.m2 import M2Block
from gecscore.signature import COLON, Signature

__all__ = [
    "Cache",
    "IMeasureConfig",
    "IMeasureResult",
    "IMeasureSentence",
    "METRIC_VERSION",
    "OPTIMISE",
    "Optimise",
    "score_corpus",
    "score_systems",
]


METRIC_VERSION = "imeasure-fc79fdf-nomix"
Optimise = Literal["sentence", "corpus"]
OPTIMISE: tuple[Optimise, ...] = ("sentence", "corpus")


@dataclass(frozen=True)
class IMeasureConfig:
    weight: float = 2.0  # weight of TP and FP in WAcc (-w)
    beta: float = 1.0  # beta of the complementary F score (-b)
    optimise: Optimise = "sentence"  # -opt:sent|corpus

    def __post_init__(self) -> None:
        if self.optimise not in OPTIMISE:
            raise OptionError(
                f"optimise must be one of {', '.join(OPTIMISE)}, got {self.optimise!r}"
            )
        if not self.weight > 0:
            raise OptionError(f"the WAcc weight must be positive, got {self.weight}")

    @property
    def signature(self) -> str:
        return Signature(
            "imeasure",
            METRIC_VERSION,
            (
                ("level", "token"),
                ("max", "correction-wacc"),
                ("optimise", self.optimise),
                ("w", f"{self.weight:g}"),
                ("beta", f"{self.beta:g}"),
                ("refs", "per-annotator"),
            ),
            style=COLON,
        ).text


@dataclass(frozen=True)
class IMeasureSentence:
    reference: int  # index of the chosen candidate in GoldSentence.references
    counts: SentenceCounts
    base: SentenceCounts
    detection: AspectScores
    correction: AspectScores

    @property
    def imeasure(self) -> float:
        return self.correction.i


@dataclass(frozen=True)
class IMeasureResult:
    detection: AspectScores
    correction: AspectScores
    sentences: list[IMeasureSentence]
    config: IMeasureConfig = field(default_factory=IMeasureConfig)

    @property
    def imeasure(self) -> float:
        """Corpus I of correction, a fraction in [-1, 1] (the reference prints it x 100)."""
        return self.correction.i

    @property
    def signature(self) -> str:
        return self.config.signature


def _sentence_key(detection: AspectScores, correction: AspectScores) -> tuple[float, ...]:
    return correction.key() + detection.key()


def _scores(
    counts: SentenceCounts, base: SentenceCounts, config: IMeasureConfig
) -> tuple[AspectScores, AspectScores]:
    return (
        AspectScores.of(counts.detection, base.detection, weight=config.weight, beta=config.beta),
        AspectScores.of(counts.correction, base.correction, weight=config.weight, beta=config.beta),
    )


Cache = dict[tuple[tuple[str, ...], ...], SentenceCounts]


def _fill_cache(
    systems: Iterable[Sequence[Sequence[str]]], gold: Sequence[GoldSentence], cache: Cache
) -> None:
    """Align every (source, hypothesis, reference) the systems need, in batches, once."""
    needed: dict[tuple[tuple[str, ...], ...], None] = {}
    for hypotheses in systems:
        for hypothesis, sentence in zip(hypotheses, gold, strict=True):
            hyp = tuple(hypothesis)
            if hyp != sentence.source:
                for reference in sentence.references:
                    key = (sentence.source, hyp, reference)
                    if key not in cache:
                        needed[key] = None
    keys = list(needed)
    cache.update(zip(keys, align_counts_many([(s, h, r) for s, h, r in keys]), strict=True))


def score_corpus(
    hypotheses: Sequence[Sequence[str]],
    gold: Sequence[GoldSentence],
    config: IMeasureConfig | None = None,
    *,
    cache: Cache | None = None,
) -> IMeasureResult:
    """I-measure of one system: ``hypotheses`` are token lists, one per gold sentence."""
    config = config or IMeasureConfig()
    if len(hypotheses) != len(gold):
        raise InputError(f"{len(hypotheses)} hypotheses for {len(gold)} gold sentences")
    cache = {} if cache is None else cache
    _fill_cache([hypotheses], gold, cache)
    total, total_base = ZERO, ZERO
    results: list[IMeasureSentence] = []
    for hypothesis, sentence in zip(hypotheses, gold, strict=True):
        hyp = tuple(hypothesis)
        best: tuple[float, ...] | None = None
        chosen: IMeasureSentence | None = None
        for index, (reference, base) in enumerate(
            zip(sentence.references, sentence.base, strict=True)
        ):
            # The source as hypothesis is the baseline's own alignment.
            counts = base if hyp == sentence.source else cache[(sentence.source, hyp, reference)]
            detection, correction = _scores(counts, base, config)
            if config.optimise == "corpus":
                compared = _sentence_key(*_scores(total + counts, total_base + base, config))
            else:
                compared = _sentence_key(detection, correction)
            if best is None or compared > best:
                best = compared
                chosen = IMeasureSentence(index, counts, base, detection, correction)
        assert chosen is not None  # every gold sentence has at least one reference
        results.append(chosen)
        total += chosen.counts
        total_base += chosen.base
    detection, correction = _scores(total, total_base, config)
    return IMeasureResult(detection, correction, results, config)


def score_systems(
    hyp_lines_by_system: Mapping[str, Sequence[str]],
    gold_blocks: Sequence[M2Block] | Sequence[GoldSentence],
    config: IMeasureConfig | None = None,
) -> dict[str, IMeasureResult]:
    """I-measure of several systems (raw output lines, one per gold block) in one pass."""
    gold: Sequence[GoldSentence]
    if gold_blocks and isinstance(gold_blocks[0], M2Block):
        gold = gold_sentences([b for b in gold_blocks if isinstance(b, M2Block)])
    else:
        gold = [g for g in gold_blocks if isinstance(g, GoldSentence)]
    tokenised = {
        system: [python2_tokens(line) for line in lines]
        for system, lines in hyp_lines_by_system.items()
    }
    for system, hypotheses in tokenised.items():
        if len(hypotheses) != len(gold):
            raise InputError(f"{system}: {len(hypotheses)} lines for {len(gold)} gold sentences")
    cache: Cache = {}
    _fill_cache(tokenised.values(), gold, cache)  # one batched alignment pass for all systems
    return {
        system: score_corpus(hypotheses, gold, config, cache=cache)
        for system, hypotheses in tokenised.items()
    }
