"""Subcommand ``meta``: metric meta-evaluation against human judgments.

    python -m gecscore meta system --human HUMAN --metric NAME=SCORES [--metric ...]
        [--systems all|base|+INPUT|+REF-F_GPT-3.5|FILE] [--exclude SYS ...] [--williams]
        [--bootstrap N] [--seed S] [--window W] [--json]
    python -m gecscore meta sentence --judgments JUDGMENTS --metric NAME=SENTENCE_SCORES
        [--metric ...] [--variant wmt|seeda] [--systems SET|FILE] [--exclude SYS ...] [--json]
    python -m gecscore meta rank --judgments FILE.xml [--method ew|trueskill|both]
        [--bootstrap N] [--runs N] [--seed S] [--json]
    python -m gecscore meta revisitcgec --data DIR [--corpus mucgec|yaclc|all]
        [--yaclc-refs minimal|fluency] [--metric NAME ...] [--method ew|trueskill|both]
        [--aggregate default|trueskill|expected-wins ...] [--json]
    python -m gecscore meta seeda --seeda DIR --metric NAME
        [--aggregate default|trueskill|expected-wins] [--gold GOLD.m2] [--json]

HUMAN and SCORES: WMT layout (``NAME LANGPAIR TESTSET SYSTEM SCORE``) or SEEDA layout (one
score per line in SEEDA's alphabetical system order), gzipped or not. SENTENCE_SCORES: a WMT
sentence file (``... SYSTEM SEGMENT SCORE``) or a folder of ``<SYSTEM>.txt`` files with one
score per line (line k = the k-th judged sentence in src-id order). JUDGMENTS: Appraise XML or
a WMT pairwise CSV. ``meta system --compute`` computes the metric scores itself (see
``docs/metrics/meta-evaluation.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gecscore.cli import CommandError
from gecscore.commands.arguments import named_path, non_negative_int, positive_int
from gecscore.commands.meta_seeda import register_seeda
from gecscore.meta import compute
from gecscore.meta.aggregation_names import AGGREGATION_CHOICES
from gecscore.meta.judgments import Comparison, JudgmentSet, read_judgments, read_judgments_xml
from gecscore.meta.report import METHODS, human_ranking, sentence_report, system_report
from gecscore.meta.scorefiles import (
    SEEDA_SYSTEMS,
    SYSTEM_SETS,
    read_sentence_scores,
    read_system_scores,
    select_systems,
)
from gecscore.meta.sentence import seeda_segment_map

__all__ = [
    "add_sentence_intervals",
    "print_report",
    "register",
    "register_revisitcgec",
    "run_rank",
    "run_revisitcgec",
    "run_sentence",
    "run_system",
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("meta", help="meta-evaluation: metrics vs human judgments")
    commands = parser.add_subparsers(dest="meta_command", metavar="WHAT", required=True)
    _register_system(commands)
    _register_sentence(commands)
    _register_rank(commands)
    register_revisitcgec(commands)
    register_seeda(commands)


def _register_system(commands: Any) -> None:
    system = commands.add_parser("system", help="system-level correlation with human scores")
    system.add_argument("--human", required=True, metavar="HUMAN", help="human system scores")
    system.add_argument(
        "--metric",
        action="append",
        type=named_path,
        default=[],
        metavar="NAME=SCORES",
        help="metric system scores (repeatable)",
    )
    system.add_argument(
        "--systems",
        default="all",
        metavar="SET|FILE",
        help=f"system set: {', '.join(SYSTEM_SETS)} or a file of names (default all)",
    )
    system.add_argument("--exclude", nargs="+", default=[], metavar="SYS", help="leave out")
    system.add_argument("--williams", action="store_true", help="Williams' test between metrics")
    system.add_argument(
        "--bootstrap",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="CI from N system resamples",
    )
    system.add_argument(
        "--bootstrap-sentences",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="with --compute: CI from N resamples of the test sentences",
    )
    system.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    system.add_argument("--window", type=int, metavar="W", help="window analysis over W systems")
    system.add_argument("--json", action="store_true", help="print one JSON object")
    _add_compute_arguments(system)
    system.set_defaults(func=run_system)


def _register_sentence(commands: Any) -> None:
    sentence = commands.add_parser("sentence", help="sentence-level agreement with judgments")
    sentence.add_argument("--judgments", required=True, metavar="JUDGMENTS")
    sentence.add_argument(
        "--metric",
        action="append",
        type=named_path,
        default=[],
        required=True,
        metavar="NAME=SENTENCE_SCORES",
    )
    sentence.add_argument("--variant", choices=("wmt", "seeda"), default="wmt")
    sentence.add_argument(
        "--systems",
        metavar="SET|FILE",
        help="system set (default: all for wmt, base for seeda, as SEEDA's script)",
    )
    sentence.add_argument("--exclude", nargs="+", default=[], metavar="SYS")
    sentence.add_argument("--json", action="store_true")
    sentence.set_defaults(func=run_sentence)


def _register_rank(commands: Any) -> None:
    rank = commands.add_parser("rank", help="human ranking (Expected Wins, TrueSkill)")
    rank.add_argument("--judgments", required=True, metavar="FILE.xml")
    rank.add_argument("--method", choices=METHODS, default="both")
    rank.add_argument(
        "--bootstrap",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="EW resamples for rank ranges",
    )
    rank.add_argument(
        "--runs",
        type=non_negative_int,
        default=1000,
        metavar="N",
        help="TrueSkill runs (default 1000)",
    )
    rank.add_argument("--seed", type=int, default=0)
    rank.add_argument(
        "--workers", type=positive_int, default=1, metavar="N", help="processes for TrueSkill runs"
    )
    rank.add_argument("--json", action="store_true")
    rank.set_defaults(func=run_rank)


def register_revisitcgec(commands: Any) -> None:
    """``meta revisitcgec``: Chinese metrics against RevisitCGEC's human rankings."""
    from gecscore.meta import revisitcgec as rc
    from gecscore.meta.revisitcgec_metrics import AGGREGATIONS, METRIC_NAMES

    parser = commands.add_parser(
        "revisitcgec", help="Chinese metrics vs RevisitCGEC's human rankings"
    )
    parser.add_argument("--data", required=True, metavar="DIR", help="the RevisitCGEC folder")
    parser.add_argument("--corpus", choices=rc.CORPUS_CHOICES, default="all")
    parser.add_argument("--yaclc-refs", choices=rc.YACLC_REFERENCE_SETS, default="minimal")
    parser.add_argument(
        "--mucgec-dev", metavar="FILE", help="MuCGEC_dev.txt (default: found beside DIR)"
    )
    parser.add_argument(
        "--metric",
        nargs="+",
        choices=METRIC_NAMES,
        default=list(METRIC_NAMES),
        metavar="NAME",
        help=f"of {', '.join(METRIC_NAMES)} (default all)",
    )
    parser.add_argument("--method", choices=METHODS, default="both", help="human ranking")
    parser.add_argument(
        "--aggregate",
        nargs="+",
        choices=AGGREGATIONS,
        default=["default"],
        metavar="AGG",
        help=f"system scores from: {', '.join(AGGREGATIONS)} (default: default)",
    )
    parser.add_argument(
        "--resources", metavar="DIR", help="ChERRANT resources (default $GEC_CHERRANT_RESOURCES)"
    )
    parser.add_argument("--ptm2-model", metavar="PATH", help="Chinese BERT for PT-M2")
    parser.add_argument("--bootstrap", type=non_negative_int, default=1000, metavar="N")
    parser.add_argument("--bootstrap-sentences", type=non_negative_int, default=0, metavar="N")
    parser.add_argument(
        "--runs", type=non_negative_int, default=1000, metavar="N", help="TrueSkill runs"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window", type=int, default=4, metavar="W")
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run_revisitcgec)


