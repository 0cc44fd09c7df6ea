"""`cleme` on M2 input imports neither the extractor nor the aligner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("gecscore.extract", "gecscore.align", "gecscore.resources", "pypinyin", "opencc")

PROBE = """
import contextlib, io, json, sys
from gecscore.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
print(json.dumps([status, [name for name in {heavy!r} if name in sys.modules]]))
"""


def imported_by(*argv: str) -> tuple[int, list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    status, names = json.loads(result.stdout)
    return status, names


def test_cleme_and_cleme2_on_m2_import_neither_extractor_nor_aligner(mucgec_dir: Path) -> None:
    hyp, ref = str(mucgec_dir / "example_pred_dev.m2"), str(mucgec_dir / "MuCGEC_dev.m2")
    for command in ("cleme", "cleme2"):
        status, names = imported_by(command, "--hyp", hyp, "--ref", ref, "--json")
        assert (command, status, names) == (command, 0, [])


def test_cleme_on_text_does_import_the_extractor(mucgec_dir: Path, tmp_path: Path) -> None:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("1\t我喜欢苹果\t我很喜欢苹果\n", encoding="utf-8")
    ref.write_text("1\t我喜欢苹果\t我非常喜欢苹果\n", encoding="utf-8")
    status, names = imported_by("cleme", "--hyp", str(hyp), "--ref", str(ref), "--json")
    assert status == 0
    assert "gecscore.extract" in names and "gecscore.align" in names


def test_cleme_on_m2_imports_no_dataclasses(mucgec_dir: Path) -> None:
    # Its records are named tuples (tuples are cheaper to build, and the command
    # does not load dataclasses' inspect machinery).
    hyp, ref = str(mucgec_dir / "example_pred_dev.m2"), str(mucgec_dir / "MuCGEC_dev.m2")
    probe = PROBE.replace("{heavy!r}", repr(("dataclasses",)))
    result = subprocess.run(
        [sys.executable, "-c", probe, "cleme", "--hyp", hyp, "--ref", ref, "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout) == [0, []]
