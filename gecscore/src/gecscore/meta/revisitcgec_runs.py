"""One metric on a RevisitCGEC corpus: the system scores, the sentence statistics the
intervals resample and the sentence scores the aggregations rank, through the library's one
extractor and scorers (used by :mod:`gecscore.meta.revisitcgec_metrics`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gecscore.errors import OptionError, Unavailable
from gecscore.m2 import M2Block
from gecscore.meta.compute_edits import counts_f_half, edit_count_scores
from gecscore.meta.revisitcgec import SYSTEMS, Corpus
from gecscore.mucgec import ParallelLine

if TYPE_CHECKING:
    from gecscore.metric import Metric, MetricConfig, Result

__all__ = [
    "Extraction",
    "ExtractionMemo",
    "FloatArray",
    "METRIC_NAMES",
    "MetricRun",
    "MetricUnavailable",
    "char_split",
    "cherrant",
    "cleme2_metric",
    "cleme_metric",
    "length_metric",
    "ptm2_metric",
    "run_metric",
]


FloatArray = npt.NDArray[np.float64]

# Extracted sentences shared by several Extractions (the corpora and reference sets of one
# report): (resources signature, granularity, source, targets) -> its M2 block. A block
# depends on nothing else (its line number is set where it is used), so a sentence already
# extracted is not extracted again.
ExtractionMemo = dict[tuple[str, str, str, tuple[str, ...]], M2Block]

METRIC_NAMES = (
    "cherrant-char",
    "cherrant-word",
    "cleme-dependent",
    "cleme-independent",
    "cleme2",
    "gleu-char",
    "green",
    "ptm2",
    "length",
)


class MetricUnavailable(Unavailable):
    """A metric that cannot run here (no model configured, not in the registry yet)."""


@dataclass(frozen=True)
class MetricRun:
    """One metric on one corpus: system scores, per-sentence scores, and for the bootstrap
    over sentences the per-sentence statistics and how they make the system score."""

    name: str
    signature: str
    scores: dict[str, float]
    sentence_scores: dict[str, list[float]]
    sentence_stats: dict[str, FloatArray] | None = None
    aggregate: Callable[[FloatArray, int], float] | None = None
    notes: tuple[str, ...] = field(default=())


class Extraction:
    """The M2 blocks of a corpus's references and outputs, extracted once per granularity;
    with a ``memo`` shared by several Extractions, each sentence once for all of them."""

    def __init__(
        self, corpus: Corpus, resources: Any = None, memo: ExtractionMemo | None = None
    ) -> None:
        from gecscore.resources import resources_from_env

        self.corpus = corpus
        self.resources = resources if resources is not None else resources_from_env()
        self.memo = memo
        self._blocks: dict[tuple[str, str], list[Any]] = {}

    def fields(self, granularity: str) -> tuple[tuple[str, str], ...]:
        """The extraction part of a signature, as ``python -m gecscore score`` writes it."""
        return (
            ("granularity", granularity + ("-jieba" if granularity == "word" else "")),
            ("strategy", "all"),
            ("simplified", "yes"),
            ("resources", self.resources.signature),
            ("data", f"revisitcgec-{self.corpus.name}({self.corpus.reference_set})"),
        )

    def blocks(self, who: str, granularity: str = "char") -> list[Any]:
        """``who`` = ``"reference"`` or a system name."""
        key = (who, granularity)
        if key not in self._blocks:
            lines = (
                self.corpus.reference_lines()
                if who == "reference"
                else self.corpus.hypothesis_lines(who)
            )
            name = f"revisitcgec/{self.corpus.name}/{who}"
            self._blocks[key] = self._extract(lines, granularity, name)
        return self._blocks[key]

    def _extract(self, lines: list[ParallelLine], granularity: str, name: str) -> list[M2Block]:
        """``parallel_to_m2``'s blocks of ``lines``; with a memo, only the lines it lacks are
        extracted, and every block gets its line's number, as ``parallel_to_m2`` gives it."""
        from gecscore.extract import parallel_to_m2

        if self.memo is None:
            return parallel_to_m2(
                lines, resources=self.resources, granularity=granularity, name=name
            )[0]
        memo = self.memo
        keys = [(self.resources.signature, granularity, ln.source, ln.targets) for ln in lines]
        missing = {key: line for key, line in zip(keys, lines, strict=True) if key not in memo}
        if missing:
            blocks, _ = parallel_to_m2(
                list(missing.values()),
                resources=self.resources,
                granularity=granularity,
                name=name,
            )
            memo.update(zip(missing, blocks, strict=True))
        return [
            M2Block(memo[key].source, memo[key].targets, line.line)
            for key, line in zip(keys, lines, strict=True)
        ]


