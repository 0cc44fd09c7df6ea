"""The per-worker environment of a parallel run (`make test` = pytest -n 2, tests/parallel.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.parallel import REPO_ROOT, thread_limits, worker_env


def test_each_worker_gets_its_own_folder_and_redis_database() -> None:
    environ = {"REDIS_URL": "redis://127.0.0.1:6379/14"}
    first, second = worker_env(0, environ), worker_env(1, environ)
    assert first == {
        "GEC_VAR_DIR": str(REPO_ROOT / "var" / "xdist" / "w0"),
        "REDIS_URL": "redis://127.0.0.1:6379/14",
    }
    assert second["GEC_VAR_DIR"] == str(REPO_ROOT / "var" / "xdist" / "w1")
    assert second["REDIS_URL"] == "redis://127.0.0.1:6379/15"


def test_explicit_folders_get_the_worker_appended_and_no_redis_stays_none(tmp_path: Path) -> None:
    environ = {
        "GEC_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_MEDIA_ROOT": str(tmp_path / "media"),
        "GEC_WEIGHT_CACHE_DIR": str(tmp_path / "weights"),
    }
    assert worker_env(1, environ) == {
        "GEC_VAR_DIR": str(tmp_path / "var" / "xdist" / "w1"),
        "DJANGO_MEDIA_ROOT": str(tmp_path / "media" / "w1"),
        "GEC_WEIGHT_CACHE_DIR": str(tmp_path / "weights" / "w1"),
    }
    assert worker_env(0, {"REDIS_URL": "redis://h:1"})["REDIS_URL"] == "redis://h:1/0"


def test_a_worker_past_the_last_redis_database_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match=r"REDIS_URL=redis://h/15: .* worker 1 .* database 16"):
        worker_env(1, {"REDIS_URL": "redis://h/15"})


def test_workers_share_the_cores_for_compute_threads_and_a_set_variable_is_kept() -> None:
    assert thread_limits(2, 2, {}) == {
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    assert thread_limits(2, 8, {})["OMP_NUM_THREADS"] == "4"
    assert thread_limits(4, 2, {})["OMP_NUM_THREADS"] == "1"
    assert thread_limits(2, 2, {"OMP_NUM_THREADS": "3"}) == {
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }


def test_an_xdist_worker_runs_with_the_thread_limit() -> None:
    """In `make test` (-n 2) the worker running this test got the limit from the controller."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("not an xdist worker (run with -n 2)")
    import torch

    expected = os.environ["OMP_NUM_THREADS"]
    assert int(expected) >= 1
    assert torch.get_num_threads() == int(expected)