def print_report(report: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text)


def _fmt(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, float) else "-" if value is None else str(value)


def run_system(args: argparse.Namespace) -> int:
    human = read_system_scores(args.human)
    metrics: dict[str, dict[str, float]] = {}
    for name, path in args.metric:
        if name in metrics:
            raise CommandError(f"metric name {name!r} given twice")
        metrics[name] = read_system_scores(path).scores
    computed: dict[str, compute.MetricScores] = {}
    if args.compute:
        computed = _computed_scores(args, list(human.scores))
    elif args.aggregation != "default":
        raise CommandError("--aggregation needs --compute (the metrics' sentence scores)")
    if not metrics and not computed:
        raise CommandError("give at least one --metric NAME=SCORES (or --compute)")
    available = [s for s in SEEDA_SYSTEMS if s in human.scores] or sorted(human.scores)
    if len(available) != len(human.scores):
        available = sorted(human.scores)
    systems = select_systems(available, args.systems, exclude=tuple(args.exclude))
    if args.aggregation != "default" and args.bootstrap_sentences:
        raise CommandError(
            "--bootstrap-sentences resamples corpus scores: use --aggregation default"
        )
    for name, result in computed.items():
        metrics[name] = compute.aggregated(name, result, args.aggregation, systems)
    report = system_report(
        human.scores,
        metrics,
        systems,
        run_williams=args.williams,
        bootstrap=args.bootstrap,
        seed=args.seed,
        window=args.window,
    )
    report["aggregation"] = args.aggregation
    if args.bootstrap_sentences:
        if not computed:
            raise CommandError("--bootstrap-sentences needs --compute (per-sentence statistics)")
        add_sentence_intervals(report, human.scores, computed, systems, args)
    lines = [
        f"{len(systems)} systems: {' '.join(systems)}",
        "metric\tpearson\tspearman\tpearson_ci",
    ]
    for name, entry in report["metrics"].items():
        ci = entry["pearson_ci"]
        ci_text = f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "-"
        lines.append(f"{name}\t{_fmt(entry['pearson'])}\t{_fmt(entry['spearman'])}\t{ci_text}")
        for w in entry.get("window", []):
            lines.append(
                f"  window {w['from']}-{w['to']}\t{_fmt(w['pearson'])}\t{_fmt(w['spearman'])}"
            )
    for a, row in report["williams"].items():
        for b, p in row.items():
            if p is not None:
                lines.append(
                    f"Williams {a} > {b}: t = {_fmt(report['williams_t'][a][b])}, p = {p:.4f}"
                )
    print_report(report, args.json, "\n".join(lines) + "\n")
    return 0


