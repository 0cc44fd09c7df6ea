"""Reading an uploaded system output against a release: format detection and validation.

Two formats are accepted:

* MuCGEC / ChERRANT: ``id \\t source \\t hypothesis`` (the format of ``example_pred_dev.txt``);
  ids must be exactly the release's ids (any order; the result is in release order) and the
  source must be the released source (whitespace ignored), so a file for another release
  is caught instead of scored.
* one hypothesis a line, in release order, with exactly one line per released sentence.

Every problem is reported with the file name, the 1-based line and the field.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from gecscore.errors import InputFormatError, decode_utf8
from gecscore.mucgec import parallel_rows

from core.exceptions import ServiceError
from datasets.textrules import (
    BINARY_MESSAGE,
    describe_character,
    looks_binary,
    refused_character,
    text_problem,
)

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


def decode_upload(data: bytes, *, file_name: str) -> str:
    """UTF-8 text with a BOM dropped and CRLF/CR line ends normalised."""
    if looks_binary(data):
        raise ServiceError(f"{file_name}: {BINARY_MESSAGE}", field="file")
    try:
        text = decode_utf8(data, name=file_name)  # the library's one UTF-8 policy (BOM dropped)
    except InputFormatError as exc:
        raise ServiceError(
            f"{file_name}, line {exc.line}: the file is not UTF-8 (save it as UTF-8 and upload again)",
            field="file",
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # The one text rule (datasets.textrules): a NUL or another control or invisible
    # character is refused here with its line, before anything is stored.
    found = refused_character(text, allow="\t\n")
    if found is not None:
        position, char = found
        line = text.count("\n", 0, position - 1) + 1
        raise ServiceError(
            f"{file_name}, line {line}: {describe_character(char)}; control and invisible "
            "characters cannot be scored or stored: remove it",
            field="file",
        )
    return text


def _squash(text: str) -> str:
    return _WHITESPACE.sub("", text)


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    # One final newline is normal; anything else blank is an error reported per line.
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def parse_system_output(
    text: str, *, release: Sequence[ReleasedRow], file_name: str, file_format: str = "auto"
) -> ParsedOutput:
    """Validate `text` against the released sentences; raise ServiceError naming the line."""
    if not release:
        raise ServiceError("the release has no sentences to score", field="version")
    lines = _lines(text)
    if not lines:
        raise ServiceError(f"{file_name}: the file is empty", field="file")
    if file_format == "auto":
        file_format = "mucgec" if all(line.count("\t") >= 2 for line in lines if line) else "lines"
    if file_format == "mucgec":
        return ParsedOutput("mucgec", _checked(_parse_mucgec(lines, release, file_name), file_name))
    if file_format == "lines":
        return ParsedOutput("lines", _checked(_parse_lines(lines, release, file_name), file_name))
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


def _parse_lines(lines: list[str], release: Sequence[ReleasedRow], file_name: str) -> list[str]:
    if len(lines) != len(release):
        raise ServiceError(
            f"{file_name}: {len(lines)} lines, but the release has {len(release)} sentences "
            "(one hypothesis a line, in release order)",
            field="file",
        )
    hypotheses = []
    for line_no, line in enumerate(lines, start=1):
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
    return hypotheses


def _mucgec_rows(lines: list[str], file_name: str) -> Iterator[tuple[int, str, str, str]]:
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


def _parse_mucgec(lines: list[str], release: Sequence[ReleasedRow], file_name: str) -> list[str]:
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
