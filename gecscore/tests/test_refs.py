"""tests/refs.py: where the library's tests find the reference tools, and the GEC_REQUIRE_REFS
switch that turns a missing one from a skip into a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import refs

PACKAGE = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_reference_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEC_REFS_DIR", "GEC_REQUIRE_REFS", "GEC_GREEN_GECM"):
        monkeypatch.delenv(name, raising=False)


def test_default_is_refs_beside_the_repository() -> None:
    assert (PACKAGE / "pyproject.toml").is_file()  # gecscore/, inside the repository
    repository = PACKAGE.parent
    assert refs.refs_dir() == repository.parent / "refs"
    assert refs.reference_path("GEC_GREEN_GECM", "gec-metrics") == (
        repository.parent / "refs" / "gec-metrics"
    )


def test_gec_refs_dir_and_then_the_tools_own_variable_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEC_REFS_DIR", str(tmp_path))
    assert refs.refs_dir() == tmp_path
    assert refs.reference_path("GEC_GREEN_GECM", "gec-metrics") == tmp_path / "gec-metrics"
    assert refs.reference_path("GEC_DROPIN_REFS") == tmp_path
    monkeypatch.setenv("GEC_GREEN_GECM", str(tmp_path / "elsewhere"))
    assert refs.reference_path("GEC_GREEN_GECM", "gec-metrics") == tmp_path / "elsewhere"


def _missing() -> tuple[str, str]:
    """("skip" or "fail", the message) of reference_missing, never letting either escape (a
    skip where a failure is due must fail this test, not skip it)."""
    try:
        refs.reference_missing(
            "gec-metrics", variable="GEC_GREEN_GECM", path=Path("/no/gecm"), what="gec-metrics"
        )
    except pytest.skip.Exception as skipped:
        return "skip", str(skipped)
    except pytest.fail.Exception as failed:
        return "fail", str(failed)
    raise AssertionError("reference_missing returned")


@pytest.mark.parametrize("required", [None, "", "hf-datasets,seeda"])
def test_an_absent_reference_skips_unless_required(
    monkeypatch: pytest.MonkeyPatch, required: str | None
) -> None:
    if required is not None:
        monkeypatch.setenv("GEC_REQUIRE_REFS", required)
    assert _missing() == (
        "skip",
        "gec-metrics is not at /no/gecm (set GEC_GREEN_GECM, or GEC_REFS_DIR for all the tools)",
    )
    assert not refs.refs_required("gec-metrics")


@pytest.mark.parametrize("required", ["1", "gec-metrics", "hf-datasets, gec-metrics"])
def test_an_absent_reference_fails_when_required(
    monkeypatch: pytest.MonkeyPatch, required: str
) -> None:
    monkeypatch.setenv("GEC_REQUIRE_REFS", required)
    assert _missing() == (
        "fail",
        f"GEC_REQUIRE_REFS={required} requires the gec-metrics reference: gec-metrics is not at "
        "/no/gecm (set GEC_GREEN_GECM, or GEC_REFS_DIR for all the tools)",
    )
    assert refs.refs_required("gec-metrics")


def test_a_misspelt_required_name_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEC_REQUIRE_REFS", "gecmetrics")
    outcome, message = _missing()
    assert outcome == "fail" and "gecmetrics is none of" in message
