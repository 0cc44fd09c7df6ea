"""Command line of the metric library: ``python -m scoring.gec <command> ...``.

Each command module exposes ``register(subparsers) -> None`` which adds its subcommands
(argparse sub-parsers) and sets ``func`` (``Callable[[argparse.Namespace], int]``) as the
parser default. To add a metric's commands, name them in ``registry.COMMANDS`` with their
module (and the metric in ``registry.METRICS``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from scoring.gec.registry import command_modules


class CommandError(Exception):
    """A user-facing error: printed to stderr without a traceback, exit status 2."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command``, only that command's module is loaded."""
    parser = argparse.ArgumentParser(
        prog="python -m scoring.gec",
        description="Grammatical error correction metrics (ChERRANT-compatible char metric, ...).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in command_modules(command):
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
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
