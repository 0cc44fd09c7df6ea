"""Where the library's tests find the reference tools they compare with (gec-metrics 0.1.1,
SEEDA's scripts, ...): the folder beside the repository (``../refs``, or ``$GEC_REFS_DIR``),
as ``.ci/run`` installs them. Each tool's own variable (``GEC_GREEN_GECM``, ...) still wins.

A comparison whose tool is absent skips, unless ``GEC_REQUIRE_REFS`` names that tool
(``GEC_REQUIRE_REFS=gec-metrics,seeda``) or is ``1`` (every tool): then it fails, so a run
that lost a tool it installed cannot pass green on the tests that remain. The platform's
``tests/refs.py`` loads this file by its path (the two ``tests`` packages cannot import each
other), so both suites, the benchmarks and the tools follow one copy of the rules; pytest is
imported only to skip or fail, as benchmarks and tools import this too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

PACKAGE_DIR = Path(__file__).resolve().parents[1]
REQUIRE_VARIABLE = "GEC_REQUIRE_REFS"
# Every name GEC_REQUIRE_REFS may hold, in both packages (one value serves both suites).
REFERENCES = ("gec-metrics", "hf-datasets", "ptm2", "seeda")


def refs_dir() -> Path:
    """``$GEC_REFS_DIR``, else ``refs/`` beside the repository (the default of ``.ci/run``)."""
    return Path(os.environ.get("GEC_REFS_DIR") or PACKAGE_DIR.parent.parent / "refs")


def reference_path(variable: str, *parts: str) -> Path:
    """``$variable`` when set, else ``$GEC_REFS_DIR/<parts>``."""
    value = os.environ.get(variable)
    return Path(value) if value else refs_dir().joinpath(*parts)


def refs_required(reference: str) -> bool:
    """Whether ``GEC_REQUIRE_REFS`` (``1``, or names separated by commas) requires ``reference``."""
    import pytest

    value = os.environ.get(REQUIRE_VARIABLE, "")
    names = {name.strip() for name in value.split(",")} - {""}
    unknown = sorted(names - {"1", *REFERENCES})
    if unknown:  # a misspelt name would otherwise require nothing
        pytest.fail(f"{REQUIRE_VARIABLE}={value}: {', '.join(unknown)} is none of {REFERENCES}")
    return "1" in names or reference in names


def reference_missing(reference: str, *, variable: str, path: Path, what: str) -> NoReturn:
    """Skip (or, when ``GEC_REQUIRE_REFS`` requires ``reference``, fail) a test because ``what``
    is not at ``path``."""
    import pytest

    assert reference in REFERENCES, reference
    message = f"{what} is not at {path} (set {variable}, or GEC_REFS_DIR for all the tools)"
    if refs_required(reference):
        required = os.environ.get(REQUIRE_VARIABLE)
        pytest.fail(f"{REQUIRE_VARIABLE}={required} requires the {reference} reference: {message}")
    pytest.skip(message)
