"""``gecscore-errant-compare``: errant 3.0.2's ``errant_compare``.

    gecscore-errant-compare -hyp HYP.m2 -ref REF.m2 [-b BETA] [-v] [-dt|-ds|-cs|-cse]
        [-single] [-multi] [-filt TYPE ...] [-cat 1|2|3]

Prints what errant_compare prints, byte for byte (verbose output included), from
``gecscore.english.errant_compare.compare_blocks``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gecscore.dropin import run

__all__ = ["entry", "main", "parse_args"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    # errant_compare's parser, flag for flag (help texts shortened).
    parser = argparse.ArgumentParser(
        description="Calculate F-scores for error detection and/or correction.\n"
        "Flags let you evaluate at different levels of granularity.",
        formatter_class=argparse.RawTextHelpFormatter,
        usage="%(prog)s [options] -hyp HYP -ref REF",
    )
    parser.add_argument("-hyp", help="A hypothesis M2 file.", required=True)
    parser.add_argument("-ref", help="A reference M2 file.", required=True)
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
    parser.add_argument(
        "-filt", help="Do not evaluate the specified error types.", nargs="+", default=[]
    )
    parser.add_argument(
        "-cat",
        help="Show error category scores.\n1: operation tier; 2: main tier; 3: all.",
        choices=[1, 2, 3],
        type=int,
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from gecscore.compare import CompareError
    from gecscore.english.errant_compare import CompareOptions, compare_blocks, format_result
    from gecscore.m2 import read_m2

    args = parse_args(argv)
    mode = "dt" if args.dt else "ds" if args.ds else "cse" if args.cse else "cs"
    try:
        options = CompareOptions(
            mode=mode,
            beta=args.beta,
            single=args.single,
            multi=args.multi,
            filt=tuple(args.filt),
            cat=args.cat,
        )
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    hyp, ref = read_m2(args.hyp), read_m2(args.ref)
    tracer = None
    if args.verbose:
        from gecscore.dropin._verbose import ErrantTrace

        tracer = ErrantTrace(args.beta, sys.stdout)
    result = compare_blocks(hyp, ref, options, tracer)
    sys.stdout.write(format_result(result))
    return 0


def entry() -> int:
    return run(main)


if __name__ == "__main__":
    sys.exit(entry())
