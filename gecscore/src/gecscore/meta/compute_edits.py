"""The edit-based metrics of ``meta system --compute``: ChERRANT (char level), ERRANT, CLEME,
CLEME2.0 and PT-M2, each with its system scores and sentence scores (for ``--aggregation
trueskill|ew``), and for ChERRANT and ERRANT the per-sentence counts the bootstrap over
sentences resamples.

Each system's outputs are turned into M2 blocks against the gold's sources by the library's
one extractor of the gold's language, once per call (``cache``): ChERRANT's char-level
extraction (``gecscore.extract.parallel_to_m2``, with the resources $GEC_CHERRANT_RESOURCES
names, as every command) for Chinese, ERRANT's
(``gecscore.english.errant_edits.parallel_to_m2_blocks``, needs the spaCy model) for English.
The language is ``Inputs.language`` when set (``--language``), else read off the gold: CJK
characters in its sources mean Chinese. ChERRANT is Chinese only and ERRANT English only;
CLEME, CLEME2.0 and PT-M2 follow the gold. PT-M2 needs a BERT model (``--ptm2-model``):
Chinese PT-M2 on the char blocks as ``python -m gecscore ptm2``, English PT-M2 on the
MaxMatch lattice (PT-M2's ``--base m2``; its sentence scores are the sentence level's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from gecscore.errors import InputError, OptionError

if TYPE_CHECKING:
    from gecscore.m2 import M2Block
    from gecscore.meta.compute import FloatArray, Inputs, MetricScores
    from gecscore.metric import MetricConfig, Result

__all__ = [
    "cherrant_scores",
    "cleme2_scores",
    "cleme_scores",
    "counts_f_half",
    "edit_count_scores",
    "errant_scores",
    "gold_language",
    "hypothesis_blocks",
    "ptm2_scores",
]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def counts_f_half(sums: FloatArray, sentences: int) -> float:
    """F0.5 from summed (TP, FP, FN) columns: the bootstrap's aggregate for edit counts."""
    from gecscore.counts import Counts

    tp, fp, fn = (int(v) for v in sums.tolist())
    return Counts(tp, fp, fn).f_score(0.5)


def gold_language(inputs: Inputs) -> str:
    """``inputs.language`` if set, else ``zh`` when the gold's sources hold CJK characters."""
    if inputs.language:
        if inputs.language not in ("en", "zh"):
            raise OptionError(f"language must be en or zh, got {inputs.language!r}")
        return inputs.language
    return "zh" if any(_CJK.search(block.source) for block in inputs.gold) else "en"


def _require(inputs: Inputs, metric: str, language: str) -> None:
    found = gold_language(inputs)
    if found != language:
        names = {"en": "English", "zh": "Chinese"}
        raise InputError(
            f"{metric} scores {names[language]} outputs, and the gold is {names[found]} "
            f"({'set by --language' if inputs.language else 'read off its sources'})"
        )


def hypothesis_blocks(inputs: Inputs, cache: dict[str, object]) -> dict[str, list[M2Block]]:
    """Each system's M2 blocks against the gold's sources (extracted once per call)."""
    language = gold_language(inputs)
    key = f"blocks-{language}"
    if key not in cache:
        cache[key] = {
            system: _extract(inputs, lines, language) for system, lines in inputs.outputs.items()
        }
    blocks: dict[str, list[M2Block]] = cache[key]  # type: ignore[assignment]
    return blocks


def _extract(inputs: Inputs, hypotheses: list[str], language: str) -> list[M2Block]:
    if language == "zh":
        from gecscore.extract import parallel_to_m2
        from gecscore.mucgec import ParallelLine
        from gecscore.resources import resources_from_env

        lines = [
            ParallelLine(str(n), "".join(block.source.split()), (hyp,), n)
            for n, (block, hyp) in enumerate(zip(inputs.gold, hypotheses, strict=True), 1)
        ]
        # ChERRANT's resources (Cilin, confusion dictionary) as every CLI command finds them.
        return parallel_to_m2(
            lines, resources=resources_from_env(), granularity="char", name="meta system"
        )[0]
    from gecscore.english.errant_edits import parallel_to_m2_blocks

    sources = [block.source for block in inputs.gold]
    if any(not source.strip() for source in sources):
        raise InputError("the gold has an empty source sentence: ERRANT skips those lines")
    return parallel_to_m2_blocks(sources, [hypotheses])


