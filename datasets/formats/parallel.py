"""``parallel``: a source file and one file per reference, read and written.

Reading: an empty line in the second or later reference file means "this sentence has fewer
references" (that is how the parallel export writes sentences with fewer references than the
widest one); everywhere else an empty line is an error.
Writing: a directory (or a ``.zip`` when the output name ends in ``.zip``) with
``source.txt``, ``ref1.txt`` ... ``refN.txt`` (N = most references of any sentence) and ``ids.txt``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from core.exceptions import ServiceError
from datasets.formats.common import (
    ImportFile,
    ParsedSentence,
    check_text,
    decode_lines,
    format_error,
    reject_empty,
)
from datasets.selectors import DatasetRow

PROGRESS_EVERY = 2000


def parse_parallel(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    if not files:
        raise ServiceError(
            "parallel import needs the source file and one file per reference", field="file"
        )
    decoded = [decode_lines(file) for file in files]
    sources = decoded[0]
    reject_empty(sources, files[0].name)
    if len(decoded) > 1:
        reject_empty(decoded[1], files[1].name)
    for file, lines in zip(files[1:], decoded[1:], strict=True):
        if len(lines) != len(sources):
            raise format_error(
                file.name,
                min(len(lines), len(sources)) + 1,
                "line count",
                f"{len(lines)} lines, but the source file {files[0].name} has {len(sources)}",
            )
    for file, lines in zip(files, decoded, strict=True):
        for number, line in enumerate(lines, start=1):
            if line.strip():  # an empty reference line means "fewer references"
                check_text(line, file.name, number, "text")
    rows = []
    for index, text in enumerate(sources):
        references = [lines[index] for lines in decoded[1:] if lines[index].strip()]
        rows.append(ParsedSentence(str(index + 1), text, references, index + 1, auto_id=True))
    return rows


def write_parallel(rows: Iterable[DatasetRow], out: Path, progress: Any) -> list[str]:
    """Sources and references in separate files. The number of reference files is only known
    at the end, so each reference column is spooled to its own temporary file."""
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        handles: list[Any] = []
        source = open(work / "source.txt", "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        ids = open(work / "ids.txt", "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        count = 0
        try:
            for row in rows:
                while len(handles) < len(row.references):
                    path = work / f"ref{len(handles) + 1}.txt"
                    handle = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
                    handle.write("\n" * count)  # earlier sentences had no reference here
                    handles.append(handle)
                source.write(row.text + "\n")
                ids.write(row.external_id + "\n")
                for index, handle in enumerate(handles):
                    handle.write(
                        (row.references[index] if index < len(row.references) else "") + "\n"
                    )
                count += 1
                if count % PROGRESS_EVERY == 0:
                    progress(count)
        finally:
            for handle in (source, ids, *handles):
                handle.close()
        progress(count)
        names = ["source.txt", *[f"ref{i}.txt" for i in range(1, len(handles) + 1)], "ids.txt"]
        if out.suffix == ".zip":
            tmp_zip = work / "export.zip"
            with zipfile.ZipFile(tmp_zip, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in names:
                    archive.write(work / name, arcname=name)
            os.replace(tmp_zip, out)
        else:
            if out.exists() and not out.is_dir():
                raise ServiceError(f"{out} exists and is not a folder", field="out")
            out.mkdir(exist_ok=True)
            for name in names:
                os.replace(work / name, out / name)
        return names
    finally:
        shutil.rmtree(work, ignore_errors=True)
