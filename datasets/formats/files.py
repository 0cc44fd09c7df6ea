"""Writing an output file so that a failed or cancelled export never leaves half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomically(out: Path, chunks: Iterable[str]) -> None:
    handle, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as tmp:
            for chunk in chunks:
                tmp.write(chunk)
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
