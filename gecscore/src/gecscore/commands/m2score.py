"""Subcommand ``m2score``: M2 (MaxMatch) with m2scorer 3.2's counts, corpus and sentence level.

    python -m gecscore m2score --hyp SYSTEM.txt [--hyp SYSTEM2.txt ...] --ref GOLD.m2
        [--sentence] [--beta 0.5] [--max-unchanged-words 2] [--max-arcs N] [--json]

Text output is m2scorer's (``Precision   : 0.4162`` ...), byte for byte; ``--sentence`` adds a
``SentM2 F_0.5 : ...`` line. With several ``--hyp`` files each block is preceded by
``== FILE``. ``--json`` prints one object per hypothesis file: the ``m2`` Result's data
(``Result.to_dict()``; with ``--sentence`` the ``sentm2`` Result's, whose ``details["m2"]``
is the corpus F) and ``system`` (the file name). Gold edits whose span
lies beyond the sentence are left out as m2scorer 3.2 leaves them out, with a warning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gecscore.commands import arguments
from gecscore.english.textfiles import check_one_line_per_gold_sentence, read_text_lines
from gecscore.m2 import beyond_source_warning, read_m2
from gecscore.maxmatch.scorer import (
    DEFAULT_MAX_ARCS,
    format_m2scorer,
    gold_edits_by_annotator,
    m2_result,
    score,
)
from gecscore.result_data import json_line

__all__ = [
    "register",
    "run_m2score",
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "m2score", help="M2 (MaxMatch, m2scorer 3.2 counts) of system outputs, with SentM2"
    )
    arguments.add_hyp(parser, "SYSTEM.txt", "system output, one tokenised sentence a line")
    arguments.add_ref(parser, "GOLD.m2", "gold M2 file")
    parser.add_argument("--sentence", action="store_true", help="also SentM2 (mean sentence F)")
    arguments.add_beta(parser)
    parser.add_argument(
        "--max-unchanged-words",
        type=arguments.non_negative_int,
        default=2,
        metavar="N",
        help="m2scorer's limit of unchanged tokens inside one edit (default 2)",
    )
    parser.add_argument(
        "--max-arcs",
        type=arguments.non_negative_int,
        metavar="N",
        default=DEFAULT_MAX_ARCS,
        help="transitive arcs per sentence before the lattice is bounded (0: no limit; "
        f"default {DEFAULT_MAX_ARCS}); bounded sentences are reported",
    )
    arguments.add_json(parser)
    parser.set_defaults(func=run_m2score)


def run_m2score(args: argparse.Namespace) -> int:
    beyond_source: list[int] = []
    blocks = read_m2(args.ref, beyond_source=beyond_source)
    if beyond_source:
        treatment = (
            "m2scorer 3.2 leaves such edits out (their annotators stay), and so does m2score"
        )
        print(
            f"warning: {beyond_source_warning(args.ref, beyond_source, treatment)}", file=sys.stderr
        )
    gold = [gold_edits_by_annotator(block) for block in blocks]
    max_arcs = args.max_arcs or None
    for path in args.hyp:
        hyp = read_text_lines(path)
        check_one_line_per_gold_sentence(hyp, len(blocks), args.ref, what="the hypothesis")
        for note in hyp.notes():
            print(f"warning: {note}", file=sys.stderr)
        result = score(
            hyp.lines,
            blocks,
            beta=args.beta,
            max_unchanged_words=args.max_unchanged_words,
            max_arcs=max_arcs,
            gold=gold,
        )
        bounded = result.bounded_sentences
        if bounded:
            shown = ", ".join(str(i + 1) for i in bounded[:10])
            print(
                f"warning: {path}: {len(bounded)} sentence(s) hit the lattice budget of "
                f"{args.max_arcs} arcs (line {shown}); their counts are a bounded answer, "
                "not m2scorer's (raise --max-arcs, or 0 for no limit)",
                file=sys.stderr,
            )
        if args.json:
            data = m2_result(result, sentence_level=args.sentence).to_dict()
            print(json_line(data, Path(path).name), flush=True)
            continue
        if len(args.hyp) > 1:
            print(f"== {path}")
        text = format_m2scorer(result)
        if args.sentence:
            text += f"SentM2 F_{result.beta:.1f} : {result.sent_f:.4f}\n"
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
