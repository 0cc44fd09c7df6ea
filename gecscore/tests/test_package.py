"""The installed package: one version (pyproject.toml) everywhere it is printed, the console
command and ``python -m gecscore`` as one command line."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import gecscore
from tests.shared import PACKAGE_DIR

PYPROJECT_VERSION = tomllib.loads((PACKAGE_DIR / "pyproject.toml").read_text())["project"][
    "version"
]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_the_version_is_the_one_in_pyproject() -> None:
    assert version("gecscore") == PYPROJECT_VERSION
    assert gecscore.__version__ == PYPROJECT_VERSION
    changelog = (PACKAGE_DIR / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {PYPROJECT_VERSION} " in changelog


def test_console_command_and_module_print_the_version() -> None:
    command = Path(sys.executable).with_name("gecscore")
    for argv in ([str(command), "--version"], [sys.executable, "-m", "gecscore", "--version"]):
        done = _run(*argv)
        assert (done.returncode, done.stdout, done.stderr) == (
            0,
            f"gecscore {PYPROJECT_VERSION}\n",
            "",
        )


def test_console_command_runs_a_subcommand(tmp_path: Path) -> None:
    m2 = tmp_path / "a.m2"
    m2.write_text("S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    done = _run(
        str(Path(sys.executable).with_name("gecscore")),
        "compare",
        "--hyp",
        str(m2),
        "--ref",
        str(m2),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert '"score": 1.0' in done.stdout
    usage = _run(str(Path(sys.executable).with_name("gecscore")), "compare")
    assert usage.returncode == 2 and usage.stderr.startswith("usage: gecscore compare ")


def test_version_from_an_uninstalled_source_tree_is_a_message(tmp_path: Path) -> None:
    # -S: no site-packages, so no installed distribution's metadata; a copy of the source
    # package is on PYTHONPATH (the checkout's src/ holds the egg-info of an editable
    # install, which is metadata). The version exists only in an installed distribution.
    source = tmp_path / "src"
    shutil.copytree(
        PACKAGE_DIR / "src" / "gecscore",
        source / "gecscore",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    done = subprocess.run(
        [sys.executable, "-S", "-m", "gecscore", "--version"],
        env={"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"},
        cwd=source.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.startswith("error: gecscore is not installed")
        and "Traceback" not in done.stderr
    )


def test_no_module_of_the_package_is_over_500_lines() -> None:
    """Modules are split by concern; this keeps them so."""
    long = {
        str(path.relative_to(PACKAGE_DIR)): n
        for path in (PACKAGE_DIR / "src" / "gecscore").rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert long == {}