def add_sentence_intervals(
    report: dict[str, Any],
    human: dict[str, float],
    computed: dict[str, compute.MetricScores],
    systems: list[str],
    args: argparse.Namespace,
) -> None:
    """``pearson_ci_sentences`` / ``spearman_ci_sentences``: CIs from resampling sentences."""
    from gecscore.meta.correlation import bootstrap_sentences, spearman

    h = [human[s] for s in systems]
    for name, result in computed.items():
        entry = report["metrics"][name]
        if result.sentence_stats is None or result.aggregate is None:
            entry["pearson_ci_sentences"] = entry["spearman_ci_sentences"] = None
            continue
        stats = [result.sentence_stats[s] for s in systems]
        n = args.bootstrap_sentences
        entry["pearson_ci_sentences"] = list(
            bootstrap_sentences(h, stats, result.aggregate, samples=n, seed=args.seed)
        )
        entry["spearman_ci_sentences"] = list(
            bootstrap_sentences(
                h, stats, result.aggregate, statistic=spearman, samples=n, seed=args.seed
            )
        )


def _comparisons(
    path: str, selection: str, exclude: tuple[str, ...]
) -> tuple[list[Comparison], list[str]]:
    """The pairwise judgments among the chosen systems, and every judged segment (src-id
    order), taken before the system selection."""
    from gecscore.meta.judgments import pairwise

    loaded = read_judgments(path)
    if isinstance(loaded, JudgmentSet):
        available = list(loaded.systems)
        ordered = [s for s in SEEDA_SYSTEMS if s in available]
        if len(ordered) == len(available):
            available = ordered
        chosen = select_systems(available, selection, exclude=exclude)
        segments = sorted({i.src_id for i in loaded.items if i.entries}, key=_segment_key)
        return pairwise(loaded.items, systems=chosen), segments
    available = sorted({p.system_a for p in loaded} | {p.system_b for p in loaded})
    chosen_set = set(select_systems(available, selection, exclude=exclude))
    segments = sorted({p.segment for p in loaded}, key=_segment_key)
    kept = [p for p in loaded if p.system_a in chosen_set and p.system_b in chosen_set]
    return kept, segments


def _segment_key(segment: str) -> tuple[int, str]:
    return (int(segment), segment) if segment.lstrip("-").isdigit() else (0, segment)


def run_sentence(args: argparse.Namespace) -> int:
    selection = args.systems or ("base" if args.variant == "seeda" else "all")
    comparisons, segments = _comparisons(args.judgments, selection, tuple(args.exclude))
    if not comparisons:
        raise CommandError(f"{args.judgments}: no pairwise judgment among the chosen systems")
    metrics: dict[str, dict[str, dict[str, float]]] = {}
    segment_maps: dict[str, dict[str, str]] = {}
    for name, path in args.metric:
        if name in metrics:
            raise CommandError(f"metric name {name!r} given twice")
        loaded = read_sentence_scores(path)
        metrics[name] = loaded.scores
        from pathlib import Path

        if Path(path).is_dir():
            lengths = {len(v) for v in loaded.scores.values()}
            if len(lengths) != 1:
                raise CommandError(f"{path}: the score files have different numbers of lines")
            fake = [Comparison(s, "", "", "", "=", 0, 0) for s in segments]
            segment_maps[name] = seeda_segment_map(fake, lengths.pop())
    report = sentence_report(comparisons, metrics, variant=args.variant, segment_maps=segment_maps)
    keys = next(iter(report["metrics"].values())).keys()
    lines = ["metric\t" + "\t".join(keys)]
    for name, values in report["metrics"].items():
        lines.append(name + "\t" + "\t".join(_fmt(values[k]) for k in keys))
    print_report(report, args.json, "\n".join(lines) + "\n")
    return 0


