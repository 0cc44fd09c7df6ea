"""Compute metric scores on system outputs for meta-evaluation, by metric name.

``meta system --compute m2 sentm2 gleu --outputs DIR --gold GOLD.m2 [--lines FILE]
[--refs REF ...]`` (its options are ``gecscore.commands.meta``'s) scores every system file of DIR (``<SYSTEM>`` or ``<SYSTEM>.txt``, one
tokenised sentence per line) with our own implementations and meta-evaluates the scores in the
same call, beside any ``--metric NAME=SCORES`` files. ``--lines`` (1-based line numbers into
GOLD.m2, one per output line) scores a subset, e.g. SEEDA's 391 sentences against the CoNLL-14
gold blocks. :data:`METRICS` maps a name to a function
``(inputs, cache) -> MetricScores``: the metrics of the library's registry
(``gecscore/src/gecscore/registry.py``) that name a ``meta`` function here (system scores, and per-sentence statistics where the
metric has them, for ``--bootstrap-sentences``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from gecscore import registry
from gecscore.errors import InputError, InputFormatError, OptionError, read_lines
from gecscore.m2 import M2Block, read_m2
from gecscore.meta.aggregation_names import aggregation_name

if TYPE_CHECKING:
    from gecscore.metric import Hypotheses, MetricConfig, References, Result

__all__ = [
    "METRICS",
    "FloatArray",
    "Inputs",
    "MetricFunction",
    "MetricScores",
    "PLAIN_REFERENCE_METRICS",
    "compute",
    "compute_all",
    "gleu_scores",
    "imeasure_scores",
    "load_inputs",
    "m2_scores",
    "metric_results",
    "read_outputs",
    "result_scores",
    "sentm2_scores",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Inputs:
    """What a metric may need: system outputs, gold M2 blocks, plain references, sources."""

    outputs: Mapping[str, list[str]]
    gold: Sequence[M2Block]
    references: Sequence[Sequence[str]]
    # The edit-based metrics (gecscore.meta.compute_edits): the extraction language (None:
    # read off the gold) and PT-M2's BERT model and layer.
    language: str | None = None
    ptm2_model: str | None = None
    ptm2_layers: int | None = None

    @property
    def sources(self) -> list[str]:
        return [block.source for block in self.gold]


@dataclass(frozen=True)
class MetricScores:
    """A metric's system scores and, where it has them, per-sentence statistics for the
    bootstrap over sentences: ``sentence_stats[system]`` (sentences x k) and ``aggregate``
    (the score from the column sums of those statistics and the number of sentences), and
    sentence scores (``sentence_scores[system]``, one per sentence) for rankings by
    TrueSkill / Expected Wins (:mod:`gecscore.meta.aggregation`)."""

    scores: dict[str, float]
    sentence_stats: dict[str, FloatArray] | None = None
    aggregate: Callable[[FloatArray, int], float] | None = None
    sentence_scores: dict[str, list[float]] | None = None


MetricFunction = Callable[[Inputs, dict[str, object]], MetricScores]

# The metrics that score against plain reference sentences (``--refs``). They do not fall back
# on the gold M2: its annotators' edits applied to the sources are not the reference files
# that gec-metrics and the GLEU script read (e.g. CoNLL-14's REF0/REF1), so scores would
# silently differ from theirs.
PLAIN_REFERENCE_METRICS = ("gleu", "gleu-gecm", "green")


def metric_results(
    name: str,
    inputs: Inputs,
    cache: dict[str, object],
    *,
    config: MetricConfig | None = None,
    hypotheses: Mapping[str, Hypotheses] | None = None,
    references: References | None = None,
) -> dict[str, Result]:
    """Each system's ``get_metric(name)(config).score_corpus(sources, hypotheses, references)``
    (the library's one calling convention), computed once per call (``cache``).
    ``hypotheses`` default to the system outputs, ``references`` to the gold M2 blocks."""
    key = f"results-{name}"
    if key not in cache:
        from gecscore.metric import Gold

        metric = registry.get_metric(name)(config)
        gold = Gold(inputs.gold) if references is None else references
        outputs: Mapping[str, Hypotheses] = inputs.outputs if hypotheses is None else hypotheses
        cache[key] = {
            system: metric.score_corpus(inputs.sources, hyp, gold)
            for system, hyp in outputs.items()
        }
    results: dict[str, Result] = cache[key]  # type: ignore[assignment]
    return results


def result_scores(
    results: Mapping[str, Result],
    sentence_stats: dict[str, FloatArray] | None = None,
    aggregate: Callable[[FloatArray, int], float] | None = None,
    *,
    with_sentences: bool = True,
    digits: int | None = None,
) -> MetricScores:
    """``MetricScores`` of ``Result``s: the headline scores and (``with_sentences``) each
    sentence's score. ``digits``: the headline rounded as the reference tool prints it (a
    Result is at full precision; the published correlations were computed on printed
    scores)."""
    return MetricScores(
        {s: r.score if digits is None else round(r.score, digits) for s, r in results.items()},
        sentence_stats,
        aggregate,
        {s: [float(x.score) for x in r.sentences] for s, r in results.items()}
        if with_sentences
        else None,
    )


def _f_half(sums: FloatArray, sentences: int) -> float:
    from gecscore.counts import Counts

    tp, proposed, gold = (int(v) for v in sums.tolist())
    return Counts.from_totals(tp, proposed, gold).f_score(convention="m2scorer")


def _counts(result: Result) -> list[tuple[float, float, float]]:
    return [s.counts for s in result.sentences if s.counts is not None]


def m2_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    results = metric_results("m2", inputs, cache)
    # The bootstrap resamples (TP, proposed, gold) of each sentence's chosen annotator.
    stats = {
        system: np.array([(tp, tp + fp, tp + fn) for tp, fp, fn in _counts(result)], dtype=float)
        for system, result in results.items()
    }
    return result_scores(results, stats, _f_half)


def _mean(sums: FloatArray, sentences: int) -> float:
    return float(sums[0]) / sentences


def sentm2_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    results = metric_results("sentm2", inputs, cache)
    stats = {
        s: np.array([x.score for x in r.sentences], dtype=float)[:, None]
        for s, r in results.items()
    }
    return result_scores(results, stats, _mean)


def _plain_references(inputs: Inputs, name: str) -> Sequence[Sequence[str]]:
    if not inputs.references:
        raise InputError(f"{name} needs plain reference files (one sentence per line)")
    return inputs.references


def gleu_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    references = _plain_references(inputs, "GLEU")
    from gecscore.english.gleu import GLEU

    metric = GLEU()  # get_metric("gleu")
    # The class's prepared corpus: the references' n-grams counted once for every system.
    corpus = metric.corpus(inputs.sources, references)
    return result_scores(
        {s: metric.score_prepared(corpus, lines) for s, lines in inputs.outputs.items()}
    )


def gleu_gecm_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """gec-metrics 0.1.1's GLEU (its GREEN-style counts and Python 3 draws), for comparing
    with the figures it prints; ``gleu`` is the reference script's."""
    references = _plain_references(inputs, "gleu-gecm")
    results = metric_results("gleu-gecm", inputs, cache, references=references)
    return result_scores(results, with_sentences=False)


