"""Tiny random models (real vocabularies built from the SEEDA sentences) and gec-metrics 0.1.1
run in its own virtualenv, for the equality tests of the model-based metrics.

The reference virtualenv is ``$GEC_REF_GECMETRICS`` (default ``$GEC_REFS_DIR/gec-metrics``, as
``.ci/run`` makes it: ``pip install torch==2.13.0`` then ``gec-metrics==0.1.1``); without it
the equality tests compare with the numbers it gave, recorded in the tests, unless
``GEC_REQUIRE_REFS`` requires gec-metrics (tests/refs.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, NoReturn

import pytest

from gecscore.weights.random_model import build_random_bert, build_random_gpt2
from tests.refs import reference_missing, reference_path, refs_required

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REF_VENV = reference_path("GEC_REF_GECMETRICS", "gec-metrics")
RUNNER = Path(__file__).with_name("gecmetrics_runner.py")
# SEEDA lines (0-based) scored: the first 24 and the two with non-ASCII characters.
LINES = [*range(24), 100, 334]
SYSTEMS = ("REF-F", "GECToR-BERT", "TemplateGEC", "PIE", "BART", "GPT-3.5")


def reference_python() -> Path | None:
    """gec-metrics 0.1.1's python, or None when it is absent (the test then checks the recorded
    numbers); when GEC_REQUIRE_REFS requires gec-metrics, an absent one fails the test."""
    python = REF_VENV / "bin" / "python"
    if python.is_file():
        return python
    if refs_required("gec-metrics"):
        _reference_missing()
    return None


def _reference_missing() -> NoReturn:
    reference_missing(
        "gec-metrics",
        variable="GEC_REF_GECMETRICS",
        path=REF_VENV / "bin" / "python",
        what="gec-metrics 0.1.1's python",
    )


def run_reference(request: dict[str, Any]) -> dict[str, Any]:
    """gec-metrics 0.1.1's answer to ``request`` (see gecmetrics_runner.py)."""
    python = reference_python()
    if python is None:
        _reference_missing()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    done = subprocess.run(
        [str(python), str(RUNNER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"reference run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="session")
def seeda(shared_data: Path) -> dict[str, list[str]]:
    """SEEDA subset lines: INPUT and the systems of SYSTEMS (the lines of LINES)."""
    folder = shared_data / "seeda" / "outputs" / "subset"
    return {name: [_read(folder / f"{name}.txt")[i] for i in LINES] for name in ("INPUT", *SYSTEMS)}


@pytest.fixture(scope="session")
def pairs(seeda: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(sources, hypotheses): INPUT against REF-F, GECToR-BERT and TemplateGEC."""
    sources, hypotheses = [], []
    for system in SYSTEMS[:3]:
        sources += seeda["INPUT"]
        hypotheses += seeda[system]
    return sources, hypotheses


@pytest.fixture(scope="session")
def texts(seeda: dict[str, list[str]]) -> list[str]:
    return [line for lines in seeda.values() for line in lines]


@pytest.fixture(scope="session")
def regressors(tmp_path_factory: pytest.TempPathFactory, texts: list[str]) -> dict[str, Path]:
    """Three tiny BERT regressors (one output) and one tiny BERT encoder."""
    root = tmp_path_factory.mktemp("tiny-regressors")
    models = {
        name: build_random_bert(root / name, texts, seed=seed, head="regression")
        for seed, name in enumerate(("g", "f", "m", "qe"), start=1)
    }
    models["se"] = build_random_bert(root / "se", texts, seed=5)
    return models


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory, texts: list[str]) -> Path:
    return build_random_gpt2(tmp_path_factory.mktemp("tiny-gpt2"), texts, seed=3)


@pytest.fixture(scope="session")
def tiny_chat_lm(tmp_path_factory: pytest.TempPathFactory, texts: list[str]) -> Path:
    """A tiny GPT-2 with room for a judge prompt (1,024 positions)."""
    return build_random_gpt2(
        tmp_path_factory.mktemp("tiny-chat-lm"), texts, seed=4, n_positions=1024
    )
