"""Subcommand ``ptm2``: PT-M2 / PT-ERRANT with BERTScore (or `self`) edit weights.

    python -m gecscore ptm2 --hyp HYP [--hyp HYP2 ...] --ref REF --model PATH|PACKAGE|self
        [--level corpus|sentence] [--layers N] [--batch-size N] [--device auto|cpu|cuda] [--json]
        [--granularity auto|char|word] [--max-refs K] [--beta B] [--idf]
        [--rescale-baseline LANG/MODEL|FILE.tsv] [--fp16] [--cache-dir DIR]
        [--resources DIR] [--no-simplified]

HYP and REF are M2 files or `id \\t source \\t targets` text files (edits are then extracted
with our char-level extractor, the same one `m2` and `score` use). `--model self` weighs
every edit 1 and prints exactly what `compare` prints for the same files. With several
`--hyp` files the model is loaded once; each table is preceded by `== FILE` (`--json`: one
object per file, one a line: the `ptm2` Result's data, `ptm2-m2` with `--base`, with the file
as `system`).

English PT-M2 on the MaxMatch lattice (PT-M2's own `--base m2` / `--base sentm2`):

    python -m gecscore ptm2 --hyp SYSTEM.txt --ref GOLD.m2 --base m2|sentm2 --model ...
        [--level corpus|sentence] [--max-unchanged-words 2] [--max-arcs N] [--json] ...

SYSTEM.txt is raw system text (one tokenized line per gold sentence); its edits come from
m2scorer's lattice, per gold annotator (`gecscore.ptm2_m2`). `--base sentm2` is
`--base m2 --level sentence` (the setting the PT-M2 paper recommends).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from gecscore.cli import CommandError
from gecscore.commands import arguments
from gecscore.counts import f_label
from gecscore.english.textfiles import check_one_line_per_gold_sentence, read_text_lines
from gecscore.m2 import M2Block, M2FormatError, detect_format, read_m2
from gecscore.maxmatch.scorer import DEFAULT_MAX_ARCS
from gecscore.metric import Result
from gecscore.ptm2 import PTM2Result, score_ptm2
from gecscore.ptm2_metric import ptm2_result
from gecscore.result_data import json_line
from gecscore.weights.base import EditWeightProvider

__all__ = [
    "register",
    "run_ptm2",
    "run_ptm2_lattice",
]


_CJK = re.compile(r"[\u3400-\u9fff]")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ptm2", help="PT-M2 / PT-ERRANT: edit-weighted P/R/F (BERTScore or self weights)"
    )
    arguments.add_hyp(parser, "HYP", "hypothesis M2 or id/source/target text")
    arguments.add_ref(parser, "REF", "reference M2 or id/source/targets text")
    arguments.add_model_options(parser, required=True)
    parser.add_argument(
        "--level", choices=("corpus", "sentence"), help="default: corpus (sentence for sentm2)"
    )
    parser.add_argument(
        "--base",
        choices=("m2", "sentm2"),
        help="English PT-M2 on the MaxMatch lattice: --hyp is raw system text, --ref a gold M2",
    )
    parser.add_argument(
        "--max-unchanged-words",
        type=arguments.non_negative_int,
        default=2,
        help="with --base: m2scorer's limit of unchanged tokens inside one edit",
    )
    parser.add_argument(
        "--max-arcs",
        type=arguments.non_negative_int,
        default=DEFAULT_MAX_ARCS,
        help="with --base: transitive arcs per sentence before the lattice is bounded (0: none)",
    )
    parser.add_argument(
        "--fp16",
        action="store_true",
        help="fp16 forward pass on cuda (its measured error goes into the signature); "
        "ignored on cpu",
    )
    parser.add_argument("--idf", action="store_true", help="IDF from the references")
    parser.add_argument(
        "--rescale-baseline",
        metavar="LANG/MODEL|FILE",
        help="rescale with a bert-score baseline (e.g. zh/bert-base-chinese)",
    )
    parser.add_argument(
        "--cache-dir",
        help=f"embedding/score cache folder (default: ${arguments.CACHE_ENV} if set)",
    )
    parser.add_argument(
        "--granularity",
        choices=("auto", "char", "word"),
        default="auto",
        help="edit units of M2 input: char, word, or auto (char when the text is Chinese)",
    )
    arguments.add_max_refs(parser)
    arguments.add_beta(parser)
    arguments.add_resources(parser, "text input: ")
    arguments.add_no_simplified(parser, "text input: ")
    arguments.add_json(parser)
    parser.set_defaults(func=run_ptm2)


def _load(path: str, args: argparse.Namespace) -> list[M2Block]:
    if not Path(path).is_file():
        raise OSError(f"{path}: no such file")
    if detect_format(path, error=M2FormatError) == "m2":
        return read_m2(path)
    from gecscore.extract import parallel_to_m2, read_parallel
    from gecscore.resources import load_resources, resources_from_env

    resources = load_resources(args.resources) if args.resources else resources_from_env()
    blocks, _ = parallel_to_m2(
        read_parallel(path),
        resources=resources,
        granularity="char",
        simplified=args.simplified,
        name=path,
    )
    return blocks


def _number(value: float) -> float | int:
    # `self` weights give whole numbers: print them as `compare` does (1084, not 1084.0).
    return int(value) if float(value).is_integer() else round(value, 4)


def _granularity(args: argparse.Namespace, blocks: list[M2Block]) -> str:
    if args.granularity != "auto":
        return str(args.granularity)
    sample = "".join(block.source for block in blocks[:50])
    return "char" if _CJK.search(sample) else "word"


def _print(result: PTM2Result, args: argparse.Namespace, system: str, data: Result) -> None:
    """The PT-M2 table (P/R/F to 4 decimals), or with ``--json`` the Result's data."""
    values = {
        "tp": _number(result.tp),
        "fp": _number(result.fp),
        "fn": _number(result.fn),
        "p": round(result.p, 4),
        "r": round(result.r, 4),
        "f": round(result.f, 4),
    }
    if args.json:
        print(json_line(data.to_dict(), system))
        return
    label = f_label(args.beta)
    print("")
    print(f"{' PT-M2 (' + result.level + ') ':=^46}")
    print("\t".join(["TP", "FP", "FN", "Prec", "Rec", label]))
    print("\t".join(str(v) for v in values.values()))
    print("{:=^46}".format(""))
    print(f"signature: {result.signature}")
    print("")


