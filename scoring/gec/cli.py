"""Command line of the metric library: ``python -m scoring.gec <command> ...``.

Each command module exposes ``register(subparsers) -> None`` which adds its subcommands
(argparse sub-parsers) and sets ``func`` (``Callable[[argparse.Namespace], int]``) as the
parser default. To add a metric's commands, name them in COMMANDS with their module.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# Registry: command -> the module that registers it (one module per metric family). Only
# the module of the command being run is imported, so `cleme` does not load the extractor.
COMMANDS: dict[str, str] = {
    "m2": "scoring.gec.commands.char",
    "compare": "scoring.gec.commands.char",
    "score": "scoring.gec.commands.char",
    "cleme": "scoring.gec.commands.cleme",
    "cleme2": "scoring.gec.commands.cleme",
    "chunks": "scoring.gec.commands.cleme",
    "ptm2": "scoring.gec.commands.ptm2",
    "meta": "scoring.gec.commands.meta",
    "errant-compare": "scoring.gec.commands.errant",
    "errant-m2": "scoring.gec.commands.errant",
    "gleu": "scoring.gec.commands.gleu",
    "m2score": "scoring.gec.commands.m2score",
    "imeasure": "scoring.gec.commands.imeasure",
}
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


class CommandError(Exception):
    """A user-facing error: printed to stderr without a traceback, exit status 2."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command``, only that command's module is loaded."""
    parser = argparse.ArgumentParser(
        prog="python -m scoring.gec",
        description="Grammatical error correction metrics (ChERRANT-compatible char metric, ...).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for module_name in modules:
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
