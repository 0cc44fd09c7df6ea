"""Suite-wide fixtures.

`shared_dir` points at the read-only ground-truth folder that lives beside the
repository (`../shared`). Tests and benchmarks may read it; the product never does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("GEC_SHARED_DIR", REPO_ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED_DIR / "data").is_dir():
        pytest.skip(f"ground-truth folder {SHARED_DIR} is not present (set GEC_SHARED_DIR)")
    return SHARED_DIR


@pytest.fixture(scope="session")
def shared_data(shared_dir: Path) -> Path:
    return shared_dir / "data"
