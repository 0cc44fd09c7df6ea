"""Command line of the metric library: ``gecscore <command> ...`` (or ``python -m gecscore``).

Each command module exposes ``register(subparsers) -> None`` which adds its subcommands
(argparse sub-parsers) and sets ``func`` (``Callable[[argparse.Namespace], int]``) as the
parser default. To add a metric's commands, name them in ``registry.COMMANDS`` with their
module (and the metric in ``registry.METRICS``). Options that several commands take come
from ``gecscore.commands.arguments`` (one type and help text each), except in ``green`` and
the model-based commands, which declare their own.

Exit status: 0 done; 2 a usage error (argparse) or a ``GECError`` / ``OSError``, printed as
one ``error: ...`` line; 141 (128 + SIGPIPE) when the reader of stdout went away, silently;
anything else escapes with its traceback, since it is a bug. A command names its flags in
its own messages (``CommandError``); the library's messages name the Python API's options.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gecscore.errors import GECError
from gecscore.registry import command_modules

__all__ = [
    "CommandError",
    "build_parser",
    "main",
]


class CommandError(GECError):
    """A user-facing error: printed to stderr without a traceback, exit status 2."""


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (same rules: $COLUMNS, the terminal, else 80).

    argparse builds a help formatter for every ``add_argument`` (to check metavars), and the
    formatter's default width imports ``shutil`` (with bz2 and lzma): ~3.5 ms of every
    command's start-up, for a width only --help and usage errors ever print. Start-up is measured
    against ``compare_m2_for_evaluation.py``, hence this copy of the rule.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its default width found without importing shutil."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _ArgumentParser(argparse.ArgumentParser):
    """The CLI's parsers (the top one and every sub-command's) use _HelpFormatter by default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


class _VersionAction(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked for (reading
    the distribution's metadata costs every other command start-up time)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import PackageNotFoundError

        try:
            from gecscore import __version__
        except PackageNotFoundError:  # imported from a source tree that was never installed
            parser.exit(
                2,
                "error: gecscore is not installed, so it has no version; "
                "pip install it (pip install -e ./gecscore in a checkout)\n",
            )
        print(f"gecscore {__version__}")  # to stdout, as argparse's own version action
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command``, only that command's module is loaded (none for
    ``--version``)."""
    parser = _ArgumentParser(
        prog="gecscore",
        description="Grammatical error correction metrics (ChERRANT-compatible char metric, ...).",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_ArgumentParser
    )
    # `gecscore --version` needs no command (their modules import numpy and more).
    for module_name in () if command == "--version" else command_modules(command):
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        status = func(args)
        # A reader that went away (`| head -1`) shows here, inside the handler below, and not
        # as "Exception ignored ... BrokenPipeError" when the interpreter flushes at exit.
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    except (GECError, OSError) as exc:
        # What the library raises on purpose (bad input, options, missing resources; every
        # message names the file, line or option) and files that cannot be read or written.
        # Anything else is a bug and keeps its traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return status


def _stdout_closed() -> int:
    """The exit status after the reader of stdout closed the pipe: what a shell reports for a
    command ended by SIGPIPE (141), the convention of ``cat`` and ``yes``; no message.

    The rest of stdout's buffer goes to /dev/null, so the flush at interpreter exit cannot
    fail again (the recipe of Python's ``signal`` documentation, "Note on SIGPIPE")."""
    import signal

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):  # stdout is not a file (an embedding caller)
        pass
    return 128 + getattr(signal, "SIGPIPE", 13)
