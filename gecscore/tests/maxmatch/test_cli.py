"""``python -m gecscore m2score``: output formats and bad input (a message, never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.maxmatch.test_cases import CORNERS_HYP, CORNERS_M2

# m2scorer 3.2's stdout on the corner files of test_cases (CORRECT 12, PROPOSED 16, GOLD 14).
M2SCORER_TEXT = "Precision   : 0.7500\nRecall      : 0.8571\nF_0.5       : 0.7692\n"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gecscore", "m2score", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _files(tmp_path: Path, hyp: bytes) -> tuple[str, str]:
    gold = tmp_path / "gold.m2"
    gold.write_text(CORNERS_M2, encoding="utf-8")
    system = tmp_path / "system.txt"
    system.write_bytes(hyp)
    return str(system), str(gold)


def test_text_output_is_m2scorers(tmp_path: Path) -> None:
    hyp, gold = _files(tmp_path, ("\n".join(CORNERS_HYP) + "\n").encode())
    completed = _run("--hyp", hyp, "--ref", gold)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == M2SCORER_TEXT


def test_crlf_trailing_spaces_and_no_final_newline_are_tolerated(tmp_path: Path) -> None:
    text = "\r\n".join(line + "  " for line in CORNERS_HYP)
    hyp, gold = _files(tmp_path, text.encode())
    completed = _run("--hyp", hyp, "--ref", gold)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == M2SCORER_TEXT
    assert "CRLF" in completed.stderr and "Traceback" not in completed.stderr


def test_json_for_several_systems_one_object_per_line(tmp_path: Path) -> None:
    hyp, gold = _files(tmp_path, ("\n".join(CORNERS_HYP) + "\n").encode())
    unchanged = tmp_path / "input.txt"
    sources = [line[2:] for line in CORNERS_M2.splitlines() if line.startswith("S ")]
    unchanged.write_text("\n".join(sources) + "\n", encoding="utf-8")
    completed = _run("--hyp", hyp, "--hyp", str(unchanged), "--ref", gold, "--json")
    assert completed.returncode == 0, completed.stderr
    first, second = (json.loads(line) for line in completed.stdout.splitlines())
    assert (first["system"], first["metric"]) == ("system.txt", "m2")
    assert first["counts"] == [12, 4, 2]
    # Full precision; m2scorer prints 0.7500 / 0.8571 / 0.7692.
    assert (first["precision"], first["recall"]) == (12 / 16, 12 / 14)
    assert first["score"] == first["f"] and round(first["f"], 4) == 0.7692
    assert second["system"] == "input.txt"
    assert second["counts"][:2] == [0, 0]
    sentence = _run("--hyp", hyp, "--ref", gold, "--json", "--sentence")
    (sentm2,) = (json.loads(line) for line in sentence.stdout.splitlines())
    assert sentm2["metric"] == "sentm2" and sentm2["details"]["m2"] == first["score"]


def test_line_count_mismatch_names_both_files_and_counts(tmp_path: Path) -> None:
    hyp, gold = _files(tmp_path, ("\n".join(CORNERS_HYP[:-1]) + "\n").encode())
    completed = _run("--hyp", hyp, "--ref", gold)
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert hyp in completed.stderr and gold in completed.stderr
    assert "10 lines" in completed.stderr and "11 sentences" in completed.stderr


def test_non_utf8_hypothesis_names_the_line(tmp_path: Path) -> None:
    lines = [line.encode() for line in CORNERS_HYP]
    lines[2] = b"a \xff d"
    hyp, gold = _files(tmp_path, b"\n".join(lines) + b"\n")
    completed = _run("--hyp", hyp, "--ref", gold)
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert f"{hyp}, line 3" in completed.stderr and "UTF-8" in completed.stderr


def test_gold_offsets_out_of_range_are_left_out_with_a_warning_naming_the_line(
    tmp_path: Path,
) -> None:
    # As m2scorer 3.2 reads them (test_beyond_source.py): the edit is left out, its annotator
    # stays with no edit. m2scorer 3.2 prints exactly this stdout for these two files.
    gold = tmp_path / "gold.m2"
    gold.write_text("S a b c\nA 2 7|||Mec|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    system = tmp_path / "system.txt"
    system.write_text("a b x\n", encoding="utf-8")
    completed = _run("--hyp", str(system), "--ref", str(gold))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "Precision   : 0.0000\nRecall      : 1.0000\nF_0.5       : 0.0000\n"
    assert f"warning: {gold}: 1 edit(s) with a span beyond the sentence's tokens (line 2)" in (
        completed.stderr
    )


def test_missing_file_is_a_message(tmp_path: Path) -> None:
    completed = _run("--hyp", str(tmp_path / "nope.txt"), "--ref", str(tmp_path / "nope.m2"))
    assert completed.returncode == 2
    # A usage error naming the first missing file and its flag, before anything is read.
    assert "Traceback" not in completed.stderr
    assert "argument --hyp: no such file: " in completed.stderr and "nope.txt" in completed.stderr
