"""One UTF-8 policy for every reader (gecscore.errors): strict, a leading BOM removed, and
a bad byte named by file, line and offset, never a silent U+FFFD."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.errors import InputFormatError, decode_utf8, first_nonblank_line
from gecscore.m2 import M2FormatError, UnknownFormatError, detect_format
from gecscore.meta.judgments import (
    Comparison,
    JudgmentFormatError,
    read_pairwise_csv,
    write_pairwise_csv,
)
from gecscore.resources import ResourceError, load_resources

BOM = b"\xef\xbb\xbf"


def test_a_leading_bom_is_removed_and_only_there() -> None:
    assert decode_utf8(BOM + "S 我\n".encode(), name="f") == "S 我\n"
    assert decode_utf8(b"a" + BOM, name="f") == "a\ufeff"
    # A piece of a file that does not start at offset 0 keeps it (it is text there).
    assert decode_utf8(BOM + b"x", name="f", offset=10) == "\ufeffx"


def test_a_bad_byte_names_file_line_and_offset() -> None:
    with pytest.raises(M2FormatError) as info:
        decode_utf8(b"S a\nA 0 1|||R|||\xff|||\n", name="h.m2", error=M2FormatError)
    assert str(info.value) == "h.m2, line 2: not UTF-8 (byte 0xff at offset 16)"
    assert (info.value.line, info.value.offset) == (2, 16)
    with pytest.raises(InputFormatError, match=r"f, line 7: not UTF-8 \(byte 0xc3 at offset 104\)"):
        decode_utf8(b"ok\n\xc3(", name="f", first_line=6, offset=101)


def test_first_nonblank_line_sniffs_without_replacing(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(BOM + b"\n  \r\nS a b\r\nA \xff\n")
    assert first_nonblank_line(path) == "S a b"
    path.write_bytes(b"\n\n")
    assert first_nonblank_line(path) is None
    path.write_bytes(b"\n\nid\t\xe4\xbb\n")
    with pytest.raises(
        InputFormatError, match=r"in.txt, line 3: not UTF-8 \(byte 0xe4 at offset 5\)"
    ):
        first_nonblank_line(path)


def test_cleme_format_detection_refuses_a_bad_first_line(tmp_path: Path) -> None:
    path = tmp_path / "hyp.txt"
    path.write_bytes(b"1\t\xff\xfe\tx\n")  # was silently read as U+FFFD before
    with pytest.raises(
        InputFormatError, match=r"hyp.txt, line 1: not UTF-8 \(byte 0xff at offset 2\)"
    ):
        detect_format(path)
    path.write_bytes(BOM + b"S a\n")
    assert detect_format(path) == "m2"


def test_ptm2_reads_an_m2_reference_with_a_bom_like_one_without(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "mucgec-dev"
    blocks = (folder / "MuCGEC_dev.m2").read_bytes().split(b"\n\n")[:40]
    plain, bommed = tmp_path / "ref.m2", tmp_path / "ref_bom.m2"
    plain.write_bytes(b"\n\n".join(blocks) + b"\n\n")
    bommed.write_bytes(BOM + plain.read_bytes())
    hyp = tmp_path / "hyp.m2"
    hyp.write_bytes(b"\n\n".join((folder / "mix_pred_dev.m2").read_bytes().split(b"\n\n")[:40]))
    outputs = []
    for ref in (plain, bommed):
        assert (
            main(["ptm2", "--model", "self", "--hyp", str(hyp), "--ref", str(ref), "--json"]) == 0
        )
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert outputs[0]["counts"][0] > 0


def test_judgment_csv_with_a_bad_byte_names_the_line(tmp_path: Path) -> None:
    pair = Comparison("1", "u", "A", "B", "<", 1, 2, 2)
    text = write_pairwise_csv([pair, pair])
    path = tmp_path / "pairs.csv"
    path.write_bytes(BOM + text.encode())
    assert len(read_pairwise_csv(path)) == 2
    lines = text.encode().split(b"\n")
    lines[2] = lines[2].replace(b"u", b"\xe9", 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JudgmentFormatError, match=r"pairs.csv, line 3: not UTF-8 \(byte 0xe9"):
        read_pairwise_csv(path)


def test_a_resource_file_that_is_not_utf8_names_line_and_offset(
    shared_data: Path, tmp_path: Path
) -> None:
    resources = shared_data / "cherrant-resources"
    (tmp_path / "cilin.txt").write_bytes((resources / "cilin.txt").read_bytes())
    (tmp_path / "confusion_dict.txt").write_bytes("一 二 三\n".encode() + b"\xff \xe4\n")
    with pytest.raises(
        ResourceError, match=r"confusion_dict.txt, line 2: not UTF-8 \(byte 0xff at offset 12\)"
    ):
        load_resources(tmp_path)


def test_one_format_detector_reads_an_empty_file_as_an_empty_m2(tmp_path: Path) -> None:
    # cleme and ptm2 share gecscore.m2.detect_format (they disagreed on empty files).
    path = tmp_path / "empty.txt"
    path.write_text("\n  \n", encoding="utf-8")
    assert detect_format(path) == "m2"
    path.write_text("1\tsource\ttarget\n", encoding="utf-8")
    assert detect_format(path) == "text"
    path.write_text("just words\n", encoding="utf-8")
    with pytest.raises(UnknownFormatError, match="cannot tell the format"):
        detect_format(path)


# One line reader (gecscore.errors.split_lines / read_lines): a BOM removed, the
# final newline opening no line, CR before LF dropped, a blank line inside kept.
LINES_TEXT = "\ufeffone\r\ntwo \n\nfour\r\n"
LINES = ["one", "two ", "", "four"]


@pytest.mark.parametrize(
    ("text", "lines", "crlf"),
    [
        (LINES_TEXT, LINES, [1, 4]),
        (LINES_TEXT.rstrip("\n"), LINES, [1, 4]),  # a last line's CR goes too
        ("", [], []),
        ("\n", [""], []),
        ("a", ["a"], []),
        ("a\n\n", ["a", ""], []),
    ],
)
def test_split_lines(text: str, lines: list[str], crlf: list[int]) -> None:
    from gecscore.errors import split_lines

    found: list[int] = []
    assert split_lines(text, crlf=found) == lines
    assert found == crlf


def test_every_line_reader_reads_the_same_lines(tmp_path: Path) -> None:
    from gecscore.english.textfiles import read_text_lines
    from gecscore.errors import read_lines
    from gecscore.meta.compute import read_outputs
    from gecscore.meta.scorefiles import read_system_list

    folder = tmp_path / "outputs"
    folder.mkdir()
    path = folder / "SYS.txt"
    path.write_bytes(LINES_TEXT.encode("utf-8"))
    text_file = read_text_lines(path)
    assert read_lines(path) == text_file.lines == read_outputs(folder)["SYS"] == LINES
    assert text_file.crlf == [1, 4]
    assert read_system_list(path) == [line.strip() for line in LINES if line.strip()]
    bad = tmp_path / "bad"
    bad.write_bytes(b"ok\n\xff\n")
    with pytest.raises(M2FormatError, match=r"bad, line 2: not UTF-8"):
        read_lines(bad, error=M2FormatError)
