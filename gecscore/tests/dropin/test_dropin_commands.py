"""The drop-in commands as installed: console scripts declared in pyproject.toml and present
after ``pip install``, each runnable with ``python -m``, refusing what it cannot reproduce."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.shared import PACKAGE_DIR

SCRIPTS = tomllib.loads((PACKAGE_DIR / "pyproject.toml").read_text())["project"]["scripts"]
DROPIN = {
    "gecscore-cherrant-parallel-to-m2": "gecscore.dropin.cherrant_parallel",
    "gecscore-cherrant-compare": "gecscore.dropin.cherrant_compare",
    "gecscore-errant-parallel": "gecscore.dropin.errant_parallel",
    "gecscore-errant-compare": "gecscore.dropin.errant_compare",
    "gecscore-m2scorer": "gecscore.dropin.m2scorer",
}
M2 = "S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\n"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, env=env)


def test_pyproject_declares_every_dropin_script_and_each_resolves() -> None:
    for script, module in DROPIN.items():
        assert SCRIPTS[script] == f"{module}:entry"
        assert callable(importlib.import_module(module).entry)
    # None may shadow errant's own console scripts.
    assert not {"errant_parallel", "errant_compare", "errant_m2"} & set(SCRIPTS)


def test_installed_distribution_has_the_console_scripts() -> None:
    installed = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    if "gecscore-m2scorer" not in installed:
        pytest.skip("the installed gecscore predates the drop-in commands: pip install it again")
    for script, module in DROPIN.items():
        assert installed[script] == f"{module}:entry"
        assert Path(sys.executable).with_name(script).exists()


@pytest.mark.parametrize("module", sorted(DROPIN.values()))
def test_python_m_runs_each_command(module: str) -> None:
    done = _run(sys.executable, "-m", module, "--help")
    if module.endswith("m2scorer"):  # getopt, as m2scorer: --help is an unknown option
        assert done.returncode == 2 and "Usage: m2scorer.py" in done.stderr
    else:
        assert done.returncode == 0 and done.stdout.startswith("usage: "), done.stderr


def test_compare_commands_run_as_modules(tmp_path: Path) -> None:
    m2 = tmp_path / "a.m2"
    m2.write_text(M2, encoding="utf-8")
    for module in ("gecscore.dropin.cherrant_compare", "gecscore.dropin.errant_compare"):
        done = _run(sys.executable, "-m", module, "-hyp", str(m2), "-ref", str(m2))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[2:4] == [
            "TP\tFP\tFN\tPrec\tRec\tF0.5",
            "1\t0\t0\t1.0\t1.0\t1.0",
        ]
    system = tmp_path / "sys.txt"
    system.write_text("x b c\n", encoding="utf-8")
    done = _run(sys.executable, "-m", "gecscore.dropin.m2scorer", str(system), str(m2))
    assert (done.returncode, done.stdout) == (
        0,
        "Precision   : 1.0000\nRecall      : 1.0000\nF_0.5       : 1.0000\n",
    )


@pytest.mark.parametrize(
    ("module", "argv", "says"),
    [
        ("gecscore.dropin.cherrant_parallel", ["-g", "word"], "-g word"),
        ("gecscore.dropin.cherrant_parallel", ["--segmented"], "--segmented"),
        ("gecscore.dropin.cherrant_parallel", ["--bpe"], "--bpe"),
        ("gecscore.dropin.m2scorer", ["--very_verbose", "S", "G"], "--very_verbose"),
        ("gecscore.dropin.cherrant_compare", ["--max_answer_num", "4"], "--max_answer_num 4"),
        # The references crash (ZeroDivisionError) at -b 0 and print an F that is not F-beta at
        # -b inf or nan.
        ("gecscore.dropin.cherrant_compare", ["-b", "inf"], "beta must be a positive finite"),
        ("gecscore.dropin.errant_compare", ["-b", "0"], "beta must be a positive finite"),
    ],
)
def test_what_cannot_be_reproduced_is_refused(
    module: str, argv: list[str], says: str, tmp_path: Path
) -> None:
    m2 = tmp_path / "a.m2"
    m2.write_text(M2, encoding="utf-8")
    if module.endswith("cherrant_parallel"):
        argv = ["-f", str(m2), "-o", str(tmp_path / "out.m2"), *argv]
    elif module.endswith("_compare"):
        argv = ["-hyp", str(m2), "-ref", str(m2), *argv]
    done = _run(sys.executable, "-m", module, *argv)
    assert done.returncode == 2
    assert says in done.stderr and done.stdout == ""


def test_m2scorer_reads_gzipped_files_as_m2scorer_does(tmp_path: Path) -> None:
    import gzip

    system, gold = tmp_path / "sys.txt", tmp_path / "gold.m2"
    system.write_text("x b c\n", encoding="utf-8")
    gold.write_text(M2, encoding="utf-8")
    for path in (system, gold):
        with gzip.open(f"{path}.gz", "wb") as handle:
            handle.write(path.read_bytes())
    plain = _run(sys.executable, "-m", "gecscore.dropin.m2scorer", "-v", str(system), str(gold))
    zipped = _run(
        sys.executable, "-m", "gecscore.dropin.m2scorer", "-v", f"{system}.gz", f"{gold}.gz"
    )
    assert plain.returncode == 0 and "CORRECT EDITS  : 1" in plain.stdout
    assert (zipped.returncode, zipped.stdout) == (0, plain.stdout)
