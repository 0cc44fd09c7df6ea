"""Subcommand ``meta seeda``: SEEDA's standard meta-evaluation of one metric in one call.

    python -m gecscore meta seeda --seeda DIR --metric NAME
        [--aggregate default|trueskill|expected-wins] [--gold GOLD.m2]
        [--ptm2-model PATH [--ptm2-layers N]] [--json]

The shorthand of ``meta system --compute NAME --systems base --outputs DIR/outputs/subset
--gold conll14st-test.m2 --lines DIR/subset_conll14_lines.txt --refs REF0.txt REF1.txt``
against each of the four human score files, and of ``meta sentence --variant seeda`` on both
judgment files (see :mod:`gecscore.meta.seeda`).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register_seeda", "run_seeda"]


def register_seeda(commands: Any) -> None:
    from gecscore.commands.arguments import positive_int
    from gecscore.meta import compute
    from gecscore.meta.seeda import AGGREGATES

    parser = commands.add_parser(
        "seeda", help="SEEDA's standard setting for one metric (as gec-metrics' MetaEvalSEEDA)"
    )
    parser.add_argument("--seeda", required=True, metavar="DIR", help="the SEEDA folder")
    parser.add_argument(
        "--metric",
        required=True,
        choices=tuple(compute.METRICS),
        metavar="NAME",
        help=f"of {', '.join(compute.METRICS)}",
    )
    parser.add_argument(
        "--aggregate",
        choices=AGGREGATES,
        default="default",
        help="the metric's system scores: its corpus score (default) or a ranking from its "
        "sentence scores (trueskill, expected-wins)",
    )
    parser.add_argument(
        "--gold",
        metavar="GOLD.m2",
        help="CoNLL-14 gold M2 (default: conll14st-test.m2 in DIR or in DIR/../conll14/)",
    )
    parser.add_argument("--ptm2-model", metavar="PATH", help="BERT model of --metric ptm2")
    parser.add_argument(
        "--ptm2-layers", type=positive_int, metavar="N", help="its layer (bert-score default)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run_seeda)


def run_seeda(args: argparse.Namespace) -> int:
    from gecscore.commands.meta import print_report
    from gecscore.meta.seeda import format_text, seeda_report

    report = seeda_report(
        args.seeda,
        args.metric,
        aggregate=args.aggregate,
        gold=args.gold,
        ptm2_model=args.ptm2_model,
        ptm2_layers=args.ptm2_layers,
    )
    print_report(report, args.json, format_text(report))
    return 0
