"""Pure-Python GEC metric library (no Django below this package).

Every metric is called the same way (``gecscore.metric``)::

    from gecscore import Gold, get_metric, read_m2

    M2 = get_metric("m2")
    gold = Gold(read_m2("gold.m2"))
    result = M2(M2.Config(beta=0.5)).score_corpus(gold.sources, hypotheses, gold)

Shared I/O is here too: ``read_m2``, ``write_m2``, ``read_parallel``, ``parallel_to_m2``,
``extract_edits``. The README's "Python API" section has runnable examples.

The names below are imported on first use, not with the package: a command that needs
one metric (``python -m gecscore cleme``) should not pay for loading all of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_EXPORTS: dict[str, str] = {
    # The one calling convention of every metric (gecscore.metric).
    "GECError": "gecscore.errors",
    "Gold": "gecscore.metric",
    "Metric": "gecscore.metric",
    "MetricConfig": "gecscore.metric",
    "Result": "gecscore.metric",
    "SentenceScore": "gecscore.metric",
    "Hypotheses": "gecscore.metric",
    "References": "gecscore.metric",
    "get_metric": "gecscore.registry",
    "metric_names": "gecscore.registry",
    # The metric classes (also by name: get_metric("cherrant") is ChERRANT), from their
    # gecscore.metrics.<registry name> modules.
    "ChERRANT": "gecscore.metrics.cherrant",
    "ERRANT": "gecscore.metrics.errant",
    "M2": "gecscore.metrics.m2",
    "SentM2": "gecscore.metrics.sentm2",
    "GLEU": "gecscore.metrics.gleu",
    "GLEUGecMetrics": "gecscore.metrics.gleu_gecm",
    "GREEN": "gecscore.metrics.green",
    "IMPARA": "gecscore.metrics.impara",
    "SOME": "gecscore.metrics.some",
    "Scribendi": "gecscore.metrics.scribendi",
    "LLMJudgeSent": "gecscore.metrics.llm_s",
    "LLMJudgeEdit": "gecscore.metrics.llm_e",
    # The one LLM client (deadlines, bounded answers, retries, a shared circuit breaker) that
    # the judges use, for anyone else who asks an LLM.
    "ChatClient": "gecscore.reffree.llm_clients",
    "HFChatClient": "gecscore.reffree.llm_clients",
    "HTTPChatClient": "gecscore.reffree.llm_clients",
    "LLMEndpoint": "gecscore.reffree.llm_clients",
    "LLMStopped": "gecscore.reffree.llm_clients",
    "Stop": "gecscore.reffree.llm_clients",
    "IMeasure": "gecscore.metrics.imeasure",
    "CLEME": "gecscore.metrics.cleme",
    "CLEME2": "gecscore.metrics.cleme2",
    "PTM2": "gecscore.metrics.ptm2",
    "PTM2M2": "gecscore.metrics.ptm2_m2",
    "CompareError": "gecscore.compare",
    "CompareResult": "gecscore.compare",
    "Scores": "gecscore.compare",
    "SentenceResult": "gecscore.compare",
    "compare_m2": "gecscore.compare",
    "reference_count_curve": "gecscore.compare",
    "Counts": "gecscore.counts",
    "precision_recall_f": "gecscore.counts",
    "Edit": "gecscore.extract",
    "ParallelFormatError": "gecscore.extract",
    "ParallelLine": "gecscore.mucgec",
    "TargetAnnotation": "gecscore.extract",
    "annotate_sentence": "gecscore.extract",
    "extract_edits": "gecscore.extract",
    "parallel_to_m2": "gecscore.extract",
    "parse_parallel": "gecscore.extract",
    "read_parallel": "gecscore.extract",
    "M2Block": "gecscore.m2",
    "M2Edit": "gecscore.m2",
    "M2FormatError": "gecscore.m2",
    "M2Target": "gecscore.m2",
    "parse_m2": "gecscore.m2",
    "read_m2": "gecscore.m2",
    "write_m2": "gecscore.m2",
    # Weighted metrics (PT-M2 / PT-ERRANT); providers live in gecscore.weights.
    "PTM2Result": "gecscore.ptm2",
    "score_ptm2": "gecscore.ptm2",
    # System rankings from per-sentence pairwise outcomes (the LLM judges' tables).
    "trueskill_scores": "gecscore.meta.aggregation",
    "ResourceError": "gecscore.resources",
    "Resources": "gecscore.resources",
    "default_resources": "gecscore.resources",
    "load_resources": "gecscore.resources",
    "no_resources": "gecscore.resources",
}

# A literal list (not sorted(_EXPORTS)): type checkers read it as the re-exports; a test
# holds it equal to the keys of _EXPORTS.
__all__ = [
    "CLEME",
    "CLEME2",
    "ChERRANT",
    "ChatClient",
    "CompareError",
    "CompareResult",
    "Counts",
    "ERRANT",
    "Edit",
    "GECError",
    "GLEU",
    "GLEUGecMetrics",
    "GREEN",
    "Gold",
    "HFChatClient",
    "HTTPChatClient",
    "Hypotheses",
    "IMPARA",
    "IMeasure",
    "LLMEndpoint",
    "LLMJudgeEdit",
    "LLMJudgeSent",
    "LLMStopped",
    "M2",
    "M2Block",
    "M2Edit",
    "M2FormatError",
    "M2Target",
    "Metric",
    "MetricConfig",
    "PTM2",
    "PTM2M2",
    "PTM2Result",
    "ParallelFormatError",
    "ParallelLine",
    "References",
    "ResourceError",
    "Resources",
    "Result",
    "SOME",
    "Scores",
    "Scribendi",
    "SentM2",
    "SentenceResult",
    "SentenceScore",
    "Stop",
    "TargetAnnotation",
    "annotate_sentence",
    "compare_m2",
    "default_resources",
    "extract_edits",
    "get_metric",
    "load_resources",
    "metric_names",
    "no_resources",
    "parallel_to_m2",
    "parse_m2",
    "parse_parallel",
    "precision_recall_f",
    "read_m2",
    "read_parallel",
    "reference_count_curve",
    "score_ptm2",
    "trueskill_scores",
    "write_m2",
]


def __getattr__(name: str) -> object:
    if name == "__version__":
        # The one version is the distribution's (gecscore/pyproject.toml); read on first use,
        # since importlib.metadata would add to every command's start-up.
        from importlib.metadata import version

        globals()["__version__"] = value = version("gecscore")
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gecscore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


if TYPE_CHECKING:
    __version__: str
    from gecscore.compare import (
        CompareError,
        CompareResult,
        Scores,
        SentenceResult,
        compare_m2,
        reference_count_curve,
    )
    from gecscore.counts import Counts, precision_recall_f
    from gecscore.errors import GECError
    from gecscore.extract import (
        Edit,
        ParallelFormatError,
        TargetAnnotation,
        annotate_sentence,
        extract_edits,
        parallel_to_m2,
        parse_parallel,
        read_parallel,
    )
    from gecscore.m2 import (
        M2Block,
        M2Edit,
        M2FormatError,
        M2Target,
        parse_m2,
        read_m2,
        write_m2,
    )
    from gecscore.meta.aggregation import trueskill_scores
    from gecscore.metric import (
        Gold,
        Hypotheses,
        Metric,
        MetricConfig,
        References,
        Result,
        SentenceScore,
    )
    from gecscore.metrics.cherrant import ChERRANT
    from gecscore.metrics.cleme import CLEME
    from gecscore.metrics.cleme2 import CLEME2
    from gecscore.metrics.errant import ERRANT
    from gecscore.metrics.gleu import GLEU
    from gecscore.metrics.gleu_gecm import GLEUGecMetrics
    from gecscore.metrics.green import GREEN
    from gecscore.metrics.imeasure import IMeasure
    from gecscore.metrics.impara import IMPARA
    from gecscore.metrics.llm_e import LLMJudgeEdit
    from gecscore.metrics.llm_s import LLMJudgeSent
    from gecscore.metrics.m2 import M2
    from gecscore.metrics.ptm2 import PTM2
    from gecscore.metrics.ptm2_m2 import PTM2M2
    from gecscore.metrics.scribendi import Scribendi
    from gecscore.metrics.sentm2 import SentM2
    from gecscore.metrics.some import SOME
    from gecscore.mucgec import ParallelLine
    from gecscore.ptm2 import PTM2Result, score_ptm2
    from gecscore.reffree.llm_clients import (
        ChatClient,
        HFChatClient,
        HTTPChatClient,
        LLMEndpoint,
        LLMStopped,
        Stop,
    )
    from gecscore.registry import get_metric, metric_names
    from gecscore.resources import (
        ResourceError,
        Resources,
        default_resources,
        load_resources,
        no_resources,
    )
