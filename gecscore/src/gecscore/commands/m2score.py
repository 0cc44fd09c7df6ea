"""Subcommand ``m2score``: M2 (MaxMatch) with m2scorer 3.2's counts, corpus and sentence level.

    python -m gecscore m2score --hyp SYSTEM.txt [--hyp SYSTEM2.txt ...] --ref GOLD.m2
        [--sentence] [--beta 0.5] [--max-unchanged-words 2] [--max-arcs N] [--json]

Text output is m2scorer's (``Precision   : 0.4162`` ...), byte for byte; ``--sentence`` adds a
``SentM2 F_0.5 : ...`` line. With several ``--hyp`` files each block is preceded by
``== FILE``. ``--json`` prints one object per hypothesis file with ``system``, ``tp``, ``fp``,
``fn``, ``p``, ``r``, ``f05`` (P/R/F rounded to 4 decimals, as printed), ``beta`` and
``sent_f05``; ``f`` / ``sent_f`` at another beta (``counts.f_key``). Gold edits whose span
lies beyond the sentence are left out as m2scorer 3.2 leaves them out, with a warning.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gecscore.commands import arguments
from gecscore.counts import Counts, f_key
from gecscore.english.textfiles import check_one_line_per_gold_sentence, read_text_lines
from gecscore.m2 import beyond_source_warning, read_m2
from gecscore.maxmatch.scorer import (
    DEFAULT_MAX_ARCS,
    M2Result,
    format_m2scorer,
    gold_edits_by_annotator,
    score,
)

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


def _payload(path: str, result: M2Result, sentence: bool) -> dict[str, Any]:
    p, r, f = Counts(result.tp, result.fp, result.fn).prf(result.beta, digits=4)
    payload: dict[str, Any] = {
        "system": Path(path).name,
        "tp": result.tp,
        "fp": result.fp,
        "fn": result.fn,
        "p": p,
        "r": r,
        f_key(result.beta): f,
        "beta": result.beta,
    }
    if sentence:
        payload["sent_" + f_key(result.beta)] = round(result.sent_f, 4)
    payload["exact"] = result.exact
    payload["signature"] = result.signature
    return payload


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
            print(json.dumps(_payload(path, result, args.sentence)), flush=True)
            continue
        if len(args.hyp) > 1:
            print(f"== {path}")
        text = format_m2scorer(result)
        if args.sentence:
            text += f"SentM2 F_{result.beta:.1f} : {result.sent_f:.4f}\n"
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
