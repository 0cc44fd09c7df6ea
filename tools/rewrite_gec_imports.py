"""Rewrite references to the metric library's old home (`scoring/gec` became the
package `gecscore`, in `gecscore/src/gecscore/`, and `tests/scoring` became `gecscore/tests`).

    python tools/rewrite_gec_imports.py [PATH ...]      # default: every git-tracked text file
    python tools/rewrite_gec_imports.py --check [PATH ...]

Rewrites, in this order (the specific paths before the general ones):

* module names: ``scoring.gec`` -> ``gecscore`` (imports, ``python -m``, mypy overrides, docs);
* file paths: ``scoring/gec/`` -> ``gecscore/src/gecscore/``;
* test paths: ``tests/scoring/`` -> ``gecscore/tests/`` (the two tests that left the library's
  tests, ``english/test_ptm2_en.py`` with ``ptm2_reference.py`` and ``meta/test_reproduce.py``,
  to ``tests/scoring_app/`` and ``tests/benchmarks/``);
* inside ``gecscore/tests/`` only: ``tests.scoring.`` -> ``tests.`` (the test package's name
  there is ``tests``, run from the package directory).

Idempotent: run it again on code merged from a branch that still used the old names, then
``ruff check --select I --fix . && ruff format .`` (import order). It never touches this file
or gecscore/CHANGELOG.md. ``--check`` lists what it would change and exits 1 if anything.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Never rewritten: this file and the changelog, which name the old spellings on purpose.
KEEP = {Path(__file__).resolve(), ROOT / "gecscore" / "CHANGELOG.md"}

# (pattern, replacement); applied in order to every file.
RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"tests([/.])scoring\1english\1(test_ptm2_en|ptm2_reference)\b"),
        r"tests\1scoring_app\1\2",
    ),
    (
        re.compile(r"tests([/.])scoring\1meta\1test_reproduce\b"),
        r"tests\1benchmarks\1test_reproduce",
    ),
    (re.compile(r"(?<![\w/.])tests/scoring(?=/|\b)(?!_)"), "gecscore/tests"),
    (re.compile(r"(?<![\w/.])scoring/gec(?=/|\b)(?!_)"), "gecscore/src/gecscore"),
    (re.compile(r"(?<![\w.])scoring\.gec\b(?!_)"), "gecscore"),
]
# Only inside the library's tests: their package is `tests` when run from gecscore/.
TEST_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\w.])tests\.scoring\.(?!_)"), "tests."),
]
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".c"}
TEXT_NAMES = {"Makefile", "Dockerfile", "run"}


def rewrite(text: str, *, in_library_tests: bool) -> str:
    for pattern, replacement in RULES + (TEST_RULES if in_library_tests else []):
        text = pattern.sub(replacement, text)
    return text


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name]


def wanted(path: Path) -> bool:
    return path.resolve() not in KEEP and (path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="files (default: git-tracked files)")
    parser.add_argument("--check", action="store_true", help="list, change nothing, exit 1 if any")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.paths] or tracked_files()
    library_tests = ROOT / "gecscore" / "tests"
    changed = []
    for path in paths:
        if not path.is_file() or not wanted(path):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, in_library_tests=path.is_relative_to(library_tests))
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for path in changed:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
