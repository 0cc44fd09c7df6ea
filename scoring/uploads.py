"""Reading an uploaded system output against a release: format detection and validation.

Two formats are accepted:

* MuCGEC / ChERRANT: ``id \\t source \\t hypothesis`` (the format of ``example_pred_dev.txt``);
  ids must be exactly the release's ids (any order; the result is in release order) and the
  source must be the released source (whitespace ignored), so a file for another release
  is caught instead of scored.
* one hypothesis a line, in release order, with exactly one line per released sentence.

Every problem is reported with the file name, the 1-based line and the field.

The file is read as a stream (``upload_lines``: the one bounded reader's chunks, decoded
and checked line by line) and parsed as it comes, so a request holds one line of the file
and the hypotheses of the release, never the whole file: a file with more lines than the
release has sentences is refused at the first line too many, whatever its size.
"""

from __future__ import annotations

import codecs
import hashlib
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from gecscore.boundedio import Source  # the bounded upload reader: platform I/O plumbing, not API

from core.exceptions import ServiceError
from core.uploads import iter_upload
from datasets.textrules import (
    BINARY_MESSAGE,
    describe_character,
    looks_binary,
    refused_character,
    text_problem,
)
from gecscore import InputFormatError, parallel_rows

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ReleasedRow:
    external_id: str
    text: str


@dataclass(frozen=True)
class ParsedOutput:
    file_format: str  # "mucgec" or "lines"
    hypotheses: list[str]  # one per released sentence, release order

    @property
    def checksum(self) -> str:
        return hypotheses_checksum(self.hypotheses)


def hypotheses_checksum(hypotheses: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(hypotheses).encode("utf-8")).hexdigest()


