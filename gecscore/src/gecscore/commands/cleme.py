"""Subcommands of the chunk metrics: ``cleme``, ``cleme2``, ``chunks``.

    python -m gecscore cleme --hyp HYP [--hyp HYP2 ...] --ref REF [--level corpus|sentence]
          [--assumption dependent|independent] [--no-length-weighting] [--select f|accuracy]
          [--max-refs K] [--json]
    python -m gecscore cleme2 --hyp HYP [--hyp HYP2 ...] --ref REF [--level corpus|sentence]
          [--assumption dependent|independent] [--max-refs K] [--json]
          [--model MODEL [--layers N] [--batch-size B] [--device auto|cpu|cuda]]
    python -m gecscore chunks --ref REF [--max-refs K] [--json]

HYP and REF are M2 files or ``id \\t source \\t targets`` text files (detected by content, or
``--format m2|text``). Text gets its edits from our extractor; its resources come from
``--resources DIR``, else $GEC_CHERRANT_RESOURCES, else the documented default. With several
``--hyp`` files each result is preceded by ``== FILE`` (``--json``: one object per file, one a
line: the metric's Result data, ``Result.to_dict()``, with the file as ``system``; ``chunks``
prints its own statistics).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gecscore.cleme.inputs import read_sentences
from gecscore.collector import collector_paused
from gecscore.commands import arguments
from gecscore.m2 import detect_format

__all__ = [
    "register",
    "run_chunks",
    "run_cleme",
    "run_cleme2",
]


if TYPE_CHECKING:
    from gecscore.cleme.inputs import InputFormat
    from gecscore.cleme.model import Sentence
    from gecscore.resources import Resources

# Each command imports its metric when it runs; M2 input never loads the extractor, the
# aligner or the resources (gecscore/tests/cleme/test_startup.py).


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        dest="input_format",
        choices=("auto", "m2", "text"),
        default="auto",
        help="input format of HYP/REF (default: detect from the first line)",
    )
    arguments.add_resources(parser, "text input: ")
    parser.add_argument(
        "--granularity",
        choices=("char", "word", "errant"),
        default="char",
        help="text input: char / word (Chinese) or errant (English, ERRANT's word edits)",
    )
    arguments.add_no_simplified(parser, "text input: ")
    arguments.add_workers(parser, "edit extraction from text input")
    arguments.add_max_refs(parser)


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    arguments.add_hyp(parser, "HYP", "hypothesis M2 or text file")
    arguments.add_ref(parser, "REF", "reference M2 or text file")
    arguments.add_json(parser)
    parser.add_argument("--level", choices=("corpus", "sentence"), default="corpus")
    parser.add_argument("--assumption", choices=("dependent", "independent"), default="dependent")


def register(subparsers: Any) -> None:
    p_cleme = subparsers.add_parser("cleme", help="CLEME chunk-level P/R/F0.5 (v1.0)")
    _add_metric_options(p_cleme)
    p_cleme.add_argument(
        "--no-length-weighting",
        dest="length_weighting",
        action="store_false",
        help="count every chunk as 1 instead of weighting it by its length",
    )
    p_cleme.add_argument(
        "--select",
        choices=("f", "accuracy"),
        default="f",
        help="choose each sentence's reference by F0.5 (default) or by accuracy",
    )
    _add_input_options(p_cleme)
    p_cleme.set_defaults(func=run_cleme)

    p_cleme2 = subparsers.add_parser("cleme2", help="CLEME2.0 hit/wrong/under/over and score")
    _add_metric_options(p_cleme2)
    # CLEME2.0-sim: BERTScore chunk weights.
    arguments.add_model_options(p_cleme2, required=False, when="with --model: ")
    _add_input_options(p_cleme2)
    p_cleme2.set_defaults(func=run_cleme2)

    p_chunks = subparsers.add_parser(
        "chunks", help="chunk statistics of a reference set (ICC/IUC/CC)"
    )
    arguments.add_ref(p_chunks, "REF", "reference M2 or text file")
    arguments.add_json(p_chunks, per_system=False)
    _add_input_options(p_chunks)
    p_chunks.set_defaults(func=run_chunks)


def _resources(args: argparse.Namespace) -> Resources:
    from gecscore.resources import load_resources, resources_from_env

    return load_resources(args.resources) if args.resources else resources_from_env()


def _read(path: str, args: argparse.Namespace) -> list[Sentence]:
    input_format: InputFormat = args.input_format
    kind = detect_format(path) if input_format == "auto" else input_format
    # The extraction resources (Cilin is large) are loaded only for raw text.
    resources = _resources(args) if kind == "text" else None
    return read_sentences(
        path,
        input_format=kind,
        resources=resources,
        granularity=args.granularity,
        simplified=args.simplified,
        workers=args.workers,
    )


def _print(
    payload: dict[str, Any],
    as_json: bool,
    order: list[str],
    system: str | None = None,
    fields: dict[str, Any] | None = None,
) -> None:
    """The text table of ``payload`` in ``order``; with ``--json`` the command's Result
    (``fields``: ``result_data``'s arguments), or ``payload`` for ``chunks``."""
    if as_json:
        from gecscore.result_data import json_line, result_data

        print(json_line(payload if fields is None else result_data(**fields), system))
        return
    for key in order:
        value = payload[key]
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{key:<10} {shown}")
    print(f"signature: {payload['signature']}")


def run_cleme(args: argparse.Namespace) -> int:
    from gecscore.cleme.scorers import cleme_fields

    # The run builds no reference cycles and the process ends after it: collector passes
    # would only re-scan the corpus (gecscore/src/gecscore/collector.py).
    order = ["tp", "fp", "fn", "tn", "p", "r", "f05", "acc", "bias", "sentences"]
    with collector_paused(freeze_after=True):
        ref = _read(args.ref, args)
        for path in arguments.systems(args):
            score, fields = cleme_fields(
                _read(path, args),
                ref,
                level=args.level,
                assumption=args.assumption,
                length_weighting=args.length_weighting,
                max_refs=args.max_refs,
                select=args.select,
            )
            _print(score.as_dict(), args.json, order, path, fields)
    return 0


def run_cleme2(args: argparse.Namespace) -> int:
    from gecscore.cleme.v2 import cleme2_fields

    # The BERTScore provider (torch, transformers) is loaded only with --model.
    provider = arguments.weight_provider(args) if args.model else None
    order = ["tp", "fp_ne", "fp_un", "fn", "tn", "hit", "wrong", "under", "over", "score"]
    ref = _read(args.ref, args)
    for path in arguments.systems(args):
        score, fields = cleme2_fields(
            _read(path, args),
            ref,
            level=args.level,
            assumption=args.assumption,
            max_refs=args.max_refs,
            weights=provider,
        )
        _print(score.as_dict(), args.json, [*order, "sentences"], path, fields)
    return 0


def run_chunks(args: argparse.Namespace) -> int:
    from gecscore.cleme.stats import chunk_statistics

    stats = chunk_statistics(_read(args.ref, args), max_refs=args.max_refs)
    payload = stats.as_dict()
    payload["signature"] = "chunks|partition:CLEME(merge_distance=0)|hold-out:each-reference"
    _print(
        payload,
        args.json,
        [
            "sentences",
            "references",
            "chunks",
            "unchanged",
            "corrected",
            "dummy",
            "unchanged_mean_length",
            "corrected_mean_length",
            "changed_mean_length",
            "held_out_edits",
            "icc",
            "iuc",
            "cc",
        ],
    )
    return 0
