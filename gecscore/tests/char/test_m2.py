from __future__ import annotations

import io
from pathlib import Path

import pytest

from gecscore.m2 import M2Edit, M2FormatError, _token_count, parse_m2, read_m2, write_m2


def test_every_shared_m2_file_round_trips_byte_for_byte(shared_data: Path) -> None:
    paths = sorted((shared_data / "mucgec-dev").glob("*.m2"))
    paths += sorted((shared_data / "cherrant-demo").glob("*.m2.*"))
    paths.append(shared_data / "conll14" / "conll14st-test.m2")
    assert len(paths) >= 15
    for path in paths:
        assert write_m2(read_m2(path)) == path.read_text(encoding="utf-8"), path.name


def test_cherrant_targets_alternatives_and_special_lines(shared_data: Path) -> None:
    blocks = read_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.m2")
    assert len(blocks) == 1137  # README: 1,137 lines
    first = blocks[0]
    assert first.line == 1
    assert first.source_tokens[:3] == ["因", "为", "在"]
    assert [(t.annotator, t.alternative) for t in first.targets] == [(0, 0), (1, 0)]
    assert first.targets[0].edits[0].start == 0 and first.targets[0].edits[0].correction == "即 使"
    na = [t for b in blocks for t in b.targets if t.edits and t.edits[0].type == "NA"]
    assert na and all(t.text == "无法标注" and t.edits[0].start == -1 for t in na)


def test_plain_m2_groups_edits_by_annotator_and_absent_annotator_has_no_target(
    shared_data: Path,
) -> None:
    blocks = read_m2(shared_data / "conll14" / "conll14st-test.m2")
    assert len(blocks) == 1312
    counts = [len(b.targets) for b in blocks]
    # conll14 README: 1,088 blocks with both annotators, 88 only annotator 0, 136 without A lines.
    assert counts.count(2) == 1088
    assert counts.count(0) == 136
    assert sum(1 for b in blocks if [t.annotator for t in b.targets] == [0]) == 88
    assert all(t.text is None for b in blocks for t in b.targets)


def test_crlf_bom_and_stream_input_are_accepted() -> None:
    text = "\ufeffS a b\r\nA 0 1|||R:DET|||-NONE-|||REQUIRED|||-NONE-|||0\r\n\r\nS c\r\n"
    blocks = read_m2(io.StringIO(text))
    assert [b.source for b in blocks] == ["a b", "c"]
    assert blocks[0].targets[0].edits[0].type == "R:DET"
    assert blocks[1].targets == []


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("S a b\nA x 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0\n", 2, "two integers"),
        ("S a b\nA 0 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0\n", 2, "beyond the source"),
        ("S a\n\nA 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0\n", 3, "'S ' line"),
        ("S a\nQ what\n", 2, "unknown line"),
        ("S a\nA 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||zero\n", 2, "annotator id"),
    ],
)
def test_malformed_m2_names_file_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(M2FormatError) as info:
        parse_m2(text, name="bad.m2")
    assert info.value.line == line
    assert "bad.m2" in str(info.value) and fragment in str(info.value)


def test_non_utf8_m2_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "gbk.m2"
    path.write_bytes("S 你 好\n".encode() + "S 错误\n".encode("gbk"))
    with pytest.raises(M2FormatError, match=r"gbk.m2, line 2: not UTF-8"):
        read_m2(path)


# Well-formed A lines are parsed inline (m2._parse_lines); anything else goes through the
# validating _parse_edit. Both must give the same edit for every line they accept.
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("A 0 1|||R|||x y|||REQUIRED|||-NONE-|||3", (0, 1, "R", "x y", 3)),  # inline
        ("A 2 2|||M|||x|||REQUIRED|||-NONE-|||0", (2, 2, "M", "x", 0)),  # insertion at the end
        ("A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1", (-1, -1, "noop", "-NONE-", 1)),
        ("A 0 1|||R|||x", (0, 1, "R", "x", 0)),  # no annotator field: annotator 0
        ("A  0   1 |||R|||x|||REQUIRED|||-NONE-| 2 ", (0, 1, "R", "x", 0)),
        ("A 0 1|||R|||x|||a|||b|||c|||2", (0, 1, "R", "x", 2)),  # 7 fields: the last one
        ("A 1 2|||R|||x|||REQUIRED|||-NONE-|| 4", (1, 2, "R", "x", 0)),
    ],
)
def test_inline_and_validating_edit_parsers_agree(line: str, expected: tuple[object, ...]) -> None:
    edit = parse_m2(f"S a b\n{line}\n")[0].targets[0].edits[0]
    assert tuple(edit) == expected
    assert edit == M2Edit(*expected)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("T0 x y", (0, 0, "x y")),
        ("T12-A3 a", (12, 3, "a")),
        ("T1", (1, 0, "")),
        ("T1 ", (1, 0, "")),
        ("T1-A2", (1, 2, "")),
        ("T\u0661-A\u0662 y", (1, 2, "y")),  # Arabic-Indic digits: \d, as in the regex
    ],
)
def test_t_line_headers(header: str, expected: tuple[int, int, str]) -> None:
    target = parse_m2(f"S a b\n{header}\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n")[0].targets[0]
    assert (target.annotator, target.alternative, target.text) == expected


@pytest.mark.parametrize("header", ["T1-A x", "T1x", "T-A1 x", "T1-A2-A3 x", "T\u00b3 x", "T"])
def test_malformed_t_line_names_the_line(header: str) -> None:
    with pytest.raises(M2FormatError, match=r"bad.m2, line 2: a T line must look like"):
        parse_m2(f"S a b\n{header}\n", name="bad.m2")


@pytest.mark.parametrize(
    "source",
    ["a b c", "", "a", " a b", "a b ", "a  b", "a\tb c", "a\u3000b", "a\xa0b", "中 文", "a\u2028b"],
)
def test_token_count_without_splitting_equals_split(source: str) -> None:
    assert _token_count(source) == len(source.split())
    n = len(source.split())
    # The span check uses that count: an edit may end at the last token, not beyond.
    parse_m2(f"S {source}\nA {n} {n}|||M|||x|||REQUIRED|||-NONE-|||0\n")
    with pytest.raises(M2FormatError, match="beyond the source"):
        parse_m2(f"S {source}\nA {n} {n + 1}|||R|||x|||REQUIRED|||-NONE-|||0\n")
