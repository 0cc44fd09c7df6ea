"""Subcommands of the char metric: ``cherrant-m2``, ``compare``, ``score``.

    python -m gecscore cherrant-m2 INPUT [-o OUTPUT] [--granularity char|word]
                             [--strategy all|first] [--no-simplified] [--resources DIR]
                             [--workers N]
    python -m gecscore compare --hyp HYP.m2 [--hyp HYP2.m2 ...] --ref REF.m2 [--max-refs K]
                             [--reference-num N] [--mode cs|cse|ds|dt] [--cat 1|2|3]
                             [--beta B] [--json]
    python -m gecscore score --ref REF.txt --hyp HYP.txt [--hyp HYP2.txt ...] [--max-refs K]
                             [--no-simplified] [--resources DIR] [--workers N] [--json]

``cherrant-m2`` is ChERRANT's extraction (parallel text -> M2), the char-level sibling of
``errant-m2``; the metric called ``m2`` is MaxMatch (command ``m2score``). The old name
``gecscore m2`` still runs it, with the same output and a one-line deprecation note on stderr.

With several ``--hyp`` files, each table is preceded by ``== FILE``; ``--json`` prints one
object per file, one a line: the ``cherrant`` Result's data (``Result.to_dict()``, full
precision; ``compare.result_fields``) with the file as ``system``.

Without ``--resources`` the directory in $GEC_CHERRANT_RESOURCES is used, else the default
resources (see docs/metrics/char.md); the signature says which.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gecscore.cli import CommandError
from gecscore.commands import arguments
from gecscore.counts import f_label

__all__ = [
    "register",
    "run_compare",
    "run_deprecated_m2",
    "run_m2",
    "run_score",
]


if TYPE_CHECKING:
    from gecscore.compare import CompareResult
    from gecscore.extract import ParallelLine
    from gecscore.m2 import M2Block
    from gecscore.resources import Resources
    from gecscore.signature import Field

# Each command imports what its input needs when it runs: `compare` reads M2 and never loads
# the extractor, the aligner or the resources (gecscore/tests/char/test_startup.py).


def _resources(args: argparse.Namespace) -> Resources:
    from gecscore.resources import load_resources, resources_from_env

    return load_resources(args.resources) if args.resources else resources_from_env()


def _add_extraction_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--granularity",
        choices=("char", "word"),
        default="char",
        help="char (ChERRANT's default) or word (jieba words)",
    )
    parser.add_argument(
        "--strategy",
        choices=("all", "first"),
        default="all",
        help="every cheapest alignment (default) or only the first",
    )
    arguments.add_no_simplified(parser)
    arguments.add_resources(parser)
    arguments.add_workers(parser)


# The command's first name, kept as a hidden alias: `gecscore m2` read like the metric `m2`
# (MaxMatch), which it is not.
DEPRECATED_NAME = "m2"
NAME = "cherrant-m2"


def _add_m2_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        type=arguments.input_file,
        metavar="INPUT",
        help="parallel file: id, source and targets, tab-separated",
    )
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    _add_extraction_options(parser)


def register(subparsers: Any) -> None:
    m2 = subparsers.add_parser(
        NAME, help="parallel file (id, source, targets) -> ChERRANT M2 (parallel_to_m2.py)"
    )
    _add_m2_options(m2)
    m2.set_defaults(func=run_m2)
    # No help: not listed by --help, still parsed.
    old = subparsers.add_parser(DEPRECATED_NAME)
    _add_m2_options(old)
    old.set_defaults(func=run_deprecated_m2)

    compare = subparsers.add_parser(
        "compare", help="score hypothesis M2 files against a reference M2"
    )
    arguments.add_hyp(compare, "HYP.m2", "hypothesis M2 file")
    arguments.add_ref(compare, "REF.m2", "reference M2 file")
    _add_compare_options(compare)
    compare.add_argument(
        "--mode",
        choices=("cs", "cse", "ds", "dt"),
        default="cs",
        help="span-based correction (default), correction with error types, or span- or "
        "token-based detection",
    )
    compare.set_defaults(func=run_compare)

    score = subparsers.add_parser("score", help="extract and score parallel files in one go")
    arguments.add_ref(score, "REF.txt", "reference parallel file (id, source, targets)")
    arguments.add_hyp(score, "HYP.txt", "hypothesis parallel file (id, source, target)")
    _add_compare_options(score)
    _add_extraction_options(score)
    score.set_defaults(func=run_score, mode="cs")


def _add_compare_options(parser: argparse.ArgumentParser) -> None:
    arguments.add_max_refs(parser)
    parser.add_argument(
        "--reference-num",
        type=arguments.positive_int,
        metavar="N",
        help="score only sentences with exactly N references",
    )
    arguments.add_beta(parser)
    parser.add_argument(
        "--cat", type=int, choices=(1, 2, 3), help="also a table per error category (level 1-3)"
    )
    arguments.add_json(parser)


def _extract(lines: list[ParallelLine], args: argparse.Namespace, name: str) -> str:
    from gecscore.extract import parallel_to_m2
    from gecscore.m2 import write_m2

    resources = _resources(args)
    blocks, truncated = parallel_to_m2(
        lines,
        resources=resources,
        granularity=args.granularity,
        strategy=args.strategy,
        simplified=args.simplified,
        workers=args.workers,
        name=name,
    )
    for line in truncated:
        print(
            f"warning: {name}, line {line}: too many cheapest alignments; only the first "
            "ones were enumerated (see docs/metrics/char.md)",
            file=sys.stderr,
        )
    return write_m2(blocks)


def run_m2(args: argparse.Namespace) -> int:
    from gecscore.extract import read_parallel

    text = _extract(read_parallel(args.input), args, args.input)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


def run_deprecated_m2(args: argparse.Namespace) -> int:
    print(
        f"gecscore: '{DEPRECATED_NAME}' is deprecated, use 'gecscore {NAME}' (same options, "
        "same output)",
        file=sys.stderr,
    )
    return run_m2(args)


def _fmt(value: float | int) -> str:
    return str(value)


def _print_result(result: CompareResult, args: argparse.Namespace, system: str) -> None:
    beta = f_label(args.beta)
    if args.json:
        from gecscore.compare import result_fields
        from gecscore.result_data import json_line, result_data

        print(json_line(result_data(**result_fields(result)), system))
        return
    from gecscore.compare_table import TITLES

    title = TITLES[result.mode]
    if args.cat:
        print("")
        print(f"{title:=^66}")
        print(
            "Category".ljust(14),
            "TP".ljust(8),
            "FP".ljust(8),
            "FN".ljust(8),
            "P".ljust(8),
            "R".ljust(8),
            beta,
        )
        for name, s in result.categories.items():
            print(
                name.ljust(14),
                str(s.tp).ljust(8),
                str(s.fp).ljust(8),
                str(s.fn).ljust(8),
                _fmt(s.p).ljust(8),
                _fmt(s.r).ljust(8),
                _fmt(s.f),
            )
    print("")
    print(f"{title:=^46}")
    print("\t".join(["TP", "FP", "FN", "Prec", "Rec", beta]))
    print("\t".join(map(_fmt, [result.tp, result.fp, result.fn, result.p, result.r, result.f])))
    print("{:=^46}".format(""))
    print(f"signature: {result.signature}")
    print("")


def _warn_mismatches(result: CompareResult, system: str) -> None:
    if result.source_mismatches:
        first = ", ".join(str(i + 1) for i in result.source_mismatches[:5])
        print(
            f"warning: {system}: {len(result.source_mismatches)} sentence(s) have different "
            f"sources in hypothesis and reference (sentences {first}...)",
            file=sys.stderr,
        )


def run_compare(args: argparse.Namespace) -> int:
    from gecscore.collector import collector_paused
    from gecscore.m2 import read_m2

    # Reading and comparing build no reference cycles and the process ends after them:
    # collector passes would only re-scan the blocks (gecscore/src/gecscore/collector.py).
    with collector_paused(freeze_after=True):
        ref = read_m2(args.ref)
        for path in arguments.systems(args):
            _compare_and_print(args, path, read_m2(path), ref, (("input", "m2"),))
    return 0


def run_score(args: argparse.Namespace) -> int:
    from gecscore.extract import parallel_to_m2, read_parallel

    ref_lines = read_parallel(args.ref)
    hyps = {path: read_parallel(path) for path in args.hyp}  # every file checked before work
    for path, hyp_lines in hyps.items():
        _check_same_sentences(path, hyp_lines, args.ref, ref_lines)
    resources = _resources(args)
    options = dict(
        resources=resources,
        granularity=args.granularity,
        strategy=args.strategy,
        simplified=args.simplified,
        workers=args.workers,
    )
    ref_blocks, truncated = parallel_to_m2(ref_lines, name=args.ref, **options)
    _warn_truncated(args.ref, truncated)
    extraction = (
        ("granularity", args.granularity + ("-jieba" if args.granularity == "word" else "")),
        ("strategy", args.strategy),
        ("simplified", "yes" if args.simplified else "no"),
        ("resources", resources.signature),
    )
    for path in arguments.systems(args):
        hyp_blocks, truncated = parallel_to_m2(hyps[path], name=path, **options)
        _warn_truncated(path, truncated)
        _compare_and_print(args, path, hyp_blocks, ref_blocks, extraction)
    return 0


def _check_same_sentences(
    hyp_path: str, hyp_lines: list[ParallelLine], ref_path: str, ref_lines: list[ParallelLine]
) -> None:
    if len(ref_lines) != len(hyp_lines):
        raise CommandError(
            f"{hyp_path} has {len(hyp_lines)} sentences but {ref_path} has {len(ref_lines)}"
        )
    for hyp_line, ref_line in zip(hyp_lines, ref_lines, strict=True):
        if hyp_line.id != ref_line.id:
            raise CommandError(
                f"{hyp_path}, line {hyp_line.line}: id {hyp_line.id!r} does not match "
                f"{ref_path}, line {ref_line.line}: id {ref_line.id!r}"
            )


def _warn_truncated(name: str, truncated: list[int]) -> None:
    for line in truncated:
        print(f"warning: {name}, line {line}: cheapest-path enumeration truncated", file=sys.stderr)


def _compare_and_print(
    args: argparse.Namespace,
    system: str,
    hyp: list[M2Block],
    ref: list[M2Block],
    signature_fields: Sequence[Field],
) -> None:
    """``compare`` and ``score``: the comparison the options ask for, warnings, the table."""
    from gecscore.compare import compare_m2

    result = compare_m2(
        hyp,
        ref,
        max_refs=args.max_refs,
        reference_num=args.reference_num,
        mode=args.mode,
        beta=args.beta,
        cat=args.cat,
        signature_fields=signature_fields,
    )
    _warn_mismatches(result, system)
    _print_result(result, args, system)
