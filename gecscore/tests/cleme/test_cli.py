"""`python -m gecscore cleme|cleme2|chunks` as our checks call them (specs/cleme.md 8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gecscore.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_cleme_json_has_the_promised_keys(
    capsys: pytest.CaptureFixture[str], mucgec_dir: Path
) -> None:
    data = run_json(
        capsys,
        "cleme",
        "--hyp",
        str(mucgec_dir / "example_pred_dev.m2"),
        "--ref",
        str(mucgec_dir / "MuCGEC_dev.m2"),
        "--json",
    )
    # The Result's data and the file (gecscore/README.md, "What a Result holds").
    assert set(data) == {"system", "metric", "score", "signature", "precision", "recall"} | {
        "beta",
        "f",
        "counts",
        "sentences",
        "details",
    }
    assert {"tn", "acc", "bias", "level", "assumption"} == set(data["details"])
    assert round(data["score"], 4) == 0.3155 and data["score"] != 0.3155


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--level", "sentence", "--assumption", "independent"], 0.4768),
        (["--no-length-weighting", "--assumption", "independent"], 0.3981),
    ],
)
def test_cleme_options(
    capsys: pytest.CaptureFixture[str], mucgec_dir: Path, options: list[str], expected: float
) -> None:
    data = run_json(
        capsys,
        "cleme",
        "--hyp",
        str(mucgec_dir / "example_pred_dev.m2"),
        "--ref",
        str(mucgec_dir / "MuCGEC_dev.m2"),
        "--json",
        *options,
    )
    assert round(data["score"], 4) == expected


def test_cleme2_json(capsys: pytest.CaptureFixture[str], mucgec_dir: Path) -> None:
    data = run_json(
        capsys,
        "cleme2",
        "--hyp",
        str(mucgec_dir / "example_pred_dev.m2"),
        "--ref",
        str(mucgec_dir / "MuCGEC_dev.m2"),
        "--json",
    )
    details = data["details"]
    assert {"fp_ne", "fp_un", "hit", "wrong", "under", "over"} <= set(details)
    assert (data["counts"][0], details["fp_ne"], details["fp_un"], data["counts"][2]) == (
        994,
        806,
        797,
        1901,
    )
    assert data["beta"] is None and data["f"] is None
    assert round(data["score"], 4) == 0.5022


def test_chunks_json(capsys: pytest.CaptureFixture[str], mucgec_dir: Path) -> None:
    data = run_json(capsys, "chunks", "--ref", str(mucgec_dir / "MuCGEC_dev.m2"), "--json")
    assert (data["chunks"], data["unchanged"], data["corrected"], data["dummy"]) == (
        11007,
        5994,
        3247,
        1766,
    )
    assert {"icc", "iuc", "cc", "unchanged_mean_length", "corrected_mean_length"} <= set(data)


def test_text_report_without_json(capsys: pytest.CaptureFixture[str], mucgec_dir: Path) -> None:
    assert (
        main(
            [
                "cleme",
                "--hyp",
                str(mucgec_dir / "noop_pred_dev.m2"),
                "--ref",
                str(mucgec_dir / "MuCGEC_dev.m2"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "f05        0.0000" in out
    assert "signature: CLEME|" in out


def test_unknown_format_names_the_file(
    capsys: pytest.CaptureFixture[str], mucgec_dir: Path
) -> None:
    readme = mucgec_dir / "README.md"
    assert main(["cleme", "--hyp", str(readme), "--ref", str(mucgec_dir / "MuCGEC_dev.m2")]) == 2
    assert f"error: {readme}: cannot tell the format" in capsys.readouterr().err


def test_broken_m2_names_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.m2"
    bad.write_text("S 我 们\nA 0 x|||S|||你|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    assert main(["chunks", "--ref", str(bad)]) == 2
    assert f"{bad}, line 2" in capsys.readouterr().err


def test_sentence_count_mismatch_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = tmp_path / "one.m2"
    one.write_text("S 我 们\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    two = tmp_path / "two.m2"
    two.write_text(
        one.read_text(encoding="utf-8") + "\n" + one.read_text(encoding="utf-8"), encoding="utf-8"
    )
    assert main(["cleme", "--hyp", str(one), "--ref", str(two)]) == 2
    assert "the hypothesis has 1 sentences but the references have 2" in capsys.readouterr().err


@pytest.mark.slow
def test_raw_text_input_reproduces_the_m2_numbers(
    capsys: pytest.CaptureFixture[str], mucgec_dir: Path, shared_data: Path
) -> None:
    # The reference M2 files were made by ChERRANT with its resources; with the same resources
    # our extractor gives the same first alignments, hence the same CLEME.
    data = run_json(
        capsys,
        "cleme",
        "--hyp",
        str(mucgec_dir / "example_pred_dev.txt"),
        "--ref",
        str(mucgec_dir / "MuCGEC_dev.txt"),
        "--json",
        "--resources",
        str(shared_data / "cherrant-resources"),
    )
    assert round(data["score"], 4) == 0.3155


def test_scoring_with_cleme_does_not_load_torch(mucgec_dir: Path) -> None:
    # The BERTScore provider pulls in torch (seconds, hundreds of MB): unweighted CLEME must
    # stay free of it so scoring from M2 is fast.
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from gecscore.cleme import cleme, cleme2, read_m2_sentences\n"
        f"h = read_m2_sentences({str(mucgec_dir / 'noop_pred_dev.m2')!r})\n"
        f"r = read_m2_sentences({str(mucgec_dir / 'MuCGEC_dev.m2')!r})\n"
        "cleme(h, r); cleme2(h, r)\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_m2_input_does_not_need_extraction_resources(
    capsys: pytest.CaptureFixture[str], mucgec_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Resources (the large Cilin) only matter for raw text; a broken setting must not
    # stop M2 scoring.
    monkeypatch.setenv("GEC_CHERRANT_RESOURCES", "/nonexistent/cherrant")
    data = run_json(
        capsys,
        "cleme",
        "--hyp",
        str(mucgec_dir / "noop_pred_dev.m2"),
        "--ref",
        str(mucgec_dir / "MuCGEC_dev.m2"),
        "--json",
    )
    assert data["score"] == 0.0
