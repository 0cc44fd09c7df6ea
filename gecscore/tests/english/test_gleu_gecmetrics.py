"""gec-metrics 0.1.1's GLEU (its GREEN-style rewrite), against the numbers it printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.english.gleu_gecmetrics import gecmetrics_gleu

# gec-metrics 0.1.1: get_metric("gleu")(Config()).score_corpus(src, hyp, [REF0, REF1]) on
# SEEDA's subset (files read with gec_metrics.meta_eval.utils.read_lines).
RECORDED = {"BART": 0.5703675178418657, "T5": 0.6405479767815889, "INPUT": 0.44811496400056156}


def _read_lines(path: Path) -> list[str]:
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")]


def test_seeda_scores_equal_gec_metrics(shared_data: Path) -> None:
    seeda = shared_data / "seeda"
    sources = _read_lines(seeda / "outputs/subset/INPUT.txt")
    refs = [_read_lines(seeda / "refs" / f"REF{k}.txt") for k in (0, 1)]
    ours = {
        system: gecmetrics_gleu(
            sources, _read_lines(seeda / "outputs/subset" / f"{system}.txt"), refs
        )
        for system in RECORDED
    }
    assert ours == RECORDED


def test_seeda_correlation_equals_the_figure_gec_metrics_prints(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # gec-metrics' README / MetaEvalSEEDA(system="base").corr_system(GLEU()): EW_edit
    # Pearson 0.9008, Spearman 0.9301.
    seeda, conll14 = shared_data / "seeda", shared_data / "conll14"
    argv = ["meta", "system", "--human", str(seeda / "scores/human/EW_edit.txt")]
    argv += ["--systems", "base", "--compute", "gleu-gecm", "--json"]
    argv += [
        "--outputs",
        str(seeda / "outputs/subset"),
        "--gold",
        str(conll14 / "conll14st-test.m2"),
    ]
    argv += ["--lines", str(seeda / "subset_conll14_lines.txt"), "--refs"]
    argv += [str(seeda / "refs" / f"REF{k}.txt") for k in (0, 1)]
    assert main(argv) == 0
    entry = json.loads(capsys.readouterr().out)["metrics"]["gleu-gecm"]
    assert (f"{entry['pearson']:.4f}", f"{entry['spearman']:.4f}") == ("0.9008", "0.9301")
