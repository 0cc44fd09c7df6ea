"""Subcommand ``green``: GREEN (Koyama et al. 2024), n-gram F-beta, as gec-metrics 0.1.1.

    python -m gecscore green --src SRC.txt --hyp SYSTEM.txt [--hyp ...] --ref REF0.txt [REF1.txt ...]
        [--unit word|char] [--n N] [--beta B] [--sentence] [--json]

Text output: ``<file name> <score>`` with 6 decimals per hypothesis file; ``--sentence`` adds
one ``<sentence index> <score>`` line per sentence before it. ``--json``: one line per
hypothesis file, the ``green`` Result's data (``Result.to_dict()``) and ``system``.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from gecscore.commands import arguments
from gecscore.english.textfiles import check_same_length, read_text_lines
from gecscore.green import GREEN, UNITS, GREENConfig
from gecscore.result_data import json_line

__all__ = [
    "register",
    "run_green",
]


def register(subparsers: Any) -> None:
    green = subparsers.add_parser("green", help="GREEN n-gram F-beta (gec-metrics) of outputs")
    arguments.add_src(green)
    arguments.add_hyp(green, "SYSTEM.txt", "system output, one sentence a line")
    green.add_argument(
        "--ref",
        required=True,
        action="extend",
        nargs="+",
        type=arguments.input_file,
        metavar="REF.txt",
        help="reference texts, one a line (one or more)",
    )
    green.add_argument("--unit", choices=UNITS, default="word", help="n-gram units (default word)")
    green.add_argument(
        "--n", type=arguments.positive_int, default=4, help="largest n-gram order (4)"
    )
    arguments.add_beta(green, default=2.0)
    green.add_argument("--sentence", action="store_true", help="also sentence-level scores")
    arguments.add_json(green)
    green.set_defaults(func=run_green)


def run_green(args: argparse.Namespace) -> int:
    source = read_text_lines(args.src)
    refs = [read_text_lines(path) for path in args.ref]
    for ref in refs:
        check_same_length(source, ref)
    metric = GREEN(GREENConfig(n=args.n, beta=args.beta, unit=args.unit))
    corpus = metric.corpus(source.lines, [ref.lines for ref in refs])
    for path in args.hyp:
        hyp = read_text_lines(path)
        check_same_length(source, hyp)
        result = metric.result(corpus, corpus.score(hyp.lines))
        if args.json:
            print(json_line(result.to_dict(), path), flush=True)
            continue
        if args.sentence:
            print(f"== {path}")
            for index, score in enumerate(s.score for s in result.sentences):
                print(f"{index} {score:f}")
        print(f"{os.path.basename(path)} {result.score:f}", flush=True)
    return 0
