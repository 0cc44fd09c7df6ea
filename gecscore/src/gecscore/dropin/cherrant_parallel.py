"""``gecscore-cherrant-parallel-to-m2``: ChERRANT's ``parallel_to_m2.py`` (MuCGEC @3922193).

    gecscore-cherrant-parallel-to-m2 -f INPUT -o OUTPUT.m2 [-g char] [-s all|first]
        [--no_simplified] [-b N] [-d N] [-w N] [-m] [--resources DIR]

Writes the M2 file ChERRANT writes, byte for byte, with ``gecscore.extract.parallel_to_m2``.
``-b`` (batch size), ``-d`` (GPU id) and ``-m`` (unused in ChERRANT) change nothing; ``-w``
sets our extraction processes (at most the CPU count; ChERRANT ignores it). Refused: ``-g word``
(ChERRANT segments with LTP's neural model; gecscore's word level uses jieba and differs),
``--segmented`` and ``--bpe``. ChERRANT reads ``data/cilin.txt`` and ``data/confusion_dict.txt``
from its own folder: give that folder with ``--resources`` (ours) or $GEC_CHERRANT_RESOURCES,
or the output is that of the packaged Cilin without confusion sets.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gecscore.dropin import Unsupported, run

__all__ = ["entry", "main", "parse_args"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Choose input file to annotate")
    parser.add_argument("-f", "--file", type=str, required=True, help="Input parallel file")
    parser.add_argument("-o", "--output", type=str, help="Output file", required=True)
    parser.add_argument("-b", "--batch_size", type=int, help="The size of batch", default=128)
    parser.add_argument("-d", "--device", type=int, help="The ID of GPU", default=0)
    parser.add_argument("-w", "--worker_num", type=int, help="The number of workers", default=16)
    parser.add_argument(
        "-g", "--granularity", type=str, help="char (word is refused)", default="char"
    )
    parser.add_argument(
        "-m", "--merge", help="Accepted; unused (as in ChERRANT)", action="store_true"
    )
    parser.add_argument(
        "-s", "--multi_cheapest_strategy", type=str, choices=["first", "all"], default="all"
    )
    parser.add_argument("--segmented", help="Refused", action="store_true")
    parser.add_argument(
        "--no_simplified", help="Do not convert targets to simplified", action="store_true"
    )
    parser.add_argument("--bpe", help="Refused", action="store_true")
    parser.add_argument(
        "--resources",
        metavar="DIR",
        help="(gecscore) ChERRANT's data folder; default $GEC_CHERRANT_RESOURCES",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.granularity != "char":
        raise Unsupported(
            f"-g {args.granularity}: only -g char is reproduced (ChERRANT's word level "
            "segments with LTP's neural model, which gecscore does not run); use ChERRANT"
        )
    for flag, given in (("--segmented", args.segmented), ("--bpe", args.bpe)):
        if given:
            raise Unsupported(f"{flag} is not reproduced; use ChERRANT's parallel_to_m2.py")
    from gecscore.extract import parallel_to_m2, read_parallel
    from gecscore.m2 import write_m2
    from gecscore.resources import load_resources, resources_from_env

    resources = load_resources(args.resources) if args.resources else resources_from_env()
    if resources.directory is None:
        print(
            "note: no ChERRANT data folder given (--resources or $GEC_CHERRANT_RESOURCES): "
            "using the packaged Cilin without confusion sets, which can differ from ChERRANT",
            file=sys.stderr,
        )
    workers = max(1, min(args.worker_num, os.cpu_count() or 1))
    blocks, truncated = parallel_to_m2(
        read_parallel(args.file),
        resources=resources,
        strategy=args.multi_cheapest_strategy,
        simplified=not args.no_simplified,
        workers=workers,
        name=args.file,
    )
    for line in truncated:
        print(
            f"warning: {args.file}, line {line}: too many cheapest alignments; only the first "
            "ones were enumerated",
            file=sys.stderr,
        )
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(write_m2(blocks))
    return 0


def entry() -> int:
    return run(main)


if __name__ == "__main__":
    sys.exit(entry())
