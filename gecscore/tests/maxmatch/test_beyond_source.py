"""Gold M2 edits whose span lies beyond the sentence: m2score and imeasure read them
as their reference tools do, and warn with the lines; every other reader still refuses them.

The expected outputs below are the reference tools' own, from runs outside the repository on
the synthetic GOLD / HYP of this file (written to files byte for byte):

* m2scorer 3.2 (nusnlp/m2scorer tag version3.2, commit 2122ffd) under Python 2.7.18:
  ``python2 scripts/m2scorer.py [--beta B] hyp.txt gold.m2``. Its ``load_annotation`` keeps
  an edit only when start and end are both within 0..token count, and keeps the annotator
  even when none of its edits is left (``-v`` chose annotator 1, left with no edit, for
  sentence 6).
* I-measure (mfelice/imeasure @fc79fdf) under Python 2.7.18 with numpy 1.16.6:
  ``m2_to_ixml.py -in:gold_imeasure.m2`` (nltk's ``word_tokenize`` stood in by ``split``,
  enough for these one-word corrections; a ten-line ``SimpleXMLWriter``), then
  ``ieval.py -ref:gold_imeasure.m2.ieval.xml -hyp:hyp.txt -nomix -per-sent``. I-measure does
  not leave such edits out: it applies them as Python list slices, which stop at the end of
  the sentence. Its gold is GOLD without sentence 5's ``A 7 7|||noop`` line (its converter
  turns a noop that is not at ``-1 -1`` into an edit inserting ``-NONE-``, a separate matter).

JFLEG's official dev M2 (keisks/jfleg ``EACL_exp/m2converter/dev.ref.m2``, with
``dev/dev.spellchecked.src``) is checked when GEC_JFLEG_DIR names a folder holding both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.m2 import M2Edit, M2FormatError, parse_m2
from gecscore.maxmatch.scorer import gold_edits_by_annotator

GOLD = """\
S a b c d e
A 1 2|||R|||x|||REQUIRED|||-NONE-|||0
A 5 7|||R|||y|||REQUIRED|||-NONE-|||0
A 6 6|||M|||z|||REQUIRED|||-NONE-|||1

S f g h
A 3 3|||M|||end|||REQUIRED|||-NONE-|||0
A 2 4|||R|||w|||REQUIRED|||-NONE-|||0

S p q r s
A 9 9|||M|||k|||REQUIRED|||-NONE-|||0

S the cat sat
A 1 2|||R|||dog|||REQUIRED|||-NONE-|||0

S u v w
A 7 7|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A 0 1|||R|||U|||REQUIRED|||-NONE-|||1

S m n o
A 0 1|||R|||M|||REQUIRED|||-NONE-|||0
A 8 8|||M|||q|||REQUIRED|||-NONE-|||1

