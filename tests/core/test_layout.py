"""The metric library is a package of its own (gecscore/) and stays Django-free: its source
`gecscore/src/gecscore/` and its tests `gecscore/tests/` (which `make test` and `.ci/run` run
from the package directory, and `.ci/run` again in a virtualenv without Django). And the
platform's exact pins (requirements.txt) lie inside the package's own dependency ranges, so
installing the package into the platform's environment changes nothing.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

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


def _pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s#]+)", line)
        if match:
            pins[match[1].lower().replace("_", "-")] = match[2]
    return pins


def test_the_platform_pins_satisfy_the_package_dependencies() -> None:
    project = tomllib.loads((REPO / "gecscore" / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    declared = [
        *project["dependencies"],
        *extras["errant"],
        *extras["weighted"],
        *extras["reffree"],
    ]
    pins = _pins()
    problems = []
    for text in declared:
        requirement = Requirement(text)
        pin = pins.get(requirement.name.lower())
        if pin is None or pin not in requirement.specifier:
            problems.append(f"{text}: requirements.txt pins {pin}")
    assert not problems, "\n".join(problems)
    # The core install stays small: the heavy libraries are extras only.
    core = {Requirement(text).name for text in project["dependencies"]}
    assert not core & {"torch", "transformers", "bert-score", "spacy", "errant"}
