"""``python -m gecscore imeasure``: JSON and table output, and bad input (file and line,
never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main

GOLD = (
    "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\n\n"
    "S d e f\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
)


def _write(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


def test_json_has_the_imeasure_and_its_counts(tmp_path: Path, capsys):
    gold = _write(tmp_path, "gold.m2", GOLD)
    # CRLF and trailing spaces are tolerated, as by the reference (it splits on whitespace).
    hyp = _write(tmp_path, "hyp.txt", "a x c \r\nd y f\n")
    assert main(["imeasure", "--hyp", hyp, "--ref", gold, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    # Worked in test_cases.test_corpus_scores_come_from_summed_counts: I = -1/10.
    assert payload["metric"] == "imeasure" and payload["score"] == pytest.approx(-0.1)
    assert payload["counts"] == [1, 1, 0] and payload["beta"] == 1.0
    assert payload["details"]["wacc"] == 0.75 and payload["system"] == hyp


def test_several_hypotheses_print_one_json_line_each(tmp_path: Path, capsys):
    gold = _write(tmp_path, "gold.m2", GOLD)
    first = _write(tmp_path, "one.txt", "a x c\nd e f\n")
    second = _write(tmp_path, "two.txt", "a b c\nd e f\n")
    args = ["imeasure", "--hyp", first, "--hyp", second, "--ref", gold, "--json", "--sentence"]
    assert main(args) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["system"] for line in lines] == [first, second]
    assert [s["score"] for s in lines[0]["sentences"]] == [1.0, 1.0]  # both perfect
    assert lines[1]["score"] == 0.0  # the source itself


def test_the_table_is_the_reference_tools(tmp_path: Path, capsys):
    gold = _write(tmp_path, "gold.m2", GOLD)
    hyp = _write(tmp_path, "hyp.txt", "a x c\nd y f\n")
    assert main(["imeasure", "--hyp", hyp, "--ref", gold]) == 0
    out = capsys.readouterr().out
    assert "OVERALL RESULTS" in out
    assert "Correction         1       4       1       0       0" in out
    assert out.rstrip().endswith("-10.00")


@pytest.mark.parametrize(
    ("hyp", "gold", "expected"),
    [
        ("a x c\n", GOLD, "hyp.txt, line 2: 1 lines"),
        ("a x c\nd e f\ng h i\n", GOLD, "hyp.txt, line 3: 3 lines"),
        (b"a x c\nd \xff f\n", GOLD, "hyp.txt, line 2: not UTF-8"),
        ("a x c\nd e f\n", "S a b c\nA 1 x|||R|||x|||REQUIRED|||-NONE-|||0\n\n", "gold.m2, line 2"),
    ],
)
def test_bad_input_names_file_and_line(
    tmp_path: Path, capsys, hyp: str | bytes, gold: str, expected: str
):
    gold_path = _write(tmp_path, "gold.m2", gold)
    hyp_path = _write(tmp_path, "hyp.txt", hyp)
    assert main(["imeasure", "--hyp", hyp_path, "--ref", gold_path]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_a_bad_option_is_a_message(tmp_path: Path, capsys):
    gold = _write(tmp_path, "gold.m2", GOLD)
    hyp = _write(tmp_path, "hyp.txt", "a x c\nd e f\n")
    # A usage error (exit 2) naming the flag, before anything is read.
    with pytest.raises(SystemExit) as exit_info:
        main(["imeasure", "--hyp", hyp, "--ref", gold, "--weight", "0"])
    assert exit_info.value.code == 2
    assert "argument --weight: must be a positive finite number" in capsys.readouterr().err
