"""Fixtures of the meta-evaluation tests: the shared data folders, our M2 / SentM2 on SEEDA's
subset (computed once), and where SEEDA's own scripts are (side-by-side checks skip without)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gecscore.m2 import read_m2
from gecscore.maxmatch import M2Result, score_systems
from gecscore.meta.scorefiles import SEEDA_SYSTEMS
from tests.refs import reference_missing, reference_path
from tests.shared import shared_missing


@pytest.fixture(scope="session")
def conll14(shared_data: Path) -> Path:
    folder = shared_data / "conll14"
    if not folder.is_dir():
        shared_missing("shared/data/conll14 is absent")
    return folder


@pytest.fixture(scope="session")
def seeda(shared_data: Path) -> Path:
    folder = shared_data / "seeda"
    if not folder.is_dir():
        shared_missing("shared/data/seeda is absent")
    return folder


@pytest.fixture(scope="session")
def seeda_m2(seeda: Path, conll14: Path) -> dict[str, M2Result]:
    """Our M2 scorer on SEEDA's 391 sentences (gold = the CoNLL-14 blocks of those lines)."""
    blocks = read_m2(str(conll14 / "conll14st-test.m2"))
    lines = [int(x) for x in (seeda / "subset_conll14_lines.txt").read_text().split()]
    gold = [blocks[k - 1] for k in lines]
    outputs = {
        s: (seeda / "outputs" / "subset" / f"{s}.txt").read_text(encoding="utf-8").split("\n")
        for s in SEEDA_SYSTEMS
    }
    return score_systems(outputs, gold)


@pytest.fixture(scope="session")
def seeda_scripts() -> tuple[str, Path]:
    """(python with numpy + scipy, SEEDA's utils folder) for running SEEDA's scripts beside
    ours: GEC_REF_PYTHON and GEC_SEEDA_UTILS, by default $GEC_REFS_DIR/venv/bin/python and
    $GEC_REFS_DIR/SEEDA/utils (fetched tmu-nlp/SEEDA @0c6c07f). Skips when they are not there,
    unless GEC_REQUIRE_REFS requires seeda (tests/refs.py)."""
    python = reference_path("GEC_REF_PYTHON", "venv", "bin", "python")
    utils = reference_path("GEC_SEEDA_UTILS", "SEEDA", "utils")
    if not (utils / "corr_system.py").exists():
        reference_missing(
            "seeda", variable="GEC_SEEDA_UTILS", path=utils, what="SEEDA's utils/corr_system.py"
        )
    if not python.exists():
        reference_missing(
            "seeda", variable="GEC_REF_PYTHON", path=python, what="a python with numpy and scipy"
        )
    check = subprocess.run([str(python), "-c", "import scipy, numpy"], capture_output=True)
    if check.returncode:
        reference_missing(
            "seeda", variable="GEC_REF_PYTHON", path=python, what="a python with numpy and scipy"
        )
    return str(python), utils
