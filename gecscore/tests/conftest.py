"""Fixtures of the library's tests (run from the package directory: ``cd gecscore && pytest``).

``shared_dir`` / ``shared_data`` point at the ground-truth folder (see ``tests/shared.py``);
no test here uses Django, a database or a broker (tests/core/test_layout.py of the platform
holds that).

Installed without the ``[weighted]`` extra (torch, transformers, bert-score), ``tests/weights/``
is not collected (its modules import torch); the header of the run says so.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


# --- parallel runs (`pytest -n 2`) -------------------------------------------------------------
# torch and BLAS start one compute thread per core in every process. With two xdist workers on
# two cores their spinning threads fight: tests/weights/ took 70 s instead of 16 s. Each worker
# gets its share of the cores unless the caller set the variable. (The platform's suite has the
# same rule in its tests/parallel.py; the two `tests` packages cannot import each other.)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def thread_limits(workers: int, cores: int, environ: Mapping[str, str]) -> dict[str, str]:
    threads = str(max(1, cores // max(1, workers)))
    return {name: threads for name in THREAD_VARIABLES if name not in environ}


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    limits = thread_limits(len(specs), available_cores(), os.environ)
    for spec in specs:
        spec.env.update(limits)