"""
GOLD_IMEASURE = GOLD.replace("A 7 7|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", "")
HYP = "a x c d e y\nf g h end\np q r s k\nthe dog sat\nu v w\nm n o\n"
BEYOND_LINES = [3, 4, 8, 11, 17, 22]  # 1-based lines of GOLD with a span past the sentence

# m2scorer 3.2's stdout on HYP / GOLD, by --beta (TP 3, FP 2, FN 0).
M2SCORER = {
    "0.5": "Precision   : 0.6000\nRecall      : 1.0000\nF_0.5       : 0.6522\n",
    "1": "Precision   : 0.6000\nRecall      : 1.0000\nF_1.0       : 0.7500\n",
    "2": "Precision   : 0.6000\nRecall      : 1.0000\nF_2.0       : 0.8824\n",
}

# ieval.py -nomix -per-sent on HYP / GOLD_IMEASURE, from its SENTENCE RESULTS line to the end
# (\x20: the space its header rows end with).
IEVAL = """\
SENTENCE RESULTS
---------------------------------------------------------------------------------------------------------------------
SID     Asp.      TP      TN      FP      FN     FPN       P       R  F_1.00     Acc   Acc_b    WAcc  WAcc_b       I\x20
---------------------------------------------------------------------------------------------------------------------
1       Det        2       4       0       0       0  100.00  100.00  100.00  100.00   66.67  100.00   66.67  100.00
1       Cor        2       4       0       0       0  100.00  100.00  100.00  100.00   66.67  100.00   66.67  100.00
2       Det        0       2       1       1       0    0.00    0.00    0.00   50.00   66.67   40.00   66.67  -40.00
2       Cor        0       2       1       1       0    0.00    0.00    0.00   50.00   66.67   40.00   66.67  -40.00
3       Det        1       4       0       0       0  100.00  100.00  100.00  100.00   80.00  100.00   80.00  100.00
3       Cor        1       4       0       0       0  100.00  100.00  100.00  100.00   80.00  100.00   80.00  100.00
4       Det        1       2       0       0       0  100.00  100.00  100.00  100.00   66.67  100.00   66.67  100.00
4       Cor        1       2       0       0       0  100.00  100.00  100.00  100.00   66.67  100.00   66.67  100.00
5       Det        0       2       0       1       0  100.00    0.00    0.00   66.67   66.67   66.67   66.67    0.00
5       Cor        0       2       0       1       0  100.00    0.00    0.00   66.67   66.67   66.67   66.67    0.00
6       Det        0       3       0       1       0  100.00    0.00    0.00   75.00   75.00   75.00   75.00    0.00
6       Cor        0       3       0       1       0  100.00    0.00    0.00   75.00   75.00   75.00   75.00    0.00

OVERALL RESULTS
---------------------------------------------------------------------------------------------------------------------
Aspect            TP      TN      FP      FN     FPN       P       R  F_1.00     Acc   Acc_b    WAcc  WAcc_b       I\x20
---------------------------------------------------------------------------------------------------------------------
Detection          4      17       1       3       0   80.00   57.14   66.67   84.00   70.83   83.33   70.83   42.86
Correction         4      17       1       3       0   80.00   57.14   66.67   84.00   70.83   83.33   70.83   42.86
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_reader_refuses_a_span_beyond_the_sentence_unless_asked() -> None:
    with pytest.raises(M2FormatError, match=r"gold\.m2, line 3: edit span 5 7 is beyond"):
        parse_m2(GOLD, name="gold.m2")
    lines: list[int] = []
    blocks = parse_m2(GOLD, name="gold.m2", beyond_source=lines)
    assert lines == BEYOND_LINES
    # Kept as written: which reading applies is the scorer's (m2scorer's or I-measure's).
    assert len(blocks) == 6
    assert blocks[0].edits == [
        M2Edit(1, 2, "R", "x", 0),
        M2Edit(5, 7, "R", "y", 0),
        M2Edit(6, 6, "M", "z", 1),
    ]
    assert blocks[4].edits[0] == M2Edit(7, 7, "noop", "-NONE-", 0)


def test_gold_edits_beyond_the_sentence_are_left_out_and_their_annotator_stays() -> None:
    blocks = parse_m2(GOLD, beyond_source=[])
    assert gold_edits_by_annotator(blocks[0]) == {0: [(1, 2, "b", ("x",))], 1: []}
    assert gold_edits_by_annotator(blocks[1]) == {0: [(3, 3, "", ("end",))]}
    assert gold_edits_by_annotator(blocks[2]) == {0: []}
    assert gold_edits_by_annotator(blocks[5]) == {0: [(0, 1, "m", ("M",))], 1: []}


@pytest.mark.parametrize("beta", sorted(M2SCORER))
def test_m2score_is_m2scorers_on_spans_beyond_the_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], beta: str
) -> None:
    gold, hyp = _write(tmp_path, "gold.m2", GOLD), _write(tmp_path, "hyp.txt", HYP)
    assert main(["m2score", "--hyp", hyp, "--ref", gold, "--beta", beta]) == 0
    captured = capsys.readouterr()
    assert captured.out == M2SCORER[beta]
    assert captured.err == (
        f"warning: {gold}: 6 edit(s) with a span beyond the sentence's tokens "
        "(line 3, 4, 8, 11, 17, 22); m2scorer 3.2 leaves such edits out (their annotators "
        "stay), and so does m2score\n"
    )


