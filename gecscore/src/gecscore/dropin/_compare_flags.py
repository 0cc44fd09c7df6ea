"""The flags ChERRANT's ``compare_m2_for_evaluation.py`` and errant 3.0.2's ``errant_compare``
share (ChERRANT's script is a copy of errant's with a few flags added): one parser builder for
both drop-in compare commands, flag for flag and in the references' order (help texts
shortened)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["compare_parser", "mode_of"]

AddFlags = Callable[[argparse.ArgumentParser], None]


def _no_flags(parser: argparse.ArgumentParser) -> None:
    return None


def compare_parser(
    *, after_ref: AddFlags = _no_flags, after_multi: AddFlags = _no_flags
) -> argparse.ArgumentParser:
    """errant_compare's parser; ``after_ref`` and ``after_multi`` add a tool's own flags
    where its parser has them (ChERRANT: ``--start`` ... after ``-ref``, ``-multi_hyp_*``
    after ``-multi``), so ``--help`` lists them in the reference's order."""
    parser = argparse.ArgumentParser(
        description="Calculate F-scores for error detection and/or correction.\n"
        "Flags let you evaluate at different levels of granularity.",
        formatter_class=argparse.RawTextHelpFormatter,
        usage="%(prog)s [options] -hyp HYP -ref REF",
    )
    parser.add_argument("-hyp", help="A hypothesis M2 file.", required=True)
    parser.add_argument("-ref", help="A reference M2 file.", required=True)
    after_ref(parser)
    parser.add_argument(
        "-b", "--beta", help="Value of beta in F-score. (default: 0.5)", default=0.5, type=float
    )
    parser.add_argument("-v", "--verbose", help="Print verbose output.", action="store_true")
    eval_type = parser.add_mutually_exclusive_group()
    eval_type.add_argument(
        "-dt", help="Evaluate Detection in terms of Tokens.", action="store_true"
    )
    eval_type.add_argument("-ds", help="Evaluate Detection in terms of Spans.", action="store_true")
    eval_type.add_argument(
        "-cs", help="Evaluate Correction in terms of Spans. (default)", action="store_true"
    )
    eval_type.add_argument(
        "-cse", help="Evaluate Correction in terms of Spans and Error types.", action="store_true"
    )
    parser.add_argument("-single", help="Only evaluate single token edits", action="store_true")
    parser.add_argument("-multi", help="Only evaluate multi token edits", action="store_true")
    after_multi(parser)
    parser.add_argument(
        "-filt", help="Do not evaluate the specified error types.", nargs="+", default=[]
    )
    parser.add_argument(
        "-cat",
        help="Show error category scores.\n1: operation tier; 2: main tier; 3: all.",
        choices=[1, 2, 3],
        type=int,
    )
    return parser


def mode_of(args: argparse.Namespace) -> str:
    """The comparison mode of the mutually exclusive -dt / -ds / -cs / -cse flags."""
    if args.dt:
        return "dt"
    if args.ds:
        return "ds"
    if args.cse:
        return "cse"
    return "cs"
