"""Command line of the metric library: ``python -m scoring.gec <command> ...``.

Each command module exposes ``register(subparsers) -> None`` which adds its subcommands
(argparse sub-parsers) and sets ``func`` (``Callable[[argparse.Namespace], int]``) as the
parser default. To add a metric's commands, append its module name to COMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# Registry: one module per metric family. Others append here (e.g. "scoring.gec.cleme_cli").
COMMAND_MODULES: tuple[str, ...] = (
    "scoring.gec.char_cli",
    "scoring.gec.cleme.cli",
    "scoring.gec.ptm2_cli",
)


class CommandError(Exception):
    """A user-facing error: printed to stderr without a traceback, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.gec",
        description="Grammatical error correction metrics (ChERRANT-compatible char metric, ...).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (CommandError, ValueError, OSError) as exc:
        # ValueError covers our format errors (M2FormatError, ParallelFormatError), which name
        # the file and line; OSError a missing or unreadable file.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. `| head`
        return 0
