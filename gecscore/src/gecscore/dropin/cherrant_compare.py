"""``gecscore-cherrant-compare``: ChERRANT's ``compare_m2_for_evaluation.py`` (MuCGEC @3922193).

    gecscore-cherrant-compare -hyp HYP.m2 -ref REF.m2 [-b BETA] [-v] [-dt|-ds|-cs|-cse]
        [-single] [-multi] [-filt TYPE ...] [-cat 1|2|3] [--start N --end M]
        [--max_answer_num 1|2|3] [--reference_num N] [-multi_hyp_avg] [-multi_hyp_max]

Prints what the script prints, byte for byte (verbose output included), from
``gecscore.compare.compare_m2``. ``-multi_hyp_avg`` / ``-multi_hyp_max`` are accepted and,
as in ChERRANT, change nothing. ``--max_answer_num`` other than 1, 2 or 3 is refused (ChERRANT
then silently ignores every edit and scores 1.0).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gecscore.dropin import Unsupported, read_m2_as_compare_does, run
from gecscore.dropin._compare_flags import compare_parser, mode_of

__all__ = ["entry", "main", "mode_of", "parse_args"]


def _cherrant_range_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--start", type=int, default=None)
    parser.add_argument("--end", type=int, default=None)
    parser.add_argument("--max_answer_num", type=int, default=None)
    parser.add_argument("--reference_num", type=int, default=None)


def _cherrant_multi_hyp_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-multi_hyp_avg", help="Accepted; no effect (as in ChERRANT).", action="store_true"
    )
    parser.add_argument(
        "-multi_hyp_max", help="Accepted; no effect (as in ChERRANT).", action="store_true"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    # The reference's parser, flag for flag: errant_compare's with ChERRANT's additions.
    parser = compare_parser(after_ref=_cherrant_range_flags, after_multi=_cherrant_multi_hyp_flags)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from gecscore.compare import compare_m2
    from gecscore.compare_table import format_table

    args = parse_args(argv)
    if args.max_answer_num is not None and args.max_answer_num not in (1, 2, 3):
        raise Unsupported(
            f"--max_answer_num {args.max_answer_num}: ChERRANT handles only 1, 2 or 3 (with "
            "another value it drops every edit and prints 1.0); leave it out to use all"
        )
    tracer = None
    if args.verbose:  # the tracer module imports typing: only -v pays for it
        from gecscore.dropin._verbose import CherrantTrace

        tracer = CherrantTrace(args.beta, sys.stdout)
    hyp, ref = read_m2_as_compare_does(args.hyp, args.ref, "ChERRANT")
    if args.start is not None and args.end is not None:
        hyp, ref = hyp[args.start : args.end], ref[args.start : args.end]
    result = compare_m2(
        hyp,
        ref,
        max_refs=args.max_answer_num,
        reference_num=args.reference_num,
        mode=mode_of(args),
        beta=args.beta,
        cat=args.cat,
        single=args.single,
        multi=args.multi,
        filt=args.filt,
        tracer=tracer,
    )
    totals = (result.tp, result.fp, result.fn, result.p, result.r, result.f)
    categories = result.categories if args.cat else None
    sys.stdout.write(format_table(result.mode, args.beta, totals, categories))
    return 0


def entry() -> int:
    return run(main)


if __name__ == "__main__":
    sys.exit(entry())