def green_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """GREEN with gec-metrics' defaults (word units, n 4, beta 2) against ``--refs``."""
    from gecscore.green import GREEN, green_from_counts

    references = _plain_references(inputs, "green")
    metric = GREEN()
    # The class's prepared corpus (references read once for every system) and its
    # Result; the per-order counts of each sentence, which the bootstrap resamples, are
    # not in the Result.
    corpus = metric.corpus(inputs.sources, references)
    stats: dict[str, FloatArray] = {}
    results: dict[str, Result] = {}
    for system, lines in inputs.outputs.items():
        scored = corpus.score(lines)
        results[system] = metric.result(corpus, scored)
        stats[system] = scored.counts.reshape(scored.counts.shape[0], -1).astype(float)

    def aggregate(sums: FloatArray, sentences: int) -> float:
        return green_from_counts(sums.reshape(corpus.n, 3).tolist(), corpus.beta)

    return result_scores(results, stats, aggregate)


def imeasure_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    return result_scores(metric_results("imeasure", inputs, cache), with_sentences=False)


# The functions above, as the registry names them (this module is loaded by then).
METRICS: dict[str, MetricFunction] = {
    name: cast(MetricFunction, registry.load(str(registry.METRICS[name].meta)))
    for name in registry.meta_metrics()
}


