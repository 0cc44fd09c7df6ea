"""tests/refs.py: where the platform's tests, benchmarks and tools find the reference tools, and
the GEC_REQUIRE_REFS switch that turns a missing one from a skip into a failure."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

from tests import refs

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_reference_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEC_REFS_DIR", "GEC_REQUIRE_REFS", "GEC_PTM2_REFERENCE"):
        monkeypatch.delenv(name, raising=False)


def test_default_is_refs_beside_the_repository_as_ci_run_has_it() -> None:
    assert (REPO / "manage.py").is_file()
    assert refs.refs_dir() == REPO.parent / "refs"
    assert refs.reference_path("GEC_PTM2_REFERENCE", "ptm2") == REPO.parent / "refs" / "ptm2"
    # .ci/run runs from the repository root: its `..` is the repository's parent.
    assert 'GEC_REFS_DIR="${GEC_REFS_DIR:-$(cd .. && pwd)/refs}"' in (REPO / ".ci/run").read_text()


def test_gec_refs_dir_and_then_the_tools_own_variable_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEC_REFS_DIR", str(tmp_path))
    assert refs.refs_dir() == tmp_path
    assert refs.reference_path("GEC_PTM2_REFERENCE", "ptm2") == tmp_path / "ptm2"
    assert refs.reference_path("GEC_DROPIN_REFS") == tmp_path
    monkeypatch.setenv("GEC_PTM2_REFERENCE", str(tmp_path / "elsewhere"))
    assert refs.reference_path("GEC_PTM2_REFERENCE", "ptm2") == tmp_path / "elsewhere"


def _missing() -> tuple[str, str]:
    """("skip" or "fail", the message) of reference_missing, never letting either escape (a
    skip where a failure is due must fail this test, not skip it)."""
    try:
        refs.reference_missing(
            "ptm2", variable="GEC_PTM2_REFERENCE", path=Path("/no/ptm2"), what="the PT-M2 checkout"
        )
    except pytest.skip.Exception as skipped:
        return "skip", str(skipped)
    except pytest.fail.Exception as failed:
        return "fail", str(failed)
    raise AssertionError("reference_missing returned")


@pytest.mark.parametrize("required", [None, "", "gec-metrics,hf-datasets"])
def test_an_absent_reference_skips_unless_required(
    monkeypatch: pytest.MonkeyPatch, required: str | None
) -> None:
    if required is not None:
        monkeypatch.setenv("GEC_REQUIRE_REFS", required)
    assert _missing() == (
        "skip",
        "the PT-M2 checkout is not at /no/ptm2 (set GEC_PTM2_REFERENCE, or GEC_REFS_DIR for all "
        "the tools)",
    )


@pytest.mark.parametrize("required", ["1", "ptm2", "gec-metrics, ptm2"])
def test_an_absent_reference_fails_when_required(
    monkeypatch: pytest.MonkeyPatch, required: str
) -> None:
    monkeypatch.setenv("GEC_REQUIRE_REFS", required)
    assert _missing() == (
        "fail",
        f"GEC_REQUIRE_REFS={required} requires the ptm2 reference: the PT-M2 checkout is not "
        "at /no/ptm2 (set GEC_PTM2_REFERENCE, or GEC_REFS_DIR for all the tools)",
    )


def test_a_misspelt_required_name_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEC_REQUIRE_REFS", "gec-metric,ptm2")
    outcome, message = _missing()
    assert outcome == "fail" and "gec-metric is none of" in message


def test_the_library_tests_know_the_same_reference_names() -> None:
    # gecscore/tests/refs.py cannot be imported as `tests.refs` here (that is this module).
    spec = importlib.util.spec_from_file_location("library_refs", REPO / "gecscore/tests/refs.py")
    assert spec is not None and spec.loader is not None
    library = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(library)
    assert library.REFERENCES == refs.REFERENCES
    assert library.refs_dir() == refs.refs_dir()
    # .ci/run requires only names both helpers know.
    required = re.search(r"export GEC_REQUIRE_REFS=(\S+)", (REPO / ".ci/run").read_text())
    assert required is not None
    assert set(required.group(1).split(",")) <= set(refs.REFERENCES)


def test_no_absolute_folder_of_one_machine_for_references_or_ground_truth() -> None:
    # Built from parts so that this file is not an offender itself.
    machine_folders = tuple("/".join(("", "work", name)) for name in ("refs", "shared"))
    files = sorted(REPO.glob("*.md"))
    for folder in ("tests", "benchmarks", "tools", "docs", "gecscore", ".ci"):
        files += sorted(
            path
            for path in (REPO / folder).rglob("*")
            if path.suffix in (".py", ".md", ".sh")
            and not {"build", "dist"} & set(path.relative_to(REPO).parts)  # build outputs
        )
    files.append(REPO / ".ci" / "run")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(folder in line for folder in machine_folders)
    ]
    assert offenders == []


def _own_text_files() -> list[Path]:
    """The project's own text: product, tests, docs, benchmarks, gecscore, .ci and the Makefile;
    not the virtual environment, run-time folders, build outputs or recorded tool outputs."""
    # shared/: the reference specifications and ground truth, third-party text.
    skipped_folders = {
        ".git",
        ".venv",
        "var",
        "artifacts",
        "staticfiles",
        "build",
        "dist",
        "shared",
    }
    skipped_folders |= {
        "__pycache__",
        "node_modules",
        ".ruff_cache",
        ".pytest_cache",
        ".mypy_cache",
    }
    recorded = {REPO / "gecscore/tests/dropin", REPO / "gecscore/tests/english/data"}
    suffixes = {".py", ".pyi", ".md", ".html", ".js", ".css", ".sh", ".toml", ".txt", ".c"}
    suffixes |= {".yaml", ".yml", ".in"}
    files = []
    for folder, subfolders, names in os.walk(REPO):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if name not in skipped_folders
            and not name.endswith(".egg-info")
            and Path(folder, name) not in recorded
        )
        files += [
            Path(folder, name)
            for name in sorted(names)
            if Path(name).suffix in suffixes
            or name in ("Makefile", "Dockerfile")
            or Path(folder, name) == REPO / ".ci" / "run"
        ]
    return files


def test_no_tracker_issue_number_in_code_tests_or_docs() -> None:
    # Readers cannot see the tracker: a comment, docstring or doc says the reason in words.
    issue = re.compile(r"[Ii]ssues? #?[0-9]+")
    files = _own_text_files()
    assert REPO / "Makefile" in files and REPO / ".ci" / "run" in files
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in files
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1
        )
        if issue.search(line)
    ]
    assert offenders == []