def run_rank(args: argparse.Namespace) -> int:
    judgments = read_judgments_xml(args.judgments)
    report = human_ranking(
        judgments.items,
        method=args.method,
        bootstrap=args.bootstrap,
        seed=args.seed,
        runs=args.runs,
        workers=args.workers,
    )
    lines = ["system\texpected_wins\ttrueskill\trank_range\tcluster"]
    for name, entry in report["systems"].items():
        lines.append(
            f"{name}\t{_fmt(entry['expected_wins'])}\t{_fmt(entry['trueskill'])}"
            f"\t{_fmt(entry['rank_range'])}\t{_fmt(entry['cluster'])}"
        )
    kappa = report["agreement"]
    lines.append(
        f"judgments {report['judgments']}; kappa inter {_fmt(kappa['inter_kappa'])},"
        f" intra {_fmt(kappa['intra_kappa'])}"
    )
    print_report(report, args.json, "\n".join(lines) + "\n")
    return 0


def _add_compute_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("computing the metric scores (instead of score files)")
    group.add_argument(
        "--compute",
        nargs="+",
        default=[],
        metavar="METRIC",
        help=f"of {', '.join(compute.METRICS)}",
    )
    group.add_argument("--outputs", metavar="DIR", help="folder of <SYSTEM>[.txt] outputs")
    group.add_argument("--gold", metavar="GOLD.m2", help="gold M2 (sources and gold edits)")
    group.add_argument("--lines", metavar="FILE", help="1-based gold line per output line")
    group.add_argument("--refs", nargs="+", default=[], metavar="REF", help="plain references")
    group.add_argument(
        "--language",
        choices=("en", "zh"),
        help="how cherrant, errant, cleme, cleme2 and ptm2 extract the outputs' edits: ERRANT "
        "(en) or ChERRANT's char level (zh); default: zh when the gold's sources hold CJK",
    )
    group.add_argument(
        "--closest-gold",
        metavar="DIR",
        help="also each metric as NAME@closest-gold: every system against its own file of DIR "
        "(<SYSTEM>.txt parallel or <SYSTEM>.m2; docs/metrics/meta-evaluation.md)",
    )
    group.add_argument(
        "--pooled",
        action="store_true",
        help="with --closest-gold: also NAME@pooled (the gold + every system's closest-golds)",
    )
    group.add_argument("--ptm2-model", metavar="PATH", help="BERT model of --compute ptm2")
    group.add_argument(
        "--ptm2-layers", type=positive_int, metavar="N", help="its layer (bert-score default)"
    )
    group.add_argument(
        "--aggregation",
        "--aggregate",
        choices=AGGREGATION_CHOICES,
        default="default",
        help="system scores from the metric's corpus score (default) or from its sentence "
        "scores by TrueSkill (as gec-metrics) or Expected Wins (ew, expected-wins)",
    )


def _computed_scores(
    args: argparse.Namespace, systems: list[str]
) -> dict[str, compute.MetricScores]:
    """``--compute``: the named metrics on ``--outputs`` against ``--gold`` (``--refs``)."""
    if not args.outputs or not args.gold:
        raise CommandError("--compute needs --outputs DIR and --gold GOLD.m2")
    plain = [name for name in args.compute if name in compute.PLAIN_REFERENCE_METRICS]
    if plain and not args.refs:
        raise CommandError(
            f"--compute {' '.join(plain)} needs --refs REF [REF ...] (plain reference files, "
            "one sentence per line): the gold M2's edits are not used as references"
        )
    inputs = compute.load_inputs(
        args.outputs,
        args.gold,
        lines=args.lines,
        references=args.refs,
        systems=systems,
        language=args.language,
        ptm2_model=args.ptm2_model,
        ptm2_layers=args.ptm2_layers,
    )
    computed = compute.compute_all(args.compute, inputs)
    if args.closest_gold:
        from gecscore.meta.closest_gold import closest_gold_columns

        computed.update(closest_gold_columns(args.compute, inputs, args.closest_gold, args.pooled))
    elif args.pooled:
        raise CommandError("--pooled needs --closest-gold DIR (the systems' closest-golds)")
    return computed


def run_revisitcgec(args: argparse.Namespace) -> int:
    from gecscore.meta.revisitcgec_metrics import format_text, run

    report = run(
        args.data,
        corpus=args.corpus,
        yaclc_refs=args.yaclc_refs,
        mucgec_dev=args.mucgec_dev,
        resources_dir=args.resources,
        metrics=args.metric,
        method=args.method,
        aggregates=args.aggregate,
        ptm2_model=args.ptm2_model,
        bootstrap=args.bootstrap,
        bootstrap_sentences=args.bootstrap_sentences,
        seed=args.seed,
        runs=args.runs,
        window=args.window,
        workers=args.workers,
    )
    print_report(report, args.json, format_text(report))
    return 0
