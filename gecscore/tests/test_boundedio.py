"""The one bounded reader (gecscore/src/gecscore/boundedio.py) and the library readers that use it."""

from __future__ import annotations

import gzip
import resource
import time
import zlib
from pathlib import Path

import pytest

from gecscore.boundedio import (
    InputTooLarge,
    MalformedXML,
    ReadLimits,
    iter_xml,
    read_bounded,
)
from gecscore.errors import InputFormatError
from gecscore.meta.judgments import JudgmentFormatError, read_judgments_xml
from gecscore.meta.scorefiles import ScoreFileError, read_system_scores

NAMED = (
    ("file_bytes", "MAX_FILE"),
    ("decompressed_bytes", "MAX_DECOMPRESSED"),
    ("lines", "MAX_LINES"),
    ("line_bytes", "MAX_LINE"),
    ("xml_depth", "MAX_DEPTH"),
)


def _bomb(piece: bytes, times: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return (packer.compress(piece) + packer.flush()) * times


def _limits(**values: int | None) -> ReadLimits:
    return ReadLimits(**values, names=NAMED)  # type: ignore[arg-type]


def test_plain_and_gzipped_content_read_alike() -> None:
    text = b"1\tA\n2\tB\n"
    assert read_bounded(text, name="a.txt") == text
    assert read_bounded(gzip.compress(text), name="a.txt.gz") == text
    assert read_bounded(gzip.compress(text) * 2, name="two members") == text * 2


@pytest.mark.parametrize(
    ("data", "limits", "limit", "line"),
    [
        (b"x" * 101, {"file_bytes": 100}, "MAX_FILE", 1),
        (gzip.compress(b"a\n" * 60, mtime=0), {"decompressed_bytes": 100}, "MAX_DECOMPRESSED", 51),
        (b"a\n" * 11, {"lines": 10}, "MAX_LINES", 11),
        (b"a\n" * 10 + b"b", {"lines": 10}, "MAX_LINES", 11),
        (b"a\n" + b"x" * 11 + b"\n", {"line_bytes": 10}, "MAX_LINE", 2),
        (b"a\n" * 3 + b"x" * 11 + b"\nb\n", {"line_bytes": 10}, "MAX_LINE", 4),
    ],
)
def test_each_limit_is_named_with_its_line(
    data: bytes, limits: dict[str, int], limit: str, line: int
) -> None:
    with pytest.raises(InputTooLarge) as info:
        read_bounded(data, name="f.txt", limits=_limits(**limits))
    assert info.value.line == line and limit in info.value.message, info.value
    assert str(info.value).startswith(f"f.txt, line {line}: ")


def test_content_at_each_limit_is_read() -> None:
    limits = _limits(file_bytes=20, decompressed_bytes=20, lines=10, line_bytes=1)
    assert read_bounded(b"a\n" * 10, name="f", limits=limits) == b"a\n" * 10


def test_a_gzip_bomb_stops_at_the_limit_in_little_time_and_memory(tmp_path: Path) -> None:
    path = tmp_path / "scores.txt.gz"
    path.write_bytes(_bomb(b"\n" * 2**20, 1024))  # ~1 MB: 1 GiB of newlines (the report)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(ScoreFileError, match=r"scores.txt.gz, line 5000001: the number of lines"):
        read_system_scores(path, limits=ReadLimits(lines=5_000_000))
    assert time.monotonic() - started < 5
    # peak RSS (KiB): the reader keeps at most its spool, never the decompressed gigabyte
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024


def test_the_library_default_limits_stop_a_gzip_bomb(tmp_path: Path) -> None:
    path = tmp_path / "zeros.gz"
    path.write_bytes(_bomb(b"0" * 2**20, 64))  # 64 MiB, one line
    with pytest.raises(ScoreFileError, match="line's length is above the limit of 16,777,216"):
        read_system_scores(path)


def test_a_file_that_starts_like_gzip_but_is_not_is_named() -> None:
    with pytest.raises(InputFormatError, match="b.gz, line 1: not a readable gzip file"):
        read_bounded(b"\x1f\x8b\x08garbage", name="b.gz")


def test_xml_depth_limit_and_nested_bomb() -> None:
    nested = _bomb(b"<a>" * 1_000_000, 20)  # 20 million nested elements (the report)
    started = time.monotonic()
    with pytest.raises(InputTooLarge, match=r"nesting depth \(17 elements\).*MAX_DEPTH"):
        for _ in iter_xml(nested, name="j.xml.gz", limits=_limits(xml_depth=16)):
            pass
    assert time.monotonic() - started < 5
    with pytest.raises(JudgmentFormatError, match=r"j.xml.gz, line 1: the nesting depth"):
        read_judgments_xml(nested, name="j.xml.gz", limits=ReadLimits(xml_depth=16))


def test_every_element_is_freed_once_read() -> None:
    siblings = b"<r>" + b"<i/>" * 50_000 + b"</r>"
    held = []
    for event, element, depth in iter_xml(siblings, name="w.xml"):
        if event == "end" and depth == 1:
            held.append(len(element))
    assert held == [0]  # the root ends with no child left attached


@pytest.mark.parametrize(
    "document",
    [
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
        b'&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;'
        b'&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f '
        b'"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">'
        b'<!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]><r>&h;&h;&h;&h;&h;&h;&h;&h;</r>',
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
        b"<r><a></r>",
    ],
    ids=["billion-laughs", "external-entity", "mismatched"],
)
def test_entity_bombs_external_entities_and_bad_xml_are_refused(document: bytes) -> None:
    started = time.monotonic()
    with pytest.raises(MalformedXML, match="malformed XML"):
        for _ in iter_xml(document, name="e.xml"):
            pass
    assert time.monotonic() - started < 1