def test_imeasure_is_ievals_on_spans_beyond_the_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, hyp = _write(tmp_path, "gold.m2", GOLD_IMEASURE), _write(tmp_path, "hyp.txt", HYP)
    assert main(["imeasure", "--hyp", hyp, "--ref", gold, "--sentence"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split("\n", 1)[1] == IEVAL
    assert captured.err.startswith(
        f"warning: {gold}: 5 edit(s) with a span beyond the sentence's tokens "
        "(line 3, 4, 8, 11, 21); I-measure applies them as Python slices"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["compare"],
        ["errant-compare"],
        ["cleme", "--format", "m2"],
        ["ptm2", "--model", "self"],
    ],
)
def test_commands_of_other_reference_tools_still_refuse_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # ChERRANT, errant_compare and CLEME do not leave such edits out (ChERRANT and errant
    # compare them by position as any other edit), so these commands keep the clear error.
    gold = _write(tmp_path, "gold.m2", GOLD)
    assert main([*command, "--hyp", gold, "--ref", gold]) == 2
    assert f"{gold}, line 3: edit span 5 7 is beyond the source" in capsys.readouterr().err


JFLEG = Path(os.environ.get("GEC_JFLEG_DIR", "/nonexistent"))


@pytest.mark.skipif(
    not (JFLEG / "dev.ref.m2").is_file() or not (JFLEG / "dev.spellchecked.src").is_file(),
    reason="JFLEG dev M2 not present: set GEC_JFLEG_DIR to a folder with keisks/jfleg's "
    "EACL_exp/m2converter/dev.ref.m2 and dev/dev.spellchecked.src",
)
@pytest.mark.parametrize(
    ("beta", "expected"),
    [
        # m2scorer 3.2, as the issue quotes it and as rerun here (python2 scripts/m2scorer.py).
        ("0.5", "Precision   : 0.6172\nRecall      : 0.1532\nF_0.5       : 0.3844\n"),
        ("1", "Precision   : 0.6120\nRecall      : 0.1539\nF_1.0       : 0.2460\n"),
    ],
)
def test_jfleg_official_dev_m2_scores_as_m2scorer(
    capsys: pytest.CaptureFixture[str], beta: str, expected: str
) -> None:
    ref = str(JFLEG / "dev.ref.m2")
    hyp = str(JFLEG / "dev.spellchecked.src")
    assert main(["m2score", "--hyp", hyp, "--ref", ref, "--beta", beta]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    # 19 edits, in sentences 14, 250, 268, 509 and 664.
    assert "19 edit(s) with a span beyond" in captured.err
    assert "(line 340, 345, 348, 351, 4624, 4989, 9362, " in captured.err


# ieval.py -nomix on JFLEG dev (converted as for GOLD above; its corrections are already
# tokens, so split stands in for nltk), the last two rows of its OVERALL RESULTS (7 min 21 s).
IEVAL_JFLEG = """\
Detection        439   12523      76    1633       0   85.24   21.19   33.94   88.35   85.86   88.25   85.86   16.87
Correction       251   12523     264    1821     188   48.74   12.11   19.40   87.07   85.86   86.30   85.86    3.14
"""


@pytest.mark.skipif(
    not (JFLEG / "dev.ref.m2").is_file() or not (JFLEG / "dev.spellchecked.src").is_file(),
    reason="JFLEG dev M2 not present: set GEC_JFLEG_DIR (see above)",
)
def test_jfleg_official_dev_m2_imeasure_is_ievals(capsys: pytest.CaptureFixture[str]) -> None:
    ref = str(JFLEG / "dev.ref.m2")
    hyp = str(JFLEG / "dev.spellchecked.src")
    assert main(["imeasure", "--hyp", hyp, "--ref", ref]) == 0
    captured = capsys.readouterr()
    assert captured.out.endswith(IEVAL_JFLEG)
    assert "19 edit(s) with a span beyond" in captured.err
