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

# Not `from typing import ...`: importing typing costs a command that needs none of it (the
# name TYPE_CHECKING is what type checkers look for).
TYPE_CHECKING = False

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
    # The metric classes (also by name: get_metric("cherrant") is ChERRANT).
    "ChERRANT": "gecscore.cherrant",
    "ERRANT": "gecscore.english.errant_compare",
    "M2": "gecscore.maxmatch.scorer",
    "SentM2": "gecscore.maxmatch.scorer",
    "GLEU": "gecscore.english.gleu",
    "GLEUGecMetrics": "gecscore.english.gleu_gecmetrics",
    "GREEN": "gecscore.green",
    "IMPARA": "gecscore.reffree.impara",
    "SOME": "gecscore.reffree.some",
    "Scribendi": "gecscore.reffree.scribendi",
    "LLMJudgeSent": "gecscore.reffree.llm_judge",
    "LLMJudgeEdit": "gecscore.reffree.llm_judge",
    # The one LLM client (deadlines, bounded answers, retries, a shared circuit breaker) that
    # the judges use, for anyone else who asks an LLM.
    "ChatClient": "gecscore.reffree.llm_clients",
    "HFChatClient": "gecscore.reffree.llm_clients",
    "HTTPChatClient": "gecscore.reffree.llm_clients",
    "LLMEndpoint": "gecscore.reffree.llm_clients",
    "LLMStopped": "gecscore.reffree.llm_clients",
    "Stop": "gecscore.reffree.llm_clients",
    "IMeasure": "gecscore.english.imeasure_metric",
    "CLEME": "gecscore.cleme.metric",
    "CLEME2": "gecscore.cleme.metric",
    "PTM2": "gecscore.ptm2_metric",
    "PTM2M2": "gecscore.ptm2_metric",
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
    "ResourceError": "gecscore.resources",
    "Resources": "gecscore.resources",
    "default_resources": "gecscore.resources",
    "load_resources": "gecscore.resources",
    "no_resources": "gecscore.resources",
    # Errors and the one UTF-8 decoding policy.
    "InputError": "gecscore.errors",
    "InputFormatError": "gecscore.errors",
    "decode_utf8": "gecscore.errors",
    # M2 markers and edits; parallel (MuCGEC) rows.
    "NO_ERROR_TEXT": "gecscore.m2",
    "NOT_ANNOTATABLE_TEXT": "gecscore.m2",
    "apply_m2_edits": "gecscore.m2",
    "correction_tokens": "gecscore.m2",
    "format_m2_block": "gecscore.m2",
    "OverlappingEditsError": "gecscore.edits",
    "parallel_rows": "gecscore.mucgec",
    # Tokenisation of the char extractor (ChERRANT's).
    "char_tokens": "gecscore.tokenize",
    "normalize_source": "gecscore.tokenize",
    "to_simplified": "gecscore.tokenize",
    "tokenize": "gecscore.tokenize",
    # English edits (ERRANT's extractor, needs spaCy) and ERRANT's comparison with its chosen
    # references (what highlighting needs beside the Result).
    "EnglishModelMissing": "gecscore.english.errant_edits",
    "extract_edits_en": "gecscore.english.errant_edits",
    "parallel_to_m2_blocks": "gecscore.english.errant_edits",
    "ragged_m2_blocks": "gecscore.english.errant_edits",
    "CompareOptions": "gecscore.english.errant_compare",
    "ErrantResult": "gecscore.english.errant_compare",
    "compare_blocks": "gecscore.english.errant_compare",
    # Edit weights (BERTScore) for PT-M2 / CLEME2.0-sim.
    "make_provider": "gecscore.weights",
    # Meta-evaluation entry points: reports, score files, correlation statistics, metric
    # columns, judgments (Appraise XML, WMT CSV), SEEDA-E edit results.
    "human_ranking": "gecscore.meta.report",
    "system_report": "gecscore.meta.report",
    "HUMAN_RANKING_METHODS": "gecscore.meta.report",
    "ScoreFileError": "gecscore.meta.scorefiles",
    "read_system_scores": "gecscore.meta.scorefiles",
    "bootstrap_sentences": "gecscore.meta.correlation",
    "williams": "gecscore.meta.correlation",
    "MetricScores": "gecscore.meta.compute",
    "aggregated": "gecscore.meta.compute",
    "ADMIN_USER": "gecscore.meta.judgments",
    "EditVerdict": "gecscore.meta.judgments",
    "JudgmentFormatError": "gecscore.meta.judgments",
    "JudgmentSet": "gecscore.meta.judgments",
    "RankedEntry": "gecscore.meta.judgments",
    "RankingItem": "gecscore.meta.judgments",
    "RankingResult": "gecscore.meta.judgments",
    "iter_judgments_xml": "gecscore.meta.judgments",
    "pairwise_comparisons": "gecscore.meta.judgments",
    "unexpanded_comparisons": "gecscore.meta.judgments",
    "write_judgments_xml": "gecscore.meta.judgments",
    "write_pairwise_csv": "gecscore.meta.judgments",
    "edit_precision": "gecscore.meta.edits",
    "edit_report": "gecscore.meta.edits",
    "verdict_rankings": "gecscore.meta.edits",
    # Rankings from sentence scores or judgments: TrueSkill and Expected Wins.
    "expected_wins": "gecscore.meta.rankings",
    "rank_trueskill": "gecscore.meta.rankings",
    "trueskill_scores": "gecscore.reffree.llm_judge",
    # Local model folders from settings (the LLM, model-based metrics): checked, and named
    # in signatures as <folder>@<sha8>.
    "model_setting": "gecscore.reffree.models",
    "model_id": "gecscore.reffree.models",
    # ESA judging (error spans with a severity and a 0-100 score): results and agreement.
    "ESA_SEVERITIES": "gecscore.meta.esa",
    "EsaRow": "gecscore.meta.esa",
    "EsaSpan": "gecscore.meta.esa",
    "esa_report": "gecscore.meta.esa",
    "esa_system_results": "gecscore.meta.esa",
    "esa_wmt_score_lines": "gecscore.meta.esa",
}