def read_outputs(folder: str | Path, systems: Sequence[str] | None = None) -> dict[str, list[str]]:
    """System outputs of a folder: ``<SYSTEM>`` or ``<SYSTEM>.txt`` files."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder of system outputs")
    outputs: dict[str, list[str]] = {}
    for file in sorted(root.iterdir()):
        if not file.is_file() or file.name.startswith("."):
            continue
        name = file.name[: -len(".txt")] if file.name.endswith(".txt") else file.name
        if systems is not None and name not in systems:
            continue
        outputs[name] = read_lines(file)
    if systems is not None:
        missing = [s for s in systems if s not in outputs]
        if missing:
            raise InputError(f"{root}: no output file for {', '.join(missing)}")
    return outputs


def load_inputs(
    outputs: str | Path,
    gold: str | Path,
    *,
    lines: str | Path | None = None,
    references: Sequence[str | Path] = (),
    systems: Sequence[str] | None = None,
    language: str | None = None,
    ptm2_model: str | None = None,
    ptm2_layers: int | None = None,
) -> Inputs:
    """Outputs, the gold blocks (the ``lines`` subset when given) and reference files."""
    blocks = read_m2(str(gold))
    if lines is not None:
        numbers: list[int] = []
        for n, text in enumerate(read_lines(Path(lines)), 1):
            if not text.strip():
                continue
            try:
                numbers.append(int(text))
            except ValueError:
                raise InputFormatError(str(lines), n, f"{text!r} is not a line number") from None
            if not 1 <= numbers[-1] <= len(blocks):
                raise InputFormatError(
                    str(lines), n, f"line {numbers[-1]} is outside the gold file (1..{len(blocks)})"
                )
        blocks = [blocks[k - 1] for k in numbers]
    outs = read_outputs(outputs, systems)
    for system, hyp in outs.items():
        if len(hyp) != len(blocks):
            raise InputError(
                f"{outputs}/{system}: {len(hyp)} lines for {len(blocks)} gold sentences"
            )
    refs = [read_lines(Path(r)) for r in references]
    return Inputs(
        outputs=outs,
        gold=blocks,
        references=refs,
        language=language,
        ptm2_model=ptm2_model,
        ptm2_layers=ptm2_layers,
    )


def compute_all(names: Sequence[str], inputs: Inputs) -> dict[str, MetricScores]:
    """The registry metrics ``names`` on ``inputs`` (scores and sentence statistics)."""
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise OptionError(f"unknown metrics {', '.join(unknown)} (known: {', '.join(METRICS)})")
    cache: dict[str, object] = {}
    return {name: METRICS[name](inputs, cache) for name in names}


def compute(names: Sequence[str], inputs: Inputs) -> dict[str, dict[str, float]]:
    """``{metric: {system: score}}`` for the registry metrics ``names``."""
    return {name: result.scores for name, result in compute_all(names, inputs).items()}


def aggregated(
    name: str, result: MetricScores, method: str, systems: Sequence[str]
) -> dict[str, float]:
    """``result``'s system scores under ``method`` (see :mod:`gecscore.meta.aggregation`),
    ranking ``systems`` only, in that order (TrueSkill depends on it)."""
    from gecscore.meta.aggregation import aggregate

    if method == "default":
        return result.scores
    if result.sentence_scores is None:
        raise InputError(f"{name} has no sentence scores to aggregate by {method}")
    return aggregate(aggregation_name(method), {s: result.sentence_scores[s] for s in systems})
