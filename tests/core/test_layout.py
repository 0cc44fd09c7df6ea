"""The Django-free parts stay Django-free: `gecscore/src/gecscore/` (the metric library) and its tests
`gecscore/tests/`. `.ci/run` relies on the second: the service-backed run leaves `gecscore/tests/`
out, which loses nothing only while no test there touches Django, a database or a broker."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _django_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found += [
            f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)} imports {n}"
            for n in names
            if n.split(".")[0] in {"django", "rest_framework", "celery", "redis"}
        ]
        if isinstance(node, ast.Attribute) and node.attr == "django_db":
            found.append(f"{path.relative_to(REPO)}:{node.lineno} uses the django_db mark")
        if isinstance(node, ast.arg) and node.arg in {
            "db",
            "transactional_db",
            "settings",
            "client",
            "django_db_setup",
        }:
            found.append(f"{path.relative_to(REPO)}:{node.lineno} takes the {node.arg!r} fixture")
    return found


@pytest.mark.parametrize("folder", ["gecscore/src/gecscore", "gecscore/tests"])
def test_folder_never_uses_django(folder: str) -> None:
    files = sorted((REPO / folder).rglob("*.py"))
    assert len(files) > 20
    problems = [problem for path in files for problem in _django_uses(path)]
    assert not problems, "\n".join(problems)
