"""Each CLI command imports only what its input needs: scoring M2 files never loads
the extractor, the aligner or the resources; extracting does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("gecscore.extract", "gecscore.align", "gecscore.resources", "pypinyin", "opencc")

# Runs one command in a fresh interpreter, then prints which of HEAVY it imported.
PROBE = """
import contextlib, io, json, sys
from gecscore.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
print(json.dumps([status, [name for name in {heavy!r} if name in sys.modules]]))
"""


def imported_by(*argv: str, watched: tuple[str, ...] = HEAVY) -> tuple[int, list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=watched), *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    status, names = json.loads(result.stdout)
    return status, names


def test_compare_on_m2_imports_neither_extractor_nor_aligner(shared_data: Path) -> None:
    dev = shared_data / "mucgec-dev"
    status, names = imported_by(
        "compare", "--hyp", str(dev / "example_pred_dev.m2"), "--ref", str(dev / "MuCGEC_dev.m2")
    )
    assert status == 0
    assert names == []


def test_compare_on_m2_imports_no_shutil_and_no_dataclasses(shared_data: Path) -> None:
    # shutil (argparse's default help width, ~3.5 ms with bz2 and lzma) and dataclasses (~12 ms
    # with inspect) are a measurable part of a 0.1 s comparison.
    dev = shared_data / "mucgec-dev"
    status, names = imported_by(
        "compare",
        "--hyp",
        str(dev / "example_pred_dev.m2"),
        "--ref",
        str(dev / "MuCGEC_dev.m2"),
        watched=("shutil", "dataclasses"),
    )
    assert status == 0
    assert names == []


def test_m2_from_text_does_import_them(shared_data: Path, tmp_path: Path) -> None:
    # The probe itself can see the modules: extraction loads all of them.
    source = tmp_path / "one.txt"
    source.write_text("1\t我喜欢苹果\t我很喜欢苹果\n", encoding="utf-8")
    status, names = imported_by(
        "cherrant-m2",
        str(source),
        "-o",
        str(tmp_path / "one.m2"),
        "--resources",
        str(shared_data / "cherrant-resources"),
    )
    assert status == 0
    assert "gecscore.extract" in names and "gecscore.align" in names