def _level(args: argparse.Namespace) -> str:
    if args.base == "sentm2":
        if args.level == "corpus":
            raise CommandError("--base sentm2 is the sentence level; drop --level corpus")
        return "sentence"
    return str(args.level or "corpus")


def _text_lines(path: str, blocks: list[M2Block], ref_path: str) -> list[str]:
    hyp = read_text_lines(path)
    check_one_line_per_gold_sentence(hyp, len(blocks), ref_path, what="the system output")
    for note in hyp.notes():
        print(f"warning: {note}", file=sys.stderr)
    return hyp.lines


def _provider(args: argparse.Namespace) -> EditWeightProvider:
    return arguments.weight_provider(
        args,
        fp16=args.fp16,
        idf=args.idf,
        rescale_with_baseline=args.rescale_baseline is not None,
        baseline=args.rescale_baseline,
        cache_dir=args.cache_dir or os.environ.get(arguments.CACHE_ENV) or None,
    )


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\rencoding {done}/{total}", end="", file=sys.stderr, flush=True)


def run_ptm2_lattice(args: argparse.Namespace) -> int:
    """`--base m2|sentm2`: raw system text against a gold M2 (gecscore.ptm2_m2)."""
    from gecscore.ptm2_m2 import score_ptm2_m2

    level = _level(args)
    blocks = read_m2(args.ref)
    hyps = {path: _text_lines(path, blocks, args.ref) for path in args.hyp}
    provider = _provider(args)
    for path in arguments.systems(args):
        result, bounded = score_ptm2_m2(
            hyps[path],
            blocks,
            provider,
            level=level,
            beta=args.beta,
            max_unchanged_words=args.max_unchanged_words,
            max_arcs=args.max_arcs or None,
            progress=_progress,
        )
        if sys.stderr.isatty() and args.model != "self":
            print("", file=sys.stderr)
        if bounded:
            shown = ", ".join(str(i + 1) for i in bounded[:10])
            print(
                f"warning: {path}: {len(bounded)} sentence(s) hit the lattice budget of "
                f"{args.max_arcs} arcs (line {shown}); their edits are a bounded answer, not "
                "m2scorer's (raise --max-arcs, or 0 for no limit)",
                file=sys.stderr,
            )
        data = ptm2_result("ptm2-m2", result, {"bounded_sentences": bounded})
        _print(result, args, path, data)
    return 0


def run_ptm2(args: argparse.Namespace) -> int:
    if args.base is not None:
        return run_ptm2_lattice(args)
    args.level = _level(args)
    ref = _load(args.ref, args)
    hyps = {path: _load(path, args) for path in args.hyp}
    granularity = _granularity(args, ref)
    provider = _provider(args)
    for path in arguments.systems(args):
        result = score_ptm2(
            hyps[path],
            ref,
            provider,
            level=args.level,
            granularity=granularity,
            beta=args.beta,
            max_refs=args.max_refs,
            progress=_progress,
        )
        if sys.stderr.isatty() and args.model != "self":
            print("", file=sys.stderr)
        _print(result, args, path, ptm2_result("ptm2", result, {}))
    return 0