# A literal list (not sorted(_EXPORTS)): type checkers read it as the re-exports; a test
# holds it equal to the keys of _EXPORTS.
__all__ = [
    "ADMIN_USER",
    "CLEME",
    "CLEME2",
    "ChERRANT",
    "ChatClient",
    "CompareError",
    "CompareOptions",
    "CompareResult",
    "Counts",
    "ERRANT",
    "ESA_SEVERITIES",
    "Edit",
    "EditVerdict",
    "EnglishModelMissing",
    "ErrantResult",
    "EsaRow",
    "EsaSpan",
    "GECError",
    "GLEU",
    "GLEUGecMetrics",
    "GREEN",
    "Gold",
    "HFChatClient",
    "HTTPChatClient",
    "HUMAN_RANKING_METHODS",
    "Hypotheses",
    "IMPARA",
    "IMeasure",
    "InputError",
    "InputFormatError",
    "JudgmentFormatError",
    "JudgmentSet",
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
    "MetricScores",
    "NOT_ANNOTATABLE_TEXT",
    "NO_ERROR_TEXT",
    "OverlappingEditsError",
    "PTM2",
    "PTM2M2",
    "PTM2Result",
    "ParallelFormatError",
    "ParallelLine",
    "RankedEntry",
    "RankingItem",
    "RankingResult",
    "References",
    "ResourceError",
    "Resources",
    "Result",
    "SOME",
    "ScoreFileError",
    "Scores",
    "Scribendi",
    "SentM2",
    "SentenceResult",
    "SentenceScore",
    "Stop",
    "TargetAnnotation",
    "aggregated",
    "annotate_sentence",
    "apply_m2_edits",
    "bootstrap_sentences",
    "char_tokens",
    "compare_blocks",
    "compare_m2",
    "correction_tokens",
    "decode_utf8",
    "default_resources",
    "edit_precision",
    "edit_report",
    "esa_report",
    "esa_system_results",
    "esa_wmt_score_lines",
    "expected_wins",
    "extract_edits",
    "extract_edits_en",
    "format_m2_block",
    "get_metric",
    "human_ranking",
    "iter_judgments_xml",
    "load_resources",
    "make_provider",
    "metric_names",
    "model_id",
    "model_setting",
    "no_resources",
    "normalize_source",
    "pairwise_comparisons",
    "parallel_rows",
    "parallel_to_m2",
    "parallel_to_m2_blocks",
    "parse_m2",
    "parse_parallel",
    "precision_recall_f",
    "ragged_m2_blocks",
    "rank_trueskill",
    "read_m2",
    "read_parallel",
    "read_system_scores",
    "reference_count_curve",
    "score_ptm2",
    "system_report",
    "to_simplified",
    "tokenize",
    "trueskill_scores",
    "unexpanded_comparisons",
    "verdict_rankings",
    "williams",
    "write_judgments_xml",
    "write_m2",
    "write_pairwise_csv",
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
    from gecscore.meta.esa import (
        ESA_SEVERITIES,
        EsaRow,
        EsaSpan,
        esa_report,
        esa_system_results,
        esa_wmt_score_lines,
    )
    from gecscore.reffree.models import model_id, model_setting

    __version__: str
    from gecscore.cherrant import ChERRANT
    from gecscore.cleme.metric import CLEME, CLEME2
    from gecscore.compare import (
        CompareError,
        CompareResult,
        Scores,
        SentenceResult,
        compare_m2,
        reference_count_curve,
    )
    from gecscore.counts import Counts, precision_recall_f
    from gecscore.edits import (
        OverlappingEditsError,
    )
    from gecscore.english.errant_compare import (
        ERRANT,
        CompareOptions,
        ErrantResult,
        compare_blocks,
    )
    from gecscore.english.errant_edits import (
        EnglishModelMissing,
        extract_edits_en,
        parallel_to_m2_blocks,
        ragged_m2_blocks,
    )
    from gecscore.english.gleu import GLEU
    from gecscore.english.gleu_gecmetrics import GLEUGecMetrics
    from gecscore.english.imeasure_metric import IMeasure
    from gecscore.errors import (
        GECError,
        InputError,
        InputFormatError,
        decode_utf8,
    )
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
    from gecscore.green import GREEN
    from gecscore.m2 import (
        NO_ERROR_TEXT,
        NOT_ANNOTATABLE_TEXT,
        M2Block,
        M2Edit,
        M2FormatError,
        M2Target,
        apply_m2_edits,
        correction_tokens,
        format_m2_block,
        parse_m2,
        read_m2,
        write_m2,
    )
    from gecscore.maxmatch.scorer import M2, SentM2
    from gecscore.meta.compute import (
        MetricScores,
        aggregated,
    )
    from gecscore.meta.correlation import (
        bootstrap_sentences,
        williams,
    )
    from gecscore.meta.edits import (
        edit_precision,
        edit_report,
        verdict_rankings,
    )
    from gecscore.meta.judgments import (
        ADMIN_USER,
        EditVerdict,
        JudgmentFormatError,
        JudgmentSet,
        RankedEntry,
        RankingItem,
        RankingResult,
        iter_judgments_xml,
        pairwise_comparisons,
        unexpanded_comparisons,
        write_judgments_xml,
        write_pairwise_csv,
    )
    from gecscore.meta.rankings import (
        expected_wins,
        rank_trueskill,
    )
    from gecscore.meta.report import (
        HUMAN_RANKING_METHODS,
        human_ranking,
        system_report,
    )
    from gecscore.meta.scorefiles import (
        ScoreFileError,
        read_system_scores,
    )
    from gecscore.metric import (
        Gold,
        Hypotheses,
        Metric,
        MetricConfig,
        References,
        Result,
        SentenceScore,
    )
    from gecscore.mucgec import (
        ParallelLine,
        parallel_rows,
    )
    from gecscore.ptm2 import PTM2Result, score_ptm2
    from gecscore.ptm2_metric import PTM2, PTM2M2
    from gecscore.reffree.impara import IMPARA
    from gecscore.reffree.llm_clients import (
        ChatClient,
        HFChatClient,
        HTTPChatClient,
        LLMEndpoint,
        LLMStopped,
        Stop,
    )
    from gecscore.reffree.llm_judge import (
        LLMJudgeEdit,
        LLMJudgeSent,
        trueskill_scores,
    )
    from gecscore.reffree.scribendi import Scribendi
    from gecscore.reffree.some import SOME
    from gecscore.registry import get_metric, metric_names
    from gecscore.resources import (
        ResourceError,
        Resources,
        default_resources,
        load_resources,
        no_resources,
    )
    from gecscore.tokenize import (
        char_tokens,
        normalize_source,
        to_simplified,
        tokenize,
    )
    from gecscore.weights import (
        make_provider,
    )
