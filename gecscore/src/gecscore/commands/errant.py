"""Subcommands of ERRANT (English): ``errant-compare`` and ``errant-m2``.

    python -m gecscore errant-compare --hyp HYP.m2 [--hyp HYP2.m2 ...] --ref REF.m2
        [--cat 1|2|3] [--ds|--dt|--cs|--cse] [--single] [--multi] [--filt TYPE ...]
        [--beta B] [--json]
    python -m gecscore errant-m2 --src SRC.txt --cor COR.txt [COR2.txt ...] -o OUT.m2

``errant-compare`` gives the numbers of errant 3.0.2 ``errant_compare`` (``--json``: one line
per file, the ``errant`` Result's data with the file as ``system``); ``errant-m2`` writes
the M2 of ``errant_parallel`` 3.0.2 (needs the spaCy model from requirements-models.txt).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gecscore.commands import arguments
from gecscore.compare import CompareError
from gecscore.english.errant_compare import (
    CompareOptions,
    compare_blocks,
    format_result,
    result_fields,
)
from gecscore.english.textfiles import check_same_length, read_text_lines
from gecscore.m2 import M2Block, read_m2
from gecscore.result_data import json_line, result_data

__all__ = [
    "register",
    "run_compare",
    "run_m2",
]


def register(subparsers: Any) -> None:
    compare = subparsers.add_parser(
        "errant-compare", help="ERRANT compare (errant_compare 3.0.2) of hypothesis M2 files"
    )
    arguments.add_hyp(compare, "HYP.m2", "hypothesis M2 file")
    arguments.add_ref(compare, "REF.m2", "reference M2 file")
    modes = compare.add_mutually_exclusive_group()
    for flag, mode, text in (
        ("--cs", "cs", "span-based correction (default)"),
        ("--cse", "cse", "span-based correction and error type"),
        ("--ds", "ds", "span-based detection"),
        ("--dt", "dt", "token-based detection"),
    ):
        modes.add_argument(flag, dest="mode", action="store_const", const=mode, help=text)
    compare.add_argument("--single", action="store_true", help="only edits 0:1, 1:0 or 1:1")
    compare.add_argument("--multi", action="store_true", help="only edits 2+:n or n:2+")
    compare.add_argument("--filt", nargs="+", default=[], metavar="TYPE", help="ignore these types")
    compare.add_argument("--cat", type=int, choices=(1, 2, 3), help="per-category table")
    arguments.add_beta(compare)
    arguments.add_json(compare)
    compare.set_defaults(func=run_compare, mode="cs")

    m2 = subparsers.add_parser(
        "errant-m2", help="parallel text files -> ERRANT M2 (errant_parallel 3.0.2)"
    )
    m2.add_argument(
        "--src",
        required=True,
        type=arguments.input_file,
        metavar="SRC.txt",
        help="tokenised source, one a line",
    )
    m2.add_argument(
        "--cor",
        required=True,
        nargs="+",
        type=arguments.input_file,
        metavar="COR.txt",
        help="one per annotator",
    )
    m2.add_argument("-o", "--output", required=True, metavar="OUT.m2")
    m2.set_defaults(func=run_m2)


def _source_mismatch(hyp: list[M2Block], ref: list[M2Block]) -> str | None:
    for hyp_block, ref_block in zip(hyp, ref, strict=True):
        if hyp_block.source.split() != ref_block.source.split():
            return f"hypothesis line {hyp_block.line}, reference line {ref_block.line}"
    return None


def run_compare(args: argparse.Namespace) -> int:
    options = CompareOptions(
        mode=args.mode,
        beta=args.beta,
        single=args.single,
        multi=args.multi,
        filt=tuple(args.filt),
        cat=args.cat,
    )
    ref = read_m2(args.ref)
    for path in args.hyp:
        hyp = read_m2(path)
        if len(hyp) != len(ref):
            raise CompareError(f"{path} has {len(hyp)} sentences but {args.ref} has {len(ref)}")
        mismatch = _source_mismatch(hyp, ref)
        if mismatch:
            # errant_compare does not check; counts of such a pair are meaningless.
            print(
                f"warning: {path}: the source sentences differ from {args.ref} "
                f"(first at {mismatch})",
                file=sys.stderr,
            )
        result = compare_blocks(hyp, ref, options)
        if args.json:
            print(json_line(result_data(**result_fields(result)), path), flush=True)
        else:
            if len(args.hyp) > 1:
                print(f"== {path}")
            sys.stdout.write(format_result(result))
            print(f"signature: {result.signature}", flush=True)
    return 0


def run_m2(args: argparse.Namespace) -> int:
    from gecscore.english.errant_edits import parallel_to_m2_blocks
    from gecscore.m2 import write_m2

    source = read_text_lines(args.src)
    corrections = [read_text_lines(path) for path in args.cor]
    for text_file in corrections:
        check_same_length(source, text_file)
    for text_file in (source, *corrections):
        for note in text_file.notes():
            print(f"warning: {note}", file=sys.stderr)
    if source.empty:
        print(
            f"warning: {args.src}: empty source lines are skipped (no M2 block), as "
            "errant_parallel does",
            file=sys.stderr,
        )
    blocks = parallel_to_m2_blocks(source.lines, [text_file.lines for text_file in corrections])
    with open(args.output, "w", encoding="utf-8") as handle:
        write_m2(blocks, handle)
    return 0