def _mean(sums: FloatArray, sentences: int) -> float:
    return float(sums[0]) / sentences


def cherrant(extraction: Extraction, granularity: str) -> MetricRun:
    from gecscore.compare import compare_m2

    ref = extraction.blocks("reference", granularity)
    results = {
        system: compare_m2(
            extraction.blocks(system, granularity),
            ref,
            signature_fields=extraction.fields(granularity),
        )
        for system in SYSTEMS
    }
    scores = {system: result.f for system, result in results.items()}
    stats, sentence = edit_count_scores(results)
    signature = results[SYSTEMS[-1]].signature
    return MetricRun(f"cherrant-{granularity}", signature, scores, sentence, stats, counts_f_half)


def _chunk_scores(
    extraction: Extraction, name: str, config: MetricConfig
) -> tuple[dict[str, float], dict[str, list[float]], str]:
    """System scores, sentence scores and the signature of ``get_metric(name)(config)`` on
    each system's blocks against the reference's."""
    from gecscore.metric import Gold
    from gecscore.registry import get_metric

    ref = Gold(extraction.blocks("reference"))
    metric = get_metric(name)(config)
    scores: dict[str, float] = {}
    sentence: dict[str, list[float]] = {}
    signature = ""
    for system in SYSTEMS:
        result = metric.score_corpus(ref.sources, Gold(extraction.blocks(system)), ref)
        scores[system] = result.score
        sentence[system] = [s.score for s in result.sentences]
        signature = result.signature
    return scores, sentence, signature


def cleme_metric(extraction: Extraction, assumption: str) -> MetricRun:
    from gecscore.cleme.metric import CLEMEConfig

    scores, sentence, signature = _chunk_scores(
        extraction,
        "cleme",
        CLEMEConfig(assumption=assumption),  # type: ignore[arg-type]
    )
    return MetricRun(f"cleme-{assumption}", _with_data(signature, extraction), scores, sentence)


def cleme2_metric(extraction: Extraction) -> MetricRun:
    from gecscore.cleme.metric import CLEME2Config

    scores, sentence, signature = _chunk_scores(extraction, "cleme2", CLEME2Config())
    return MetricRun("cleme2", _with_data(signature, extraction), scores, sentence)


def _with_data(signature: str, extraction: Extraction) -> str:
    """A CLEME signature plus how its edits were extracted (char, resources, data)."""
    return signature + "|" + "|".join(f"{k}:{v}" for k, v in extraction.fields("char"))


def char_split(text: str) -> str:
    """Characters separated by spaces (whitespace removed): char units for word-unit metrics."""
    from gecscore.tokenize import char_tokens, remove_whitespace

    return " ".join(char_tokens(remove_whitespace(text)))


