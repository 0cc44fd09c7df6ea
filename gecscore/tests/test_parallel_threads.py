"""`pytest -n 2`: each xdist worker gets its share of the cores for compute threads
(tests/conftest.py, ``pytest_xdist_setupnodes``)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import thread_limits


def test_workers_share_the_cores_and_a_variable_the_caller_set_is_kept() -> None:
    assert thread_limits(2, 2, {}) == {
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    assert thread_limits(2, 8, {})["MKL_NUM_THREADS"] == "4"
    assert thread_limits(3, 2, {})["OPENBLAS_NUM_THREADS"] == "1"
    assert "OMP_NUM_THREADS" not in thread_limits(2, 2, {"OMP_NUM_THREADS": "2"})


def test_an_xdist_worker_has_the_limit_in_its_environment() -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("not an xdist worker (run with -n 2)")
    assert int(os.environ["OMP_NUM_THREADS"]) >= 1
    assert os.environ["OMP_NUM_THREADS"] == os.environ["OPENBLAS_NUM_THREADS"]
