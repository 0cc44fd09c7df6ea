"""``python -m gecscore meta ...``: the JSON shapes the issue fixes, compute mode, errors."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gecscore.cli import main


def _meta(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gecscore", "meta", *args], capture_output=True, text=True
    )


def _json(*args: str) -> Any:
    """``python -m gecscore meta ... --json`` in this process (``main`` is what ``-m gecscore``
    runs; a subprocess per call paid the interpreter's and the library's start-up). The
    exit-status and stderr checks below keep their real subprocess."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["meta", *args, "--json"]) == 0
    return json.loads(out.getvalue())


def test_system_json_with_williams_bootstrap_and_window(conll14: Path) -> None:
    published = conll14 / "published_scores" / "system"
    report = _json(
        "system",
        "--human",
        str(conll14 / "human" / "expected_wins.txt.gz"),
        "--metric",
        f"M2={published / 'm2score.txt.gz'}",
        "--metric",
        f"GLEU={published / 'gleu.txt.gz'}",
        "--williams",
        "--bootstrap",
        "100",
        "--window",
        "8",
    )
    assert report["n_systems"] == 13
    m2 = report["metrics"]["M2"]
    assert (round(m2["pearson"], 3), round(m2["spearman"], 3)) == (0.623, 0.687)
    low, high = m2["pearson_ci"]
    assert low < m2["pearson"] < high
    assert len(m2["window"]) == 6
    assert round(report["williams"]["GLEU"]["M2"], 3) == 0.349
    assert report["williams"]["M2"]["GLEU"] is None  # not tested: |r(M2)| < |r(GLEU)|


def test_system_exclude_input(conll14: Path) -> None:
    report = _json(
        "system",
        "--human",
        str(conll14 / "human" / "trueskill.txt.gz"),
        "--metric",
        f"M2={conll14 / 'published_scores' / 'system' / 'm2score.txt.gz'}",
        "--exclude",
        "INPUT",
    )
    assert report["n_systems"] == 12
    assert "INPUT" not in report["systems"]


def test_system_compute_m2_on_seeda_subset(seeda: Path, conll14: Path) -> None:
    """Compute our M2 / SentM2 on SEEDA's outputs and meta-evaluate them in one call."""
    report = _json(
        "system",
        "--human",
        str(seeda / "scores" / "human" / "EW_edit.txt"),
        "--systems",
        "base",
        "--compute",
        "m2",
        "sentm2",
        "--outputs",
        str(seeda / "outputs" / "subset"),
        "--gold",
        str(conll14 / "conll14st-test.m2"),
        "--lines",
        str(seeda / "subset_conll14_lines.txt"),
        "--bootstrap-sentences",
        "50",
    )
    metrics = report["metrics"]
    low, high = metrics["m2"]["pearson_ci_sentences"]
    assert low < metrics["m2"]["pearson"] < high
    assert report["n_systems"] == 12
    assert (round(metrics["m2"]["pearson"], 3), round(metrics["m2"]["spearman"], 3)) == (
        0.758,
        0.769,
    )
    assert (round(metrics["sentm2"]["pearson"], 3), round(metrics["sentm2"]["spearman"], 3)) == (
        0.871,
        0.846,
    )


def test_sentence_json_wmt(conll14: Path) -> None:
    report = _json(
        "sentence",
        "--judgments",
        str(conll14 / "human" / "expanded.csv.gz"),
        "--metric",
        f"M2={conll14 / 'published_scores' / 'sentence' / 'm2score.txt.gz'}",
    )
    assert set(report["metrics"]["M2"]) == {"kendall_hties", "kendall_noties", "accuracy"}
    assert round(report["metrics"]["M2"]["kendall_hties"], 3) == 0.617


def test_rank_json_shape(seeda: Path) -> None:
    report = _json(
        "rank",
        "--judgments",
        str(seeda / "data" / "judgments_edit.xml"),
        "--method",
        "both",
        "--bootstrap",
        "50",
        "--runs",
        "4",
        "--seed",
        "1",
    )
    assert set(report) >= {"systems", "judgments", "agreement"}
    assert len(report["systems"]) == 15
    entry = report["systems"]["GPT-3.5"]
    assert set(entry) == {"expected_wins", "trueskill", "rank_range", "cluster"}
    assert round(entry["expected_wins"], 3) == 0.792
    assert len(entry["rank_range"]) == 2 and entry["cluster"] >= 1
    assert round(report["agreement"]["inter_kappa"], 2) == 0.28


# ``meta system --compute`` on SEEDA's subset against the CoNLL-14 gold, without --refs.
COMPUTE_ON_GOLD = [
    "system",
    "--human",
    "{human}",
    "--outputs",
    "{outputs}",
    "--gold",
    "{gold}",
    "--lines",
    "{lines}",
    "--compute",
]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["system", "--human", "MISSING.txt", "--metric", "a=b"], "MISSING.txt"),
        (["system", "--human", "{human}", "--metric", "x={placeholder}"], "line 1: score 'None'"),
        (["system", "--human", "{human}", "--metric", "x={human}", "--exclude", "NOPE"], "NOPE"),
        (["system", "--human", "{human}", "--metric", "x={human}", "--window", "1"], "window"),
        (["system", "--human", "{human}", "--compute", "gleu"], "--outputs"),
        # GREEN once ended in a ValueError traceback here (exit 1).
        ([*COMPUTE_ON_GOLD, "green"], "--compute green needs --refs"),
        ([*COMPUTE_ON_GOLD, "m2", "gleu-gecm", "gleu"], "--compute gleu-gecm gleu needs --refs"),
    ],
)
def test_bad_input_is_a_clear_error(
    seeda: Path, conll14: Path, args: list[str], message: str
) -> None:
    values = {
        "human": str(seeda / "scores" / "human" / "EW_edit.txt"),
        "placeholder": str(seeda / "scores" / "metric" / "system_score.txt"),
        "outputs": str(seeda / "outputs" / "subset"),
        "gold": str(conll14 / "conll14st-test.m2"),
        "lines": str(seeda / "subset_conll14_lines.txt"),
    }
    done = _meta(*(a.format(**values) for a in args))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert message in done.stderr
