"""Where the library's tests find the ground truth: the read-only folder beside the repository
(``../shared``, or ``$GEC_SHARED_DIR``), which the package itself never reads.

A test whose data is absent skips, unless ``GEC_REQUIRE_SHARED=1`` (as ``.ci/run`` sets):
then it fails, so a run that lost the data cannot pass green on the tests that remain.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("GEC_SHARED_DIR", PACKAGE_DIR.parent.parent / "shared"))


def shared_missing(what: str) -> NoReturn:
    """Skip (or, under GEC_REQUIRE_SHARED=1, fail) a test because ``what`` is not there."""
    message = f"{what} (ground truth from {SHARED_DIR}; set GEC_SHARED_DIR)"
    if os.environ.get("GEC_REQUIRE_SHARED") == "1":
        pytest.fail(f"GEC_REQUIRE_SHARED=1 and {message}")
    pytest.skip(message)
