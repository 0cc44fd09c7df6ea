"""Chinese metrics on RevisitCGEC and their agreement with the human rankings.

Every metric runs through the library's one extractor (``gecscore.extract.parallel_to_m2``,
ChERRANT's ``parallel_to_m2`` semantics) and its own scorer:

========================  ==================================================================
``cherrant-char``         ChERRANT F0.5, char edits (``gecscore.compare.compare_m2``)
``cherrant-word``         the same on word edits; the segmenter is jieba (the char metric's
                          spec, ``docs/metrics/char.md``: ChERRANT's LTP needs a download), so
                          the signature says ``granularity=word-jieba``
``cleme-dependent``       CLEME corpus F0.5, dependent / independent assumption, char chunks
``cleme-independent``
``cleme2``                CLEME2.0 (unweighted), char chunks
``gleu-char``             GLEU (``get_metric("gleu")``) on text split into characters
``green``                 GREEN (``get_metric("green")``) on text split into characters
``ptm2``                  PT-M2 F0.5 (char edits) with a configured Chinese BERT
                          (``ptm2_model``: a local path; ``self`` = weight 1, for tests)
``length``                the floor: mean characters per output (sentence score: characters)
========================  ==================================================================

Aggregation: ``default`` is each metric's corpus score. ``trueskill`` and ``expected-wins``
rank the systems from the sentence scores the way the human rankings are built (Goto et al.
2025); they come from ``gecscore.meta.aggregation.aggregate`` (``trueskill`` / ``ew``; the
systems in :data:`SYSTEMS` order, which TrueSkill's match order follows), through
:func:`aggregate_sentence_scores`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gecscore.errors import InputError, OptionError
from gecscore.meta.aggregation_names import AGGREGATION_SPELLINGS, aggregation_name
from gecscore.meta.judgments import pairwise
from gecscore.meta.report import system_report
from gecscore.meta.revisitcgec import SYSTEMS, Corpus, human_scores
from gecscore.meta.revisitcgec_runs import (
    METRIC_NAMES,
    Extraction,
    ExtractionMemo,
    FloatArray,
    MetricRun,
    MetricUnavailable,
    char_split,
    cherrant,
    cleme2_metric,
    cleme_metric,
    length_metric,
    ptm2_metric,
    run_metric,
)
from gecscore.meta.sentence import wmt_kendall

__all__ = [
    "AGGREGATIONS",
    "Extraction",
    "ExtractionMemo",
    "FloatArray",
    "HUMAN_METHODS",
    "METRIC_NAMES",
    "MetricRun",
    "MetricUnavailable",
    "aggregate_sentence_scores",
    "char_split",
    "cherrant",
    "cleme2_metric",
    "cleme_metric",
    "evaluate",
    "format_text",
    "length_metric",
    "ptm2_metric",
    "run",
    "run_metric",
    "sentence_level",
]


AGGREGATIONS = AGGREGATION_SPELLINGS  # gec-metrics' spellings (and the labels' suffixes)
HUMAN_METHODS = {"ew": "expected_wins", "trueskill": "trueskill"}


def aggregate_sentence_scores(
    method: str, sentence_scores: Mapping[str, Sequence[float]], segments: Sequence[str]
) -> dict[str, float]:
    """System scores ranked from sentence scores by ``method`` (``trueskill`` or
    ``expected-wins``), the sentences in ``segments`` order for every system. THE HOOK: this
    calls ``gecscore.meta.aggregation.aggregate(name, sentence_scores)`` (``name`` =
    ``trueskill`` / ``ew``), written with GREEN (helper ``green``). The module is in
    the library now; the :class:`MetricUnavailable` branch below is left from before it was."""
    import importlib

    lengths = {len(values) for values in sentence_scores.values()}
    if lengths != {len(segments)}:
        raise InputError(f"sentence scores of {lengths} sentences for {len(segments)} segments")
    try:
        aggregation: Any = importlib.import_module("gecscore.meta.aggregation")
    except ModuleNotFoundError:
        raise MetricUnavailable(
            f"aggregation {method}: gecscore.meta.aggregation is not in this library yet"
        ) from None
    ordered = {system: list(sentence_scores[system]) for system in SYSTEMS}
    result: dict[str, float] = aggregation.aggregate(aggregation_name(method), ordered)
    return result


def _label(name: str, aggregate: str) -> str:
    return name if aggregate == "default" else f"{name}/{aggregate}"


def evaluate(
    corpus: Corpus,
    *,
    metrics: Sequence[str] = METRIC_NAMES,
    method: str = "both",
    aggregates: Sequence[str] = ("default",),
    ptm2_model: str | None = None,
    bootstrap: int = 1000,
    bootstrap_sentences: int = 0,
    seed: int = 0,
    runs: int = 1000,
    window: int | None = 4,
    workers: int = 1,
    resources: Any = None,
    human: Mapping[str, Any] | None = None,
    memo: ExtractionMemo | None = None,
) -> dict[str, Any]:
    """The whole meta-evaluation of ``metrics`` on one corpus, as one JSON-ready dict:

    ``human`` (the ranking report), ``metrics.<label>`` (signature, aggregate, notes),
    ``unavailable.<label>`` (why not), ``systems.<system>.<label>`` (system scores; also
    ``systems.<system>.human_ew`` / ``human_trueskill``), ``correlation.<ew|trueskill>``
    (``report.system_report``: Pearson/Spearman, bootstrap intervals over systems and, with
    ``bootstrap_sentences``, over sentences; windows; Williams), ``sentence`` (WMT Kendall
    and accuracy of each label's sentence scores against the pairwise judgments).

    ``memo``: extracted sentences to share with other calls (one dict for several corpora and
    reference sets: a sentence is extracted once for all of them, same blocks)."""
    unknown = ", ".join(m for m in metrics if m not in METRIC_NAMES)
    if unknown:
        raise OptionError(f"unknown metrics {unknown} (known: {', '.join(METRIC_NAMES)})")
    bad = ", ".join(a for a in aggregates if a not in AGGREGATIONS)
    if bad:
        raise OptionError(f"unknown aggregation {bad} (known: {', '.join(AGGREGATIONS)})")
    if human is None:
        human = human_scores(corpus, method=method, runs=runs, seed=seed, workers=workers)
    runs_by_label, system_scores, described, unavailable = _score_metrics(
        corpus, Extraction(corpus, resources, memo), metrics, aggregates, ptm2_model
    )
    systems_out: dict[str, dict[str, Any]] = {}
    for system in SYSTEMS:
        entry = human["systems"][system]
        row: dict[str, Any] = {
            "human_ew": entry["expected_wins"],
            "human_trueskill": entry["trueskill"],
        }
        row.update({label: scores[system] for label, scores in system_scores.items()})
        systems_out[system] = row
    correlation: dict[str, Any] = {}
    for short, key in HUMAN_METHODS.items():
        if method not in (short, "both") or not system_scores:
            continue
        h = {s: float(human["systems"][s][key]) for s in SYSTEMS}
        report = system_report(
            h,
            system_scores,
            list(SYSTEMS),
            run_williams=True,
            bootstrap=bootstrap,
            seed=seed,
            window=window,
        )
        if bootstrap_sentences:
            _sentence_intervals(report, h, runs_by_label, bootstrap_sentences, seed)
        correlation[short] = report
    return {
        "corpus": corpus.name,
        "reference_set": corpus.reference_set,
        "sentences": len(corpus.sentences),
        "items": len(corpus.items),
        "human": dict(human),
        "metrics": described,
        "unavailable": unavailable,
        "systems": systems_out,
        "correlation": correlation,
        "sentence": sentence_level(corpus, runs_by_label),
    }


def _score_metrics(
    corpus: Corpus,
    extraction: Extraction,
    metrics: Sequence[str],
    aggregates: Sequence[str],
    ptm2_model: str | None,
) -> tuple[
    dict[str, MetricRun], dict[str, dict[str, float]], dict[str, dict[str, Any]], dict[str, str]
]:
    """Each metric under each aggregation: the runs (default aggregation), the system scores,
    each label's description and, for what could not be computed, why."""
    runs_by_label: dict[str, MetricRun] = {}
    system_scores: dict[str, dict[str, float]] = {}
    described: dict[str, dict[str, Any]] = {}
    unavailable: dict[str, str] = {}
    for name in metrics:
        try:
            run = run_metric(name, corpus, extraction, ptm2_model=ptm2_model)
        except MetricUnavailable as error:
            for aggregate in aggregates:
                unavailable[_label(name, aggregate)] = str(error)
            continue
        for aggregate in aggregates:
            label = _label(name, aggregate)
            if aggregate == "default":
                system_scores[label] = run.scores
                runs_by_label[label] = run
            else:
                try:
                    system_scores[label] = aggregate_sentence_scores(
                        aggregate, run.sentence_scores, corpus.segments
                    )
                except MetricUnavailable as error:
                    unavailable[label] = str(error)
                    continue
            described[label] = {
                "metric": name,
                "aggregate": aggregate,
                "signature": run.signature,
                "notes": list(run.notes),
            }
    return runs_by_label, system_scores, described, unavailable


def _sentence_intervals(
    report: dict[str, Any],
    human: Mapping[str, float],
    runs: Mapping[str, MetricRun],
    samples: int,
    seed: int,
) -> None:
    """``pearson_ci_sentences`` / ``spearman_ci_sentences`` where the metric's system score
    is a function of summed per-sentence statistics (ChERRANT's counts, the length)."""
    from gecscore.meta.correlation import bootstrap_sentences, spearman

    h = [human[s] for s in SYSTEMS]
    for label, entry in report["metrics"].items():
        run = runs.get(label)
        if run is None or run.sentence_stats is None or run.aggregate is None:
            entry["pearson_ci_sentences"] = entry["spearman_ci_sentences"] = None
            continue
        stats = [run.sentence_stats[s] for s in SYSTEMS]
        entry["pearson_ci_sentences"] = list(
            bootstrap_sentences(h, stats, run.aggregate, samples=samples, seed=seed)
        )
        entry["spearman_ci_sentences"] = list(
            bootstrap_sentences(
                h, stats, run.aggregate, statistic=spearman, samples=samples, seed=seed
            )
        )


def sentence_level(corpus: Corpus, runs: Mapping[str, MetricRun]) -> dict[str, Any]:
    """WMT-style agreement (Kendall ``hties``/``noties``, accuracy) of each metric's sentence
    scores with every pairwise judgment of the corpus's ranking items (collapsed outputs
    split, as for GJG15)."""
    comparisons = pairwise(corpus.items, systems=SYSTEMS)
    segments = corpus.segments
    out: dict[str, Any] = {}
    for label, run in runs.items():
        scores = {
            system: dict(zip(segments, values, strict=True))
            for system, values in run.sentence_scores.items()
        }
        result = wmt_kendall(comparisons, scores)
        out[label] = {k: (None if np.isnan(v) else v) for k, v in result.values.items()}
    return {"variant": "wmt", "pairs": len(comparisons), "metrics": out}


def run(
    data: str,
    *,
    corpus: str = "all",
    yaclc_refs: str = "minimal",
    mucgec_dev: str | None = None,
    resources_dir: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Load the RevisitCGEC folder ``data`` and :func:`evaluate` the corpus (what
    ``python -m gecscore meta revisitcgec`` prints); ``resources_dir`` is ChERRANT's resources
    folder (Cilin + confusion dictionary: ChERRANT-exact edits; default $GEC_CHERRANT_RESOURCES,
    else the library's default resources, named in every signature)."""
    from gecscore.meta.revisitcgec import load_corpus
    from gecscore.resources import load_resources, resources_from_env

    loaded = load_corpus(data, corpus, mucgec_dev=mucgec_dev, yaclc_refs=yaclc_refs)
    resources = load_resources(resources_dir) if resources_dir else resources_from_env()
    report = evaluate(loaded, resources=resources, **options)
    report["yaclc_refs"] = yaclc_refs if corpus != "mucgec" else None
    return report


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "-" if value is None else str(value)


def format_text(report: Mapping[str, Any]) -> str:
    """The report as tables: system scores, then correlations and Williams p, then the
    sentence level."""
    labels = list(report["metrics"])
    lines = [
        f"RevisitCGEC {report['corpus']} ({report['reference_set']}): {report['sentences']} "
        f"sentences, {report['items']} ranking items, {report['human']['judgments']} pairs",
        "system\thuman_ew\thuman_trueskill\t" + "\t".join(labels),
    ]
    for system, row in report["systems"].items():
        values = [row["human_ew"], row["human_trueskill"], *(row[label] for label in labels)]
        lines.append(system + "\t" + "\t".join(_fmt(v) for v in values))
    for method, corr in report["correlation"].items():
        lines.append(f"vs human {method}: metric\tpearson\tpearson_ci\tspearman\tspearman_ci")
        for label, entry in corr["metrics"].items():
            ci = [entry["pearson_ci"], entry["spearman_ci"]]
            shown = ["[" + ", ".join(_fmt(v) for v in c) + "]" if c else "-" for c in ci]
            lines.append(
                f"{label}\t{_fmt(entry['pearson'])}\t{shown[0]}\t{_fmt(entry['spearman'])}"
                f"\t{shown[1]}"
            )
        for a, row in corr["williams"].items():
            for b, p in row.items():
                if p is not None:
                    lines.append(f"  Williams {a} > {b}: p = {p:.4f}")
    lines.append("sentence level (WMT): metric\tkendall_hties\tkendall_noties\taccuracy")
    for label, values in report["sentence"]["metrics"].items():
        lines.append(
            f"{label}\t{_fmt(values['kendall_hties'])}\t{_fmt(values['kendall_noties'])}"
            f"\t{_fmt(values['accuracy'])}"
        )
    for label, why in report["unavailable"].items():
        lines.append(f"unavailable: {label}: {why}")
    return "\n".join(lines) + "\n"
