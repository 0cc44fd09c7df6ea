"""benchmarks/reproduce.py regenerates the reproduction report (quick mode, temp output).

The quick report is built once (`quick_report`) and read by one test: the whole report and its
RevisitCGEC section. Tests that share a module fixture can land on both xdist workers, and
each worker builds it (40 s of the suite twice)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def seeda(shared_data: Path) -> Path:
    return shared_data / "seeda"


@pytest.fixture(scope="module")
def reproduce() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import reproduce
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    yield reproduce


@pytest.fixture(scope="module")
def quick_report(
    reproduce: ModuleType, conll14: Path, seeda: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[int, Path, Any, dict[tuple[str, str], dict[str, Any]]]:
    """`reproduce.py --quick` once: exit status, the file written, the RevisitCGEC section's
    report and the library's results it shows."""
    out = tmp_path_factory.mktemp("reproduce") / "reproduction.md"
    code, revisit, results = reproduce.generate(
        ["--quick", "--data", str(conll14.parent), "--output", str(out)]
    )
    return code, out, revisit, results


def test_reproduce_without_data_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "reproduce.py"), "--data", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "has no conll14/ and seeda/ data folders" in done.stderr


@pytest.mark.slow
def test_reproduce_writes_the_report_with_the_librarys_revisitcgec_numbers(  # type: ignore[no-untyped-def]
    shared_data: Path, reproduce: ModuleType, quick_report
) -> None:
    """The report's English rows, then the Chinese section's cells: the library's system
    scores, correlations with their intervals, the ChERRANT check against the reference tool
    and the issue's EW. One test, not two: under xdist two tests of the module ran on both
    workers and each built the 40-second report (the module fixture is per worker)."""
    code, out, report, results = quick_report
    assert code == 0
    whole = out.read_text(encoding="utf-8")
    assert whole.startswith("# Reproduction report")
    assert "| GJG15 | 109098 | max diff 0.0007 (within 0.001)" in whole
    assert "t = 0.399, p = 0.349 (published t = 0.399, p = 0.349: exact)" in whole
    assert "0.758 / 0.769 (issue: 0.758 / 0.769, exact)" in whole
    assert "| edit | base | 0.619 / 0.238 |" in whole

    if not (shared_data / "revisitcgec" / "judgments.xml").is_file():
        pytest.skip("shared/data/revisitcgec is absent (the English rows above passed)")
    from gecscore.meta.revisitcgec_metrics import run

    text = "\n".join(report.lines)
    assert text in whole
    library = run(
        str(shared_data / "revisitcgec"),
        corpus="yaclc",
        yaclc_refs="fluency",
        resources_dir=str(shared_data / "cherrant-resources"),
        method="ew",
        bootstrap=1000,
    )
    assert library["systems"] == results["yaclc", "fluency"]["systems"]
    for label in library["metrics"]:
        row = reproduce.revisit_correlation_row(label, library["correlation"])
        assert "| " + " | ".join(row) + " |" in text
        for scores in library["systems"].values():
            assert f"{scores[label]:.4f}" in text
    for system, value in reproduce.REVISIT_EW.items():
        assert f"| {system} |" in text and f"| {value} | exact |" in text
    assert text.count(" exact |") >= 6 and " differs" not in text
    assert reproduce.revisit_reading(results) in text