def upload_lines(source: Source, *, file_name: str) -> Iterator[str]:
    """The upload's lines (without their line ends), decoded as they are read: UTF-8 with a
    byte-order mark dropped, CRLF and CR line ends as LF, the one text rule checked on each
    line. An empty last line (a final newline) is not a line."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    emitted = 0
    carry = ""  # the line being read
    held = ""  # a CR at the end of a chunk: the next chunk may start with its LF

    def complete(text: str) -> Iterator[str]:
        nonlocal carry, emitted
        lines = (carry + text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
        carry = lines.pop()
        for line in lines:
            emitted += 1
            yield _checked_line(line, emitted, file_name)

    first = True
    for chunk in iter_upload(source, name=file_name):
        if first:
            if looks_binary(chunk):
                raise ServiceError(f"{file_name}: {BINARY_MESSAGE}", field="file")
            chunk = chunk.removeprefix(codecs.BOM_UTF8)
            first = False
        try:
            text = held + decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise _not_utf8(file_name, emitted + 1 + chunk[: exc.start].count(b"\n")) from None
        held = "\r" if text.endswith("\r") else ""
        yield from complete(text[: len(text) - len(held)])
    try:
        tail = held + decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise _not_utf8(file_name, emitted + 1) from None
    yield from complete(tail)
    if carry:
        emitted += 1
        yield _checked_line(carry, emitted, file_name)


def _not_utf8(file_name: str, line: int) -> ServiceError:
    return ServiceError(
        f"{file_name}, line {line}: the file is not UTF-8 (save it as UTF-8 and upload again)",
        field="file",
    )


def _checked_line(line: str, number: int, file_name: str) -> str:
    # The one text rule (datasets.textrules): a NUL or another control or invisible
    # character is refused here with its line, before anything is stored.
    found = refused_character(line, allow="\t")
    if found is not None:
        raise ServiceError(
            f"{file_name}, line {number}: {describe_character(found[1])}; control and "
            "invisible characters cannot be scored or stored: remove it",
            field="file",
        )
    return line


def _squash(text: str) -> str:
    return _WHITESPACE.sub("", text)


def parse_system_output(
    lines: Iterable[str],
    *,
    release: Sequence[ReleasedRow],
    file_name: str,
    file_format: str = "auto",
) -> ParsedOutput:
    """Validate the file's lines against the released sentences as they are read; raise
    ServiceError naming the line. ``auto`` takes the format of the first line: MuCGEC when
    it has two tabs or more, else one hypothesis a line."""
    if not release:
        raise ServiceError("the release has no sentences to score", field="version")
    lines = iter(lines)
    first = next(lines, None)
    if first is None:
        raise ServiceError(f"{file_name}: the file is empty", field="file")
    if file_format == "auto":
        file_format = "mucgec" if first.count("\t") >= 2 else "lines"
    read = itertools.chain([first], lines)
    if file_format == "mucgec":
        return ParsedOutput("mucgec", _checked(_parse_mucgec(read, release, file_name), file_name))
    if file_format == "lines":
        return ParsedOutput("lines", _checked(_parse_lines(read, release, file_name), file_name))
    raise ServiceError(f"unknown format {file_format!r} (use mucgec or lines)", field="format")


def _checked(hypotheses: list[str], file_name: str) -> list[str]:
    """The length half of the text rule on every hypothesis (release order)."""
    for number, hypothesis in enumerate(hypotheses, start=1):
        problem = text_problem(hypothesis)
        if problem is not None:
            raise ServiceError(
                f"{file_name}, hypothesis of released sentence {number}: {problem}",
                field="file",
            )
    return hypotheses


def _parse_lines(lines: Iterable[str], release: Sequence[ReleasedRow], file_name: str) -> list[str]:
    hypotheses: list[str] = []
    for line_no, line in enumerate(lines, start=1):
        if line_no > len(release):
            raise _line_count(file_name, f"more than {len(release)} lines", release)
        if "\t" in line:
            raise ServiceError(
                f"{file_name}, line {line_no}: a tab in a one-hypothesis-a-line file "
                "(MuCGEC files need 'id<TAB>source<TAB>hypothesis' on every line)",
                field="file",
            )
        hypothesis = line.strip()
        if not hypothesis:
            raise ServiceError(
                f"{file_name}, line {line_no}: empty hypothesis (write the source sentence "
                "or 没有错误 for an unchanged sentence)",
                field="file",
            )
        hypotheses.append(hypothesis)
    if len(hypotheses) != len(release):
        raise _line_count(file_name, f"{len(hypotheses)} lines", release)
    return hypotheses


def _line_count(file_name: str, found: str, release: Sequence[ReleasedRow]) -> ServiceError:
    return ServiceError(
        f"{file_name}: {found}, but the release has {len(release)} sentences "
        "(one hypothesis a line, in release order)",
        field="file",
    )


def _mucgec_rows(lines: Iterable[str], file_name: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, id, source, hypothesis) per line, read by the library's one MuCGEC reader."""
    try:
        for row in parallel_rows(lines, name=file_name):
            if len(row.targets) > 1:
                raise ServiceError(
                    f"{file_name}, line {row.line}: {len(row.targets)} hypotheses; a system "
                    "output has exactly one per sentence",
                    field="file",
                )
            yield row.line, row.id.strip(), row.source.strip(), row.targets[0].strip()
    except InputFormatError as exc:
        raise ServiceError(str(exc), field="file") from None


def _parse_mucgec(
    lines: Iterable[str], release: Sequence[ReleasedRow], file_name: str
) -> list[str]:
    index = {row.external_id: position for position, row in enumerate(release)}
    found: dict[int, str] = {}
    seen_at: dict[str, int] = {}
    for line_no, sentence_id, source, hypothesis in _mucgec_rows(lines, file_name):
        if sentence_id in seen_at:
            raise ServiceError(
                f"{file_name}, line {line_no}: id {sentence_id!r} already appeared on line "
                f"{seen_at[sentence_id]}",
                field="id",
            )
        seen_at[sentence_id] = line_no
        position = index.get(sentence_id)
        if position is None:
            raise ServiceError(
                f"{file_name}, line {line_no}: id {sentence_id!r} is not in the release",
                field="id",
            )
        if _squash(source) != _squash(release[position].text):
            raise ServiceError(
                f"{file_name}, line {line_no}: the source of id {sentence_id!r} differs from "
                "the released sentence (is this output for another release?)",
                field="source",
            )
        if not hypothesis:
            raise ServiceError(
                f"{file_name}, line {line_no}: empty hypothesis for id {sentence_id!r} (write "
                "the source sentence or 没有错误 for an unchanged sentence)",
                field="hypothesis",
            )
        found[position] = hypothesis
    if len(found) != len(release):
        missing = [release[p].external_id for p in range(len(release)) if p not in found]
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise ServiceError(
            f"{file_name}: {len(missing)} released sentence(s) have no hypothesis: ids {shown}",
            field="file",
        )
    return [found[position] for position in range(len(release))]
