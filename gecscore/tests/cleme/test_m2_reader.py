"""CLEME reads M2 through ``gecscore.m2.read_m2`` (one parser) and picks its corrections.

``sentence_from_m2_block`` builds a well-formed block's ``Sentence`` directly and leaves any
other to ``make_sentence`` (which sorts edits or names an overlap); both ways must give what
``make_sentence`` gives for the block's corrections, or the same error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cleme.inputs import read_m2_sentences
from gecscore.cleme.model import Sentence, SpanEdit, make_sentence
from gecscore.m2 import NONE_CORRECTION, read_m2

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

# Inputs off the direct path (make_sentence decides) or that read_m2 rejects.
UNUSUAL = {
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


def _plainly(path: Path) -> list[Sentence]:
    """What CLEME must read, written the plain way: per block, the first alignment of each
    annotator without noop / NA edits, through ``make_sentence``."""
    sentences = []
    for block in read_m2(path):
        corrections: list[list[SpanEdit]] = []
        seen: set[int] = set()
        for target in block.targets:
            if target.alternative or target.annotator in seen:
                continue
            seen.add(target.annotator)
            corrections.append(
                [
                    SpanEdit(e.start, e.end, tuple(e.correction.split()), e.type)
                    if e.correction != NONE_CORRECTION
                    else SpanEdit(e.start, e.end, (), e.type)
                    for e in target.edits
                    if e.start >= 0 and e.type not in ("noop", "NA")
                ]
            )
        sentences.append(
            make_sentence(block.source.split(), corrections, f"{path}, line {block.line}")
        )
    return sentences


def _both(path: Path) -> tuple[object, object]:
    """(read_m2_sentences, the plain way): sentences, or the error's type and message."""
    results: list[object] = []
    for read in (lambda: read_m2_sentences(path), lambda: _plainly(path)):
        try:
            results.append(read())
        except ValueError as exc:
            results.append((type(exc).__name__, str(exc)))
    return results[0], results[1]


def _read(tmp_path: Path, text: str) -> list[Sentence]:
    path = tmp_path / "x.m2"
    path.write_text(text, encoding="utf-8")
    return read_m2_sentences(path)


@pytest.mark.parametrize("text", [CHERRANT, PLAIN, CHERRANT + "\n" + PLAIN])
@pytest.mark.parametrize("variant", ["lf", "crlf", "bom"])
def test_reader_equals_the_plain_way(tmp_path: Path, text: str, variant: str) -> None:
    data = {"lf": text, "crlf": text.replace("\n", "\r\n"), "bom": "\ufeff" + text}[variant]
    path = tmp_path / "in.m2"
    path.write_bytes(data.encode("utf-8"))
    read, plain = _both(path)
    assert read == plain
    assert isinstance(read, list) and read


def test_reader_keeps_first_alignment_and_skips_noop(tmp_path: Path) -> None:
    sentences = _read(tmp_path, CHERRANT)
    first = sentences[0]
    # T0-A0 (not T0-A1), T1 没有错误 (no edit), the first T2-A0 (not the second)
    assert [[(e.start, e.end, e.tokens) for e in row] for row in first.corrections] == [
        [(0, 2, ("即", "使")), (6, 6, ("了",))],
        [],
        [(5, 6, ("中",))],
    ]
    assert first.origin == f"{tmp_path / 'x.m2'}, line 1"
    assert sentences[1].corrections == ((),)  # T1-A1 without T1-A0: no correction


def test_reader_groups_plain_m2_by_annotator_in_order_of_appearance(tmp_path: Path) -> None:
    sentences = _read(tmp_path, PLAIN)
    assert [[(e.start, e.end, e.tokens) for e in row] for row in sentences[0].corrections] == [
        [(4, 4, ("the",)), (4, 5, ("the", "mat"))],
        [(1, 2, ("dog",)), (5, 5, ("!",))],
        [],
    ]
    assert [s.source for s in sentences[2:]] == [
        (),
        ("A", "second", "block", "without", "a", "blank", "line", "before", "it"),
    ]


@pytest.mark.parametrize("case", sorted(UNUSUAL))
def test_unusual_input_reads_as_the_plain_way(tmp_path: Path, case: str) -> None:
    path = tmp_path / "in.m2"
    path.write_text(UNUSUAL[case], encoding="utf-8")
    read, plain = _both(path)
    if case == "empty file":
        assert plain == [] and read == (
            "ClemeInputError",
            f"{path}: no M2 block found (empty file?)",
        )
    else:
        assert read == plain


def test_non_utf8_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "in.m2"
    path.write_bytes(PLAIN.encode("utf-8").replace(b"dog", b"d\xffg"))
    read, plain = _both(path)
    assert read == plain
    assert read == ("M2FormatError", f"{path}, line 3: not UTF-8 (byte 0xff at offset 85)")


@pytest.mark.parametrize(
    "name", ["MuCGEC_dev.m2", "example_pred_dev.m2", "oracle1_pred_dev.m2", "noop_pred_dev.m2"]
)
def test_reader_equals_the_plain_way_on_the_mucgec_files(mucgec_dir: Path, name: str) -> None:
    read, plain = _both(mucgec_dir / name)
    assert isinstance(read, list) and read
    assert read == plain


def test_reader_equals_the_plain_way_on_conll14(conll_dir: Path) -> None:
    for path in sorted(conll_dir.glob("conll14*.errant")):
        read, plain = _both(path)
        assert isinstance(read, list) and read
        assert read == plain, path.name
