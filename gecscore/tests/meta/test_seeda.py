"""``python -m gecscore meta seeda``: SEEDA's standard setting in one call gives the numbers of
the general commands (``meta system --compute``, ``meta sentence --variant seeda``) for the
same setting, and gec-metrics 0.1.1's ``MetaEvalSEEDA`` figures recorded in the docs."""

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
from gecscore.meta import compute

HUMAN = {"ew_edit": "EW_edit", "ew_sent": "EW_sent", "ts_edit": "TS_edit", "ts_sent": "TS_sent"}


def _json(*args: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["meta", *args, "--json"]) == 0
    return json.loads(out.getvalue())


def _seeda(seeda: Path, metric: str, *more: str) -> Any:
    return _json("seeda", "--seeda", str(seeda), "--metric", metric, *more)


def _general_system(seeda: Path, conll14: Path, metric: str, human: str, aggregation: str) -> Any:
    return _json(
        "system",
        "--human",
        str(seeda / "scores" / "human" / f"{human}.txt"),
        "--systems",
        "base",
        "--compute",
        metric,
        "--outputs",
        str(seeda / "outputs" / "subset"),
        "--gold",
        str(conll14 / "conll14st-test.m2"),
        "--lines",
        str(seeda / "subset_conll14_lines.txt"),
        "--refs",
        str(seeda / "refs" / "REF0.txt"),
        str(seeda / "refs" / "REF1.txt"),
        "--aggregation",
        aggregation,
    )["metrics"][metric]


def test_seeda_equals_the_general_commands_for_gleu(
    seeda: Path, conll14: Path, tmp_path: Path
) -> None:
    report = _seeda(seeda, "gleu")
    assert report["system_set"] == "base" and report["sentences"] == 391
    assert len(report["systems"]) == 12
    assert not {"GPT-3.5", "INPUT", "REF-F"} & set(report["systems"])
    for key, human in HUMAN.items():
        general = _general_system(seeda, conll14, "gleu", human, "default")
        assert report["system"][key] == {
            "pearson": general["pearson"],
            "spearman": general["spearman"],
        }, key
    # The sentence level through `meta sentence --variant seeda` on score files (line k = the
    # k-th judged sentence), written from the library's GLEU on the same inputs.
    inputs = compute.load_inputs(
        seeda / "outputs" / "subset",
        conll14 / "conll14st-test.m2",
        lines=seeda / "subset_conll14_lines.txt",
        references=[seeda / "refs" / "REF0.txt", seeda / "refs" / "REF1.txt"],
        systems=report["systems"],
    )
    sentence_scores = compute.compute_all(["gleu"], inputs)["gleu"].sentence_scores
    assert sentence_scores is not None
    for system, scores in sentence_scores.items():
        (tmp_path / f"{system}.txt").write_text("".join(f"{s!r}\n" for s in scores))
    for key in ("edit", "sent"):
        general = _json(
            "sentence",
            "--judgments",
            str(seeda / "data" / f"judgments_{key}.xml"),
            "--metric",
            f"gleu={tmp_path}",
            "--variant",
            "seeda",
        )
        assert report["sentence"][key] == {**general["metrics"]["gleu"], "pairs": general["pairs"]}
    # docs/metrics/green.md: gec-ranking's GLEU on SEEDA, EW_edit.
    ew_edit = report["system"]["ew_edit"]
    assert (f"{ew_edit['pearson']:.4f}", f"{ew_edit['spearman']:.4f}") == ("0.8997", "0.9161")


def test_seeda_trueskill_aggregate_equals_meta_system(seeda: Path, conll14: Path) -> None:
    report = _seeda(seeda, "gleu", "--aggregate", "trueskill")
    assert report["aggregate"] == "trueskill"
    general = _general_system(seeda, conll14, "gleu", "TS_sent", "trueskill")
    assert report["system"]["ts_sent"] == {
        "pearson": general["pearson"],
        "spearman": general["spearman"],
    }


def test_seeda_green_gives_gec_metrics_figures(seeda: Path) -> None:
    """gec-metrics 0.1.1, ``MetaEvalSEEDA()`` with ``GREEN()`` (docs/metrics/green.md and
    tests/test_green.py): corr_system EW_edit 0.9124 / 0.9301, TS_sent Pearson 0.9250;
    aggregation trueskill EW_edit 0.8880 / 0.8881; corr_sentence SEEDA-S 0.5995 / 0.1990."""

    def four(value: float) -> str:
        return f"{value:.4f}"

    report = _seeda(seeda, "green")
    system = report["system"]
    assert (four(system["ew_edit"]["pearson"]), four(system["ew_edit"]["spearman"])) == (
        "0.9124",
        "0.9301",
    )
    assert four(system["ts_sent"]["pearson"]) == "0.9250"
    sent = report["sentence"]["sent"]
    assert (four(sent["accuracy"]), four(sent["kendall"])) == ("0.5995", "0.1990")
    ts = _seeda(seeda, "green", "--aggregate", "trueskill")["system"]["ew_edit"]
    assert (four(ts["pearson"]), four(ts["spearman"])) == ("0.8880", "0.8881")


def test_seeda_text_table(seeda: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["meta", "seeda", "--seeda", str(seeda), "--metric", "gleu"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("gleu on SEEDA: base (12 systems), 391 sentences")
    assert [line.split("\t")[0] for line in lines[1:]] == [
        "system level",
        *HUMAN,
        "sentence level",
        "edit",
        "sent",
    ]
    assert lines[2].split("\t")[1:] == ["0.8997", "0.9161"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gecscore", "meta", "seeda", *args], capture_output=True, text=True
    )


def _copy_of(seeda: Path, root: Path, lines: str | None = None) -> Path:
    """A SEEDA folder of links to the real one (no conll14/ beside it); ``lines`` replaces
    subset_conll14_lines.txt."""
    folder = root / "seeda"
    folder.mkdir()
    for name in ("outputs", "scores", "data", "refs", "subset_conll14_lines.txt"):
        (folder / name).symlink_to(seeda / name)
    if lines is not None:
        (folder / "subset_conll14_lines.txt").unlink()
        (folder / "subset_conll14_lines.txt").write_text(lines)
    return folder


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing", "no such folder"),
        ("not-seeda", "not a SEEDA folder"),
        ("unknown-metric", "argument --metric: invalid choice: 'bleu'"),
        ("no-gold", "no CoNLL-14 gold M2 found"),
        ("wrong-lines", "wrong gold file or line list"),
    ],
)
def test_seeda_usage_errors_exit_2(
    seeda: Path, conll14: Path, tmp_path: Path, case: str, message: str
) -> None:
    folder, metric, more = str(seeda), "gleu", []
    if case == "missing":
        folder = str(tmp_path / "absent")
    elif case == "not-seeda":
        folder = str(conll14)
    elif case == "unknown-metric":
        metric = "bleu"
    elif case == "no-gold":
        folder = str(_copy_of(seeda, tmp_path))
    else:
        shifted = [int(x) + 1 for x in (seeda / "subset_conll14_lines.txt").read_text().split()]
        folder = str(_copy_of(seeda, tmp_path, "\n".join(map(str, shifted))))
        more = ["--gold", str(conll14 / "conll14st-test.m2")]
    result = _run("--seeda", folder, "--metric", metric, *more)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
