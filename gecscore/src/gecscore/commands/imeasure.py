"""Subcommand ``imeasure``: I-measure (mfelice/imeasure ``ieval.py -nomix``) of system outputs.

    python -m gecscore imeasure --hyp SYSTEM.txt [--hyp SYSTEM2.txt ...] --ref GOLD.m2
        [--sentence] [--optimise sentence|corpus] [--weight W] [--beta B] [--json]

Text output is ``ieval.py``'s OVERALL RESULTS table (percentages, 2 decimals); ``--sentence``
first prints its ``-per-sent`` rows. ``--json`` prints one line per hypothesis file: the
``imeasure`` Result's data (``Result.to_dict()``: ``score`` the I as a fraction in [-1, 1],
the table shows it x 100) and ``system``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscore.commands import arguments
from gecscore.english.gleu import tokens as python2_tokens
from gecscore.english.imeasure import (
    OPTIMISE,
    AspectScores,
    Cache,
    IMeasureConfig,
    IMeasureResult,
    gold_sentences,
    score_corpus,
)
from gecscore.english.imeasure_metric import imeasure_result
from gecscore.english.textfiles import TextFormatError, read_text_lines
from gecscore.m2 import beyond_source_warning, read_m2
from gecscore.result_data import json_line

__all__ = [
    "format_table",
    "register",
    "run_imeasure",
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "imeasure", help="I-measure (mfelice/imeasure ieval.py -nomix) of system outputs"
    )
    arguments.add_hyp(parser, "SYSTEM.txt", "system output, one tokenised sentence a line")
    arguments.add_ref(parser, "GOLD.m2", "gold M2 file")
    parser.add_argument("--sentence", action="store_true", help="also per-sentence scores")
    parser.add_argument(
        "--optimise",
        choices=OPTIMISE,
        default="sentence",
        help="choose each sentence's reference for that sentence (default) or for the "
        "running corpus totals (ieval.py -opt:corpus)",
    )
    parser.add_argument(
        "--weight",
        type=arguments.positive_float,
        default=2.0,
        metavar="W",
        help="weight of TP and FP in WAcc, a positive number (default 2)",
    )
    arguments.add_beta(parser, default=1.0)
    arguments.add_json(parser)
    parser.set_defaults(func=run_imeasure)


_RULE = "-" * 117


def _rows(labels: tuple[str, str], det: AspectScores, cor: AspectScores) -> list[str]:
    rows = []
    for name, s in zip(labels, (det, cor), strict=True):
        c = s.counts
        values = (s.p, s.r, s.f, s.acc, s.acc_base, s.wacc, s.wacc_base, s.i)
        rows.append(
            f"{name}  {c.tp:6d}  {c.tn:6d}  {c.fp:6d}  {c.fn:6d}  {c.fpn:6d}  "
            + "  ".join(f"{v * 100:6.2f}" for v in values)
        )
    return rows


def _header(first: str, beta: float) -> list[str]:
    return [
        _RULE,
        first + "    TP      TN      FP      FN     FPN       P       R"
        f"  F_{beta:3.2f}     Acc   Acc_b    WAcc  WAcc_b       I ",
        _RULE,
    ]


def format_table(result: IMeasureResult, *, sentences: bool) -> str:
    """``ieval.py``'s output: optional per-sentence rows, then the overall table."""
    beta = result.config.beta
    lines: list[str] = []
    if sentences:
        lines += ["SENTENCE RESULTS", *_header("SID     Asp.  ", beta)]
        for number, sentence in enumerate(result.sentences, start=1):
            labels = (f"{number!s:<6}  Det ", f"{number!s:<6}  Cor ")
            lines += _rows(labels, sentence.detection, sentence.correction)
        lines.append("")
    lines += ["OVERALL RESULTS", *_header("Aspect        ", beta)]
    lines += _rows(("Detection   ", "Correction  "), result.detection, result.correction)
    return "\n".join(lines)


def run_imeasure(args: argparse.Namespace) -> int:
    config = IMeasureConfig(weight=args.weight, beta=args.beta, optimise=args.optimise)
    beyond_source: list[int] = []
    gold = gold_sentences(read_m2(args.ref, beyond_source=beyond_source))
    if beyond_source:
        treatment = (
            "I-measure applies them as Python slices, cut at the sentence's end (a span past "
            "the end inserts there), and so does imeasure; m2scorer leaves them out"
        )
        print(
            f"warning: {beyond_source_warning(args.ref, beyond_source, treatment)}", file=sys.stderr
        )
    cache: Cache = {}
    for path in args.hyp:
        hyp = read_text_lines(path)
        if len(hyp.lines) != len(gold):
            raise TextFormatError(
                path,
                min(len(hyp.lines), len(gold)) + 1,
                f"{len(hyp.lines)} lines, but {args.ref} has {len(gold)} sentences; "
                "a system output needs one line per gold sentence",
            )
        for note in hyp.notes():
            print(f"warning: {note}", file=sys.stderr)
        result = score_corpus(
            [python2_tokens(line) for line in hyp.lines], gold, config, cache=cache
        )
        if args.json:
            print(json_line(imeasure_result(result).to_dict(), path), flush=True)
        else:
            print(f"== {path}  ({result.signature})")
            print(format_table(result, sentences=args.sentence), flush=True)
    return 0