def edit_count_scores(
    results: Mapping[str, Any],
) -> tuple[dict[str, FloatArray], dict[str, list[float]]]:
    """Per system, from a comparison result with ``sentences`` carrying tp/fp/fn (ChERRANT's
    ``compare_m2``, ERRANT's ``compare_blocks``): the (TP, FP, FN) rows the bootstrap over
    sentences resamples (:func:`counts_f_half` sums them back) and each sentence's F0.5,
    unrounded (what TrueSkill / Expected Wins rank)."""
    from gecscore.counts import Counts

    stats: dict[str, FloatArray] = {}
    sentence: dict[str, list[float]] = {}
    for system, result in results.items():
        counts = [(s.tp, s.fp, s.fn) for s in result.sentences]
        stats[system] = np.array(counts, dtype=float).reshape(-1, 3)
        sentence[system] = [Counts(*c).f_score(0.5) for c in counts]
    return stats, sentence


def _edit_results(
    name: str, inputs: Inputs, cache: dict[str, object], config: MetricConfig | None = None
) -> dict[str, Result]:
    """``get_metric(name)(config)`` of each system's extracted blocks against the gold."""
    from gecscore.meta.compute import metric_results
    from gecscore.metric import Gold

    blocks = hypothesis_blocks(inputs, cache)
    return metric_results(
        name,
        inputs,
        cache,
        config=config,
        hypotheses={system: Gold(hyp) for system, hyp in blocks.items()},
    )


def _counted_scores(results: Mapping[str, Result]) -> MetricScores:
    """System F0.5, the (TP, FP, FN) rows of each sentence the bootstrap over sentences
    resamples (:func:`counts_f_half` sums them back) and each sentence's F0.5, unrounded
    (what TrueSkill / Expected Wins rank). The system F0.5 is rounded to 4 decimals, as
    ChERRANT and errant_compare print it."""
    from gecscore.meta.compute import result_scores

    stats = {
        system: np.array([s.counts for s in result.sentences], dtype=float).reshape(-1, 3)
        for system, result in results.items()
    }
    return result_scores(results, stats, counts_f_half, digits=4)


def cherrant_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """ChERRANT char-level F0.5 (``compare``'s defaults) of each system against the gold."""
    _require(inputs, "cherrant", "zh")
    return _counted_scores(_edit_results("cherrant", inputs, cache))


def errant_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """ERRANT span-based correction F0.5 (``errant_compare``'s defaults) against the gold."""
    _require(inputs, "errant", "en")
    return _counted_scores(_edit_results("errant", inputs, cache))


def cleme_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """CLEME (v1.0 defaults: dependent, length-weighted) corpus F0.5; sentence scores with
    the sentence-level weights."""
    from gecscore.meta.compute import result_scores

    return result_scores(_edit_results("cleme", inputs, cache))


def cleme2_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """CLEME2.0 (unweighted chunk counts) corpus score and sentence scores."""
    from gecscore.meta.compute import result_scores

    return result_scores(_edit_results("cleme2", inputs, cache))


def ptm2_scores(inputs: Inputs, cache: dict[str, object]) -> MetricScores:
    """PT-M2 F0.5 with BERTScore edit weights from ``inputs.ptm2_model``.

    Not through ``get_metric``: English PT-M2 takes its corpus score and the sentence level's
    sentence scores from ONE weighted lattice pass (``score_ptm2_m2_levels``); the class
    would ask the model twice."""
    from gecscore.meta.compute import MetricScores
    from gecscore.weights import make_provider

    if not inputs.ptm2_model:
        raise OptionError(
            "ptm2 needs a BERT model: --ptm2-model PATH (a local folder or an installed model "
            "package, e.g. bert-base-uncased for English, bert-base-chinese for Chinese; "
            "--ptm2-layers N when bert-score knows no default layer for it)"
        )
    provider = make_provider(inputs.ptm2_model, num_layers=inputs.ptm2_layers)
    scores: dict[str, float] = {}
    sentence: dict[str, list[float]] = {}
    if gold_language(inputs) == "en":
        from gecscore.ptm2_m2 import score_ptm2_m2_levels

        for system, hypotheses in inputs.outputs.items():
            levels, _ = score_ptm2_m2_levels(hypotheses, inputs.gold, provider)
            scores[system] = levels["corpus"].f
            sentence[system] = levels["sentence"].sentence_f(len(hypotheses))
    else:
        from gecscore.ptm2 import score_ptm2

        for system, hyp in hypothesis_blocks(inputs, cache).items():
            result = score_ptm2(hyp, inputs.gold, provider, granularity="char")
            scores[system] = result.f
            sentence[system] = result.sentence_f(len(hyp))
    return MetricScores(scores, sentence_scores=sentence)
