"""Where the platform's tests, benchmarks and tools find the reference tools they compare with
(the PT-M2 checkout, Hugging Face `datasets`, gec-metrics 0.1.1, ...): the folder beside the
repository (`../refs`, or `$GEC_REFS_DIR`), as `.ci/run` installs them. Each tool's own
variable (`GEC_PTM2_REFERENCE`, ...) still wins; a comparison whose tool is absent skips,
unless `GEC_REQUIRE_REFS` names that tool or is `1`: then it fails.

The rules live once, in the library's `gecscore/tests/refs.py`, loaded here by its path: the
two `tests` packages cannot import each other, and a second copy would drift.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_LIBRARY_REFS = Path(__file__).resolve().parents[1] / "gecscore" / "tests" / "refs.py"
_spec = importlib.util.spec_from_file_location("gecscore_tests_refs", _LIBRARY_REFS)
assert _spec is not None and _spec.loader is not None
_library = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_library)

REQUIRE_VARIABLE = _library.REQUIRE_VARIABLE
REFERENCES = _library.REFERENCES
refs_dir = _library.refs_dir
reference_path = _library.reference_path
refs_required = _library.refs_required
reference_missing = _library.reference_missing
