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

from gecscore.dropin import read_m2_as_compare_does, run
from gecscore.dropin._compare_flags import compare_parser, mode_of

__all__ = ["entry", "main", "parse_args"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    # errant_compare's parser, flag for flag.
    return compare_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from gecscore.compare import CompareError
    from gecscore.english.errant_compare import CompareOptions, compare_blocks, format_result

    args = parse_args(argv)
    mode = mode_of(args)
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
    hyp, ref = read_m2_as_compare_does(args.hyp, args.ref, "errant_compare 3.0.2")
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
