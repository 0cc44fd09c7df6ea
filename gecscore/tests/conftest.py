"""Fixtures of the library's tests (run from the package directory: ``cd gecscore && pytest``).

``shared_dir`` / ``shared_data`` point at the ground-truth folder (see ``tests/shared.py``);
no test here uses Django, a database or a broker (tests/core/test_layout.py of the platform
holds that).

Installed without the ``[weighted]`` extra (torch, transformers, bert-score), ``tests/weights/``
is not collected (its modules import torch); the header of the run says so.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.shared import SHARED_DIR, shared_missing


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED_DIR / "data").is_dir():
        shared_missing(f"the ground-truth folder {SHARED_DIR / 'data'} is not present")
    return SHARED_DIR


@pytest.fixture(scope="session")
def shared_data(shared_dir: Path) -> Path:
    return shared_dir / "data"


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


WEIGHTED = _installed("torch", "transformers", "bert_score")
REFFREE = _installed("torch", "transformers", "tokenizers")
collect_ignore = ([] if WEIGHTED else ["weights"]) + ([] if REFFREE else ["reffree"])


def pytest_report_header() -> str:
    weighted = (
        "[weighted] installed"
        if WEIGHTED
        else "[weighted] not installed, tests/weights/ not collected"
    )
    reffree = (
        "[reffree] installed"
        if REFFREE
        else "[reffree] not installed, tests/reffree/ not collected"
    )
    return f"gecscore extras: {weighted}; {reffree}"
