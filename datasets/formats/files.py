"""Writing an output file so that a failed or cancelled export never leaves half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomically(out: Path, chunks: Iterable[str]) -> None:
    handle, tmp_name = tempfile.mkstemp(prefix=_temporary_prefix(out), dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as tmp:
            for chunk in chunks:
                tmp.write(chunk)
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _temporary_prefix(out: Path) -> str:
    return f".{out.name}."


def discard_partial_writes(out: Path) -> int:
    """Remove the hidden temporary files a writer of `out` killed mid-write left beside it
    (a kill skips write_atomically's own clean-up). Returns how many were removed."""
    removed = 0
    for leftover in out.parent.glob(_temporary_prefix(out) + "*"):
        leftover.unlink(missing_ok=True)
        removed += 1
    return removed
