"""The apps reach the metric library through its public API (``from gecscore import ...``:
``get_metric(name)(Config).score_corpus(...)`` -> ``Result`` and the names of
``gecscore.__all__``), as a user of the package does (docs/architecture.md).

The check is the grep ``grep -rn "from gecscore\\." scoring publishing judgments datasets
annotate review core`` made exact with ``ast``: every ``from gecscore.X import ...`` or
``import gecscore.X`` in those folders (migrations included, multi-line imports by their first
line) carries a one-line reason, a ``#`` comment on the import's line or on the line above it.
The planted-file tests show the check fails on a deep import without one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The folders of the done-when grep: every Django app that may use the library.
APPS = ("scoring", "publishing", "judgments", "datasets", "annotate", "review", "core")


def _deep_imports(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, module) of each import of a module below ``gecscore``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            if module.startswith("gecscore."):
                found.append((node.lineno, node.end_lineno or node.lineno, module))
    return found


def _has_reason(lines: list[str], first: int, last: int) -> bool:
    """A comment on the import's first or last line, or a comment line just above it."""
    if any("#" in lines[number - 1] for number in (first, last)):
        return True
    above = lines[first - 2].strip() if first >= 2 else ""
    return above.startswith("#") and len(above) > 1


def deep_import_problems(files: list[Path], root: Path) -> list[str]:
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for first, last, module in _deep_imports(ast.parse(text, filename=str(path))):
            if not _has_reason(lines, first, last):
                problems.append(
                    f"{path.relative_to(root)}:{first} imports {module} (use `from gecscore "
                    "import ...`, export the name, or say why on the line or above it)"
                )
    return problems


def app_files(root: Path) -> list[Path]:
    return [path for app in APPS for path in sorted((root / app).rglob("*.py"))]


def test_the_apps_use_the_public_api_or_say_why() -> None:
    files = app_files(REPO)
    assert len(files) > 100, "the apps' Python files were not found"
    problems = deep_import_problems(files, REPO)
    assert not problems, "\n".join(problems)


def test_the_reasons_name_modules_that_exist() -> None:
    """Each kept deep import resolves: the reason is about a module, not a stale line."""
    import importlib

    for path in app_files(REPO):
        for _, _, module in _deep_imports(ast.parse(path.read_text(encoding="utf-8"))):
            importlib.import_module(module)


@pytest.mark.parametrize(
    "source",
    [
        "from gecscore.m2 import parse_m2\n",
        "import gecscore.m2\n",
        "from gecscore.meta.judgments import (\n    JudgmentSet,\n    RankingResult,\n)\n",
        "def load():\n    from gecscore.cleme.scorers import cleme\n    return cleme\n",
        "import os\n\nfrom gecscore.errors import decode_utf8\n",
    ],
)
def test_a_planted_deep_import_without_a_reason_fails(tmp_path: Path, source: str) -> None:
    planted = tmp_path / "scoring" / "_planted_for_test.py"
    planted.parent.mkdir()
    planted.write_text(source, encoding="utf-8")
    problems = deep_import_problems(app_files(tmp_path), tmp_path)
    assert len(problems) == 1 and problems[0].startswith("scoring/_planted_for_test.py:")


@pytest.mark.parametrize(
    "source",
    [
        "from gecscore import Result, get_metric\n",
        "from gecscore.boundedio import Source  # upload plumbing, not API\n",
        "# Worker functions, pickled by name.\nfrom gecscore.extract import m2_block_texts\n",
        "from gecscore.meta.judgments import (\n    JudgmentSet,\n)  # the harness\n",
    ],
)
def test_the_public_api_or_a_reason_passes(tmp_path: Path, source: str) -> None:
    planted = tmp_path / "datasets" / "_planted_for_test.py"
    planted.parent.mkdir()
    planted.write_text(source, encoding="utf-8")
    assert deep_import_problems(app_files(tmp_path), tmp_path) == []
