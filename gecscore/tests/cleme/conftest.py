"""Read the MuCGEC dev and CoNLL-14 M2 files once per session (ground truth lives in ../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cleme.inputs import read_m2_sentences
from gecscore.cleme.model import Sentence


@pytest.fixture(scope="session")
def mucgec_dir(shared_data: Path) -> Path:
    return shared_data / "mucgec-dev"


@pytest.fixture(scope="session")
def mucgec_refs(mucgec_dir: Path) -> list[Sentence]:
    return read_m2_sentences(mucgec_dir / "MuCGEC_dev.m2")


@pytest.fixture(scope="session")
def mucgec_hyps(mucgec_dir: Path) -> dict[str, list[Sentence]]:
    return {
        system: read_m2_sentences(mucgec_dir / f"{system}_pred_dev.m2")
        for system in ("example", "source", "noop", "oracle1")
    }


@pytest.fixture(scope="session")
def conll_dir(shared_data: Path) -> Path:
    return shared_data / "cleme-conll14"
