"""Drop-in commands: the reference tools' own flags, their output byte for byte.

=================================  ===================================================
reference command                  gecscore command (``python -m`` module)
=================================  ===================================================
ChERRANT ``parallel_to_m2.py``     ``gecscore-cherrant-parallel-to-m2`` (``gecscore.dropin.cherrant_parallel``)
ChERRANT ``compare_m2_for_evaluation.py``  ``gecscore-cherrant-compare`` (``gecscore.dropin.cherrant_compare``)
errant 3.0.2 ``errant_parallel``   ``gecscore-errant-parallel`` (``gecscore.dropin.errant_parallel``)
errant 3.0.2 ``errant_compare``    ``gecscore-errant-compare`` (``gecscore.dropin.errant_compare``)
m2scorer 3.2 ``m2scorer.py``       ``gecscore-m2scorer`` (``gecscore.dropin.m2scorer``)
=================================  ===================================================

Each module is a thin front end: it parses the reference's flags and calls the library
(``gecscore.extract``, ``gecscore.compare``, ``gecscore.english``, ``gecscore.maxmatch``).
What a command cannot do (ChERRANT's ``-g word``, m2scorer's ``--very_verbose``) it refuses
with exit status 2 and a message. See gecscore/README.md, "Drop-in commands".
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gecscore.errors import GECError

if TYPE_CHECKING:
    from gecscore.m2 import M2Block

__all__ = ["Unsupported", "read_m2_as_compare_does", "run"]


class Unsupported(GECError):
    """A reference flag (or flag value) the drop-in command does not reproduce."""


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run a drop-in ``main``: library errors and unreadable files exit 2 with ``error: ...``
    on stderr (the reference tools end with a traceback there), a closed pipe quietly."""
    try:
        return main(argv)
    except (GECError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            # The reader stopped (`| head`): nothing left to say, and nothing to flush at exit.
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        prog = sys.argv[0].rsplit("/", 1)[-1] if sys.argv and sys.argv[0] else "gecscore"
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2


def read_m2_as_compare_does(hyp: str, ref: str, tool: str) -> tuple[list[M2Block], list[M2Block]]:
    """The hypothesis and reference M2 files of a compare drop-in. errant_compare and ChERRANT's
    compare script never look at the sentence's length: an edit whose span is beyond its
    sentence is scored as written, so it is read here too (the library's commands refuse it),
    with a warning on stderr naming its lines (stdout stays the reference's)."""
    from gecscore.m2 import beyond_source_warning, read_m2

    blocks = []
    for path in (hyp, ref):
        beyond_source: list[int] = []
        blocks.append(read_m2(path, beyond_source=beyond_source))
        if beyond_source:
            treatment = f"{tool} scores them as written, and so does this"
            print(
                f"warning: {beyond_source_warning(path, beyond_source, treatment)}", file=sys.stderr
            )
    return blocks[0], blocks[1]
