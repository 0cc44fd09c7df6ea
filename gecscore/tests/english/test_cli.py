"""The English commands on bad input: a message naming file and line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main

SOURCE = "This are a test .\nHe go home .\n"
REF0 = "This is a test .\nHe goes home .\n"
REF1 = "This is a test .\nHe went home .\n"
HYP = "This is a test .\nHe go home .\n"

REF_M2 = (
    "S This are a test .\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S He go home .\n"
    "A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1\n"
    "\n"
)
HYP_M2 = (
    "S This are a test .\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0\n"
    "\n"
    "S He go home .\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    "\n"
)


def _write(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return str(path)


def _gleu(tmp_path: Path, hyp: str | bytes, *extra: str) -> list[str]:
    return [
        "gleu",
        "--src",
        _write(tmp_path, "src.txt", SOURCE),
        "--hyp",
        _write(tmp_path, "hyp.txt", hyp),
        "--ref",
        _write(tmp_path, "ref0.txt", REF0),
        _write(tmp_path, "ref1.txt", REF1),
        *extra,
    ]


def test_gleu_json_has_system_and_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_gleu(tmp_path, HYP, "--json")) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["system"].endswith("hyp.txt") and 0 < payload["score"] < 1
    assert payload["metric"] == "gleu" and payload["beta"] is None


def test_gleu_crlf_and_trailing_spaces_warn_and_score_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_gleu(tmp_path, HYP, "--json")) == 0
    clean = json.loads(capsys.readouterr().out)["score"]
    messy = HYP.replace(" .\n", " .  \r\n")
    assert main(_gleu(tmp_path, messy, "--json")) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["score"] == clean
    assert "hyp.txt: 2 line(s) end with CRLF (line 1, 2)" in captured.err
    assert "hyp.txt: 2 line(s) have leading or trailing spaces" in captured.err


def test_gleu_line_count_mismatch_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_gleu(tmp_path, "This is a test .\n")) == 2
    err = capsys.readouterr().err
    assert "hyp.txt, line 2: 1 lines, but" in err and "src.txt has 2" in err
    assert "Traceback" not in err


def test_gleu_non_utf8_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_gleu(tmp_path, b"This is a test .\nHe go \xff home .\n")) == 2
    err = capsys.readouterr().err
    assert "hyp.txt, line 2: not UTF-8" in err


def test_gleu_empty_hypothesis_line_is_scored_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_gleu(tmp_path, "This is a test .\n\n")) == 0
    captured = capsys.readouterr()
    assert "hyp.txt: 1 line(s) are empty (line 2)" in captured.err
    assert captured.out.startswith("hyp.txt 0.")


def test_errant_compare_json_and_several_hypotheses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _write(tmp_path, "ref.m2", REF_M2)
    hyp = _write(tmp_path, "hyp.m2", HYP_M2)
    assert main(["errant-compare", "--hyp", hyp, "--hyp", hyp, "--ref", ref, "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    payload = json.loads(lines[0])
    # sentence 1: TP 1 with either annotator; sentence 2: FN 1 (noop hypothesis)
    assert {k: payload[k] for k in ("system", "counts", "precision", "recall")} == {
        "system": hyp,
        "counts": [1, 0, 1],
        "precision": 1.0,
        "recall": 0.5,
    }
    assert payload["score"] == payload["f"] == 1.25 * 0.5 / (0.25 + 0.5)  # 0.8333 printed


def test_errant_compare_span_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _write(tmp_path, "ref.m2", REF_M2)
    hyp = _write(tmp_path, "hyp.m2", HYP_M2.replace("A 1 2|||R:VERB:SVA", "A 7 9|||R:VERB:SVA"))
    assert main(["errant-compare", "--hyp", hyp, "--ref", ref]) == 2
    err = capsys.readouterr().err
    assert "hyp.m2, line 2: edit span 7 9 is beyond the source, which has 5 tokens" in err


def test_errant_compare_sentence_count_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _write(tmp_path, "ref.m2", REF_M2)
    hyp = _write(tmp_path, "hyp.m2", HYP_M2.split("\n\n")[0] + "\n\n")
    assert main(["errant-compare", "--hyp", hyp, "--ref", ref]) == 2
    err = capsys.readouterr().err
    assert "hyp.m2 has 1 sentences but" in err and "ref.m2 has 2" in err


def test_errant_m2_line_count_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(tmp_path, "src.txt", SOURCE)
    cor = _write(tmp_path, "cor.txt", "This is a test .\n")
    out = str(tmp_path / "out.m2")
    assert main(["errant-m2", "--src", src, "--cor", cor, "-o", out]) == 2
    assert "cor.txt, line 2: 1 lines, but" in capsys.readouterr().err
    assert not Path(out).exists()
