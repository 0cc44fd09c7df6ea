"""CLEME's lean M2 reader gives what the validating reader gives, sentence for sentence.

``read_m2_sentences`` builds sentences straight from the lines and leaves any file it does
not take to ``read_m2`` + ``sentences_from_m2``; both ways must give equal sentences, or the
same error, on every kind of M2 (issue #17).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cleme.inputs import _lean_sentences, read_m2_sentences, sentences_from_m2
from gecscore.m2 import read_m2

CHERRANT = """S 因 为 在 冰 箱 里
T0-A0 即 使 在 冰 箱 里
A 0 2|||S|||即 使|||REQUIRED|||-NONE-|||0
A 6 6|||M|||了|||REQUIRED|||-NONE-|||0
T0-A1 因 在 冰 箱 里
A 1 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
T1 没有错误
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
T2-A0 因 为 在 冰 箱 中
A 5 6|||S|||中|||REQUIRED|||-NONE-|||2
T2-A0 因 为 在 冰 箱
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||2

S 再 说 ， 他 们
T0 无法标注
A -1 -1|||NA|||-NONE-|||REQUIRED|||-NONE-|||0
T1-A1 再 说 他 们
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||1
"""

PLAIN = """S The cat sat on mat .
A 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 1 2|||R:NOUN|||dog|||REQUIRED|||-NONE-|||1
A 4 5|||R:NOUN|||the mat|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||2
A 5 5|||M:PUNCT|||!|||REQUIRED|||-NONE-|||1

S Nothing here
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S
S A second block without a blank line before it
A 0 1|||R:DET|||The|||REQUIRED|||-NONE-|||0
"""

# Inputs the lean reader must decline (so the validating reader decides), each with what
# it changes in a well-formed file.
DECLINED = {
    "unsorted edits (sorted by make_sentence)": PLAIN.replace(
        "A 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||0\n", ""
    ).replace(
        "A 5 5|||M:PUNCT|||!|||REQUIRED|||-NONE-|||1\n",
        "A 5 5|||M:PUNCT|||!|||REQUIRED|||-NONE-|||1\nA 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||1\n",
    ),
    "overlapping edits": PLAIN.replace("A 4 5|||R:NOUN|||the mat", "A 3 5|||R:NOUN|||the mat"),
    "span beyond the source": PLAIN.replace("A 4 5|||", "A 4 9|||"),
    "span not integers": CHERRANT.replace("A 0 2|||", "A 0 x|||"),
    "short A line (annotator 0)": PLAIN.replace(
        "A 1 2|||R:NOUN|||dog|||REQUIRED|||-NONE-|||1", "A 1 2|||R:NOUN|||dog"
    ),
    "T line after plain A lines": PLAIN.replace(
        "A 5 5|||M:PUNCT|||!|||REQUIRED|||-NONE-|||1\n",
        "A 5 5|||M:PUNCT|||!|||REQUIRED|||-NONE-|||1\nT3-A0 x\n",
    ),
    "A line before any S line": "A 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n" + PLAIN,
    "unknown line kind": PLAIN.replace("S Nothing here", "X Nothing here"),
    "T line the regular expression decides": CHERRANT.replace("T2-A0 因", "T2-Ax 因", 1),
    "empty file": "\n\n",
}


def _both(path: Path) -> tuple[object, object]:
    """(lean or fallback, validating): sentences, or the error's type and message."""
    results: list[object] = []
    for read in (
        lambda: read_m2_sentences(path),
        lambda: sentences_from_m2(read_m2(path), str(path)),
    ):
        try:
            results.append(read())
        except ValueError as exc:
            results.append((type(exc).__name__, str(exc)))
    return results[0], results[1]


def _lean(text: str) -> object:
    return _lean_sentences(text.split("\n"), "x.m2")


@pytest.mark.parametrize("text", [CHERRANT, PLAIN, CHERRANT + "\n" + PLAIN])
@pytest.mark.parametrize("variant", ["lf", "crlf", "bom"])
def test_lean_reader_equals_the_validating_reader(tmp_path: Path, text: str, variant: str) -> None:
    data = {"lf": text, "crlf": text.replace("\n", "\r\n"), "bom": "\ufeff" + text}[variant]
    path = tmp_path / "in.m2"
    path.write_bytes(data.encode("utf-8"))
    assert _lean(text) is not None  # the lean reader takes these files
    lean, validating = _both(path)
    assert lean == validating
    assert isinstance(lean, list) and lean


def test_lean_reader_keeps_first_alignment_and_skips_noop() -> None:
    sentences = _lean(CHERRANT)
    assert isinstance(sentences, list)
    first = sentences[0]
    # T0-A0 (not T0-A1), T1 没有错误 (no edit), the first T2-A0 (not the second)
    assert [[(e.start, e.end, e.tokens) for e in row] for row in first.corrections] == [
        [(0, 2, ("即", "使")), (6, 6, ("了",))],
        [],
        [(5, 6, ("中",))],
    ]
    assert first.origin == "x.m2, line 1"
    assert sentences[1].corrections == ((),)  # T1-A1 without T1-A0: no correction


def test_lean_reader_groups_plain_m2_by_annotator_in_order_of_appearance() -> None:
    sentences = _lean(PLAIN)
    assert isinstance(sentences, list)
    assert [[(e.start, e.end, e.tokens) for e in row] for row in sentences[0].corrections] == [
        [(4, 4, ("the",)), (4, 5, ("the", "mat"))],
        [(1, 2, ("dog",)), (5, 5, ("!",))],
        [],
    ]
    assert [s.source for s in sentences[2:]] == [
        (),
        ("A", "second", "block", "without", "a", "blank", "line", "before", "it"),
    ]


@pytest.mark.parametrize("case", sorted(DECLINED))
def test_lean_reader_declines_what_the_validating_reader_decides(tmp_path: Path, case: str) -> None:
    text = DECLINED[case]
    assert _lean(text) is None
    path = tmp_path / "in.m2"
    path.write_text(text, encoding="utf-8")
    lean, validating = _both(path)
    assert lean == validating or (case == "empty file" and validating == [])


def test_non_utf8_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "in.m2"
    path.write_bytes(PLAIN.encode("utf-8").replace(b"dog", b"d\xffg"))
    lean, validating = _both(path)
    assert lean == validating
    assert lean == ("M2FormatError", f"{path}, line 3: not UTF-8 (byte 0xff at offset 85)")


@pytest.mark.parametrize(
    "name", ["MuCGEC_dev.m2", "example_pred_dev.m2", "oracle1_pred_dev.m2", "noop_pred_dev.m2"]
)
def test_lean_reader_takes_the_mucgec_files_whole(mucgec_dir: Path, name: str) -> None:
    path = mucgec_dir / name
    text = path.read_text(encoding="utf-8")
    lean = _lean_sentences(text.split("\n"), str(path))
    assert lean is not None
    assert lean == sentences_from_m2(read_m2(path), str(path))
