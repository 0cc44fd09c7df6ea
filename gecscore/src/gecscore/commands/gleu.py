"""Subcommand ``gleu``: GLEU without tuning (cnap/gec-ranking ``compute_gleu``).

    python -m gecscore gleu --src SRC.txt --hyp SYSTEM.txt [--hyp ...] --ref REF0.txt [REF1.txt ...]
        [--sentence] [--exact] [--iterations N] [--json]

Text output is ``compute_gleu``'s: ``<file name> <score>`` with 6 decimals; ``--sentence`` adds
one ``<sentence index> <score>`` line per sentence (``compute_gleu -d``'s mean column).
``--json``: one line per hypothesis file, the ``gleu`` Result's data (``Result.to_dict()``,
sentence scores included) and ``system``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gecscore.commands import arguments
from gecscore.english.gleu import GLEU, ITERATIONS, GLEUConfig
from gecscore.english.textfiles import check_same_length, read_text_lines
from gecscore.result_data import json_line

__all__ = [
    "register",
    "run_gleu",
]


def register(subparsers: Any) -> None:
    gleu = subparsers.add_parser("gleu", help="GLEU (gec-ranking compute_gleu) of system outputs")
    gleu.add_argument(
        "--src",
        required=True,
        type=arguments.input_file,
        metavar="SRC.txt",
        help="source text, one a line",
    )
    arguments.add_hyp(gleu, "SYSTEM.txt", "system output, one sentence a line")
    gleu.add_argument(
        "--ref",
        required=True,
        nargs="+",
        type=arguments.input_file,
        metavar="REF.txt",
        help="reference texts, one a line",
    )
    gleu.add_argument("--sentence", action="store_true", help="also sentence-level scores")
    gleu.add_argument(
        "--exact",
        action="store_true",
        help="deterministic: GLEU of the expected statistics over reference choices, "
        "instead of the mean over Python-2-compatible random draws",
    )
    gleu.add_argument(
        "--iterations",
        type=arguments.positive_int,
        default=ITERATIONS,
        metavar="N",
        help=f"random draws (default {ITERATIONS})",
    )
    arguments.add_json(gleu)
    gleu.set_defaults(func=run_gleu)


def run_gleu(args: argparse.Namespace) -> int:
    source = read_text_lines(args.src)
    refs = [read_text_lines(path) for path in args.ref]
    for ref in refs:
        check_same_length(source, ref)
    for text_file in (source, *refs):
        for note in text_file.notes():
            print(f"warning: {note}", file=sys.stderr)
    metric = GLEU(
        GLEUConfig(draw="expected" if args.exact else "python2", iterations=args.iterations)
    )
    corpus = metric.corpus(source.lines, [ref.lines for ref in refs])
    for path in args.hyp:
        hyp = read_text_lines(path)
        check_same_length(source, hyp)
        for note in hyp.notes():
            print(f"warning: {note}", file=sys.stderr)
        result = metric.score_prepared(corpus, hyp.lines)
        if args.json:
            print(json_line(result.to_dict(), path), flush=True)
            continue
        if args.sentence:
            print(f"== {path}")
            for index, sentence in enumerate(result.sentences):
                print(f"{index} {sentence.score:f}")
        print(f"{os.path.basename(path)} {result.score:f}", flush=True)
    return 0