def _text_metric(corpus: Corpus, name: str, registry_name: str) -> MetricRun:
    """A ``gecscore.metric`` metric on char-split text (GLEU, GREEN)."""
    from gecscore.registry import get_metric, metric_names

    if registry_name not in metric_names():
        raise MetricUnavailable(
            f"{registry_name}: not in this library's registry (get_metric knows "
            f"{', '.join(metric_names())})"
        )
    cls: type[Metric] = get_metric(registry_name)
    metric = cls(cls.Config())
    sources = [char_split(s) for s in corpus.sources]
    references = [[char_split(r) for r in refs] for refs in corpus.reference_sets()]
    scores: dict[str, float] = {}
    sentence: dict[str, list[float]] = {}
    signature = ""
    score = _system_scorer(metric, sources, references)
    for system in SYSTEMS:
        result = score([char_split(h) for h in corpus.outputs[system]])
        scores[system] = result.score
        sentence[system] = [s.score for s in result.sentences]
        signature = result.signature
    signature += f"|units:char(split)|data:revisitcgec-{corpus.name}({corpus.reference_set})"
    return MetricRun(name, signature, scores, sentence)


def _system_scorer(
    metric: Metric, sources: list[str], references: list[list[str]]
) -> Callable[[list[str]], Result]:
    """``metric.score_corpus`` of one system's hypotheses; GLEU and GREEN prepare the sources'
    and references' n-grams once here, for all the systems, instead of once per system."""
    from gecscore.english.gleu import GLEU
    from gecscore.green import GREEN

    if isinstance(metric, GLEU):
        gleu, prepared = metric, metric.corpus(sources, references)
        return lambda hyps: gleu.score_prepared(prepared, hyps)
    if isinstance(metric, GREEN):
        green, counts = metric, metric.corpus(sources, references)
        return lambda hyps: green.result(counts, counts.score(hyps))
    return lambda hyps: metric.score_corpus(sources, hyps, references)


def ptm2_metric(extraction: Extraction, model: str | None) -> MetricRun:
    if not model:
        raise MetricUnavailable(
            "ptm2: no Chinese BERT configured (pass --ptm2-model PATH, e.g. a local "
            "bert-base-chinese, as RevisitCGEC's paper used)"
        )
    from gecscore.ptm2 import score_ptm2
    from gecscore.weights import make_provider

    provider = make_provider(model)
    ref = extraction.blocks("reference")
    scores: dict[str, float] = {}
    sentence: dict[str, list[float]] = {}
    signature = ""
    for system in SYSTEMS:
        result = score_ptm2(extraction.blocks(system), ref, provider, granularity="char")
        scores[system] = result.f
        sentence[system] = [s.f for s in result.sentences]
        signature = result.signature
    return MetricRun("ptm2", _with_data(signature, extraction), scores, sentence)


def length_metric(corpus: Corpus) -> MetricRun:
    from gecscore.tokenize import char_tokens, remove_whitespace

    sentence = {
        system: [float(len(char_tokens(remove_whitespace(h)))) for h in corpus.outputs[system]]
        for system in SYSTEMS
    }
    scores = {system: float(np.mean(values)) for system, values in sentence.items()}
    stats = {system: np.array(values)[:, None] for system, values in sentence.items()}
    return MetricRun(
        "length",
        "length|units:char|score:mean characters per output",
        scores,
        sentence,
        stats,
        _mean,
    )


def run_metric(
    name: str,
    corpus: Corpus,
    extraction: Extraction,
    *,
    ptm2_model: str | None = None,
) -> MetricRun:
    """One of :data:`METRIC_NAMES` on the corpus; :class:`MetricUnavailable` when it cannot
    run here."""
    if name == "cherrant-char":
        return cherrant(extraction, "char")
    if name == "cherrant-word":
        return cherrant(extraction, "word")
    if name in ("cleme-dependent", "cleme-independent"):
        return cleme_metric(extraction, name.split("-", 1)[1])
    if name == "cleme2":
        return cleme2_metric(extraction)
    if name == "gleu-char":
        return _text_metric(corpus, name, "gleu")
    if name == "green":
        return _text_metric(corpus, name, "green")
    if name == "ptm2":
        return ptm2_metric(extraction, ptm2_model)
    if name == "length":
        return length_metric(corpus)
    raise OptionError(f"unknown metric {name!r} (known: {', '.join(METRIC_NAMES)})")
