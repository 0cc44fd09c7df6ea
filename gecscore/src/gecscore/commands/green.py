"""Subcommand ``green``: GREEN (Koyama et al. 2024), n-gram F-beta, as gec-metrics 0.1.1.

    python -m gecscore green --src SRC.txt --hyp SYSTEM.txt [--hyp ...] --ref REF0.txt [REF1.txt ...]
        [--unit word|char] [--n N] [--beta B] [--sentence] [--json]

Text output: ``<file name> <score>`` with 6 decimals per hypothesis file; ``--sentence`` adds
one ``<sentence index> <score>`` line per sentence before it. ``--json``: one object a
hypothesis file, ``{"system", "score", "signature"}`` and ``"sentence"`` (a list) with
``--sentence``.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from gecscore.commands.arguments import positive_float, positive_int
from gecscore.english.textfiles import check_same_length, read_text_lines
from gecscore.green import GREEN, UNITS, GREENConfig

__all__ = [
    "register",
    "run_green",
]


def register(subparsers: Any) -> None:
    green = subparsers.add_parser("green", help="GREEN n-gram F-beta (gec-metrics) of outputs")
    green.add_argument("--src", required=True, metavar="SRC.txt")
    green.add_argument(
        "--hyp", required=True, action="append", metavar="SYSTEM.txt", help="repeat for several"
    )
    green.add_argument(
        "--ref", required=True, action="extend", nargs="+", metavar="REF.txt", help="one or more"
    )
    green.add_argument("--unit", choices=UNITS, default="word", help="n-gram units (default word)")
    green.add_argument("--n", type=positive_int, default=4, help="largest n-gram order (4)")
    green.add_argument("--beta", type=positive_float, default=2.0, help="F-beta's beta (2.0)")
    green.add_argument("--sentence", action="store_true", help="also sentence-level scores")
    green.add_argument("--json", action="store_true", help="one JSON object per hypothesis")
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
        sentences = [sentence.score for sentence in result.sentences]
        if args.json:
            payload: dict[str, Any] = {
                "system": path,
                "score": result.score,
                "signature": result.signature,
            }
            if args.sentence:
                payload["sentence"] = sentences
            print(json.dumps(payload), flush=True)
            continue
        if args.sentence:
            print(f"== {path}")
            for index, score in enumerate(sentences):
                print(f"{index} {score:f}")
        print(f"{os.path.basename(path)} {result.score:f}", flush=True)
    return 0
