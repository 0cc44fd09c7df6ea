"""Sentence level: WMT Kendall against the published GJG15 figure, SEEDA's variant against
SEEDA's utils/corr_sentence.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.maxmatch import M2Result
from gecscore.meta.judgments import pairwise, read_judgments_xml, read_pairwise_csv
from gecscore.meta.scorefiles import SEEDA_SYSTEMS, SYSTEM_SETS, read_sentence_scores
from gecscore.meta.sentence import seeda_accuracy_kendall, seeda_segment_map, wmt_kendall
from tests.meta.test_correlation import _seeda_runs


def test_m2_sentence_kendall_hties_expanded_on_gjg15_is_the_published_0_617(
    conll14: Path,
) -> None:
    """Sentence score = gecmetrics' published per-sentence M2 (m2scorer's sentence F0.5 of the
    best annotator, segment ids as in expanded.csv); human pairs = expanded.csv."""
    scores = read_sentence_scores(conll14 / "published_scores" / "sentence" / "m2score.txt.gz")
    pairs = read_pairwise_csv(conll14 / "human" / "expanded.csv.gz")
    result = wmt_kendall(pairs, scores.scores)
    assert round(result.values["kendall_hties"], 3) == 0.617
    assert result.pairs == 109098


def _sentm2_folder(seeda_m2: dict[str, M2Result], folder: Path) -> Path:
    folder.mkdir()
    for system in SEEDA_SYSTEMS:
        lines = "\n".join(repr(v) for v in seeda_m2[system].sentence_f)
        (folder / f"{system}.txt").write_text(lines)
    return folder


# SEEDA's utils/corr_sentence.py --order higher on our SentM2 sentence scores (scipy 1.17.1,
# numpy 2.4.6), judgments_edit.xml, base: as printed. The issue quotes 0.619 / 0.238.
RECORDED_EDIT_BASE = (0.6189673066943435, 0.23793461338868707)


def _ours(seeda: Path, folder: Path, granularity: str, selection: str) -> tuple[float, float]:
    judgments = read_judgments_xml(seeda / "data" / f"judgments_{granularity}.xml")
    keep = [s for s in SEEDA_SYSTEMS if s not in SYSTEM_SETS[selection]]
    all_pairs = pairwise(judgments.items)
    pairs = pairwise(judgments.items, systems=keep)
    scores = read_sentence_scores(folder).scores
    mapping = seeda_segment_map(all_pairs, 391)
    result = seeda_accuracy_kendall(pairs, scores, segment_map=mapping)
    return result.values["accuracy"], result.values["kendall"]


def test_seeda_variant_equals_the_recorded_corr_sentence_output(
    seeda: Path, seeda_m2: dict[str, M2Result], tmp_path: Path
) -> None:
    folder = _sentm2_folder(seeda_m2, tmp_path / "sentm2")
    accuracy, kendall = _ours(seeda, folder, "edit", "base")
    assert accuracy == pytest.approx(RECORDED_EDIT_BASE[0], abs=1e-12)
    assert kendall == pytest.approx(RECORDED_EDIT_BASE[1], abs=1e-12)


def test_seeda_variant_equals_corr_sentence_py_for_every_set(
    seeda: Path, seeda_m2: dict[str, M2Result], seeda_scripts: tuple[str, Path], tmp_path: Path
) -> None:
    python, utils = seeda_scripts
    folder = _sentm2_folder(seeda_m2, tmp_path / "sentm2")
    cases = []
    ours = []
    for granularity in ("edit", "sent"):
        for selection in SYSTEM_SETS:
            cases.append(
                {
                    "human_score": str(seeda / "data" / f"judgments_{granularity}.xml"),
                    "metric_score": str(folder),
                    "order": "higher",
                    "systems": selection,
                }
            )
            ours.append(list(_ours(seeda, folder, granularity, selection)))
    theirs = _seeda_runs(python, utils, "corr_sentence", cases)
    assert ours == [pytest.approx(t, abs=1e-12) for t in theirs]


def test_tie_aware_variant_differs_only_by_metric_ties() -> None:
    from gecscore.meta.judgments import Comparison

    pairs = [
        Comparison("1", "j", "A", "B", "<", 1, 2),
        Comparison("1", "j", "A", "C", ">", 2, 1),
        Comparison("1", "j", "B", "C", "<", 1, 2),
    ]
    scores = {"A": {"1": 0.5}, "B": {"1": 0.5}, "C": {"1": 0.9}}
    seeda = seeda_accuracy_kendall(pairs, scores)
    ties = seeda_accuracy_kendall(pairs, scores, tie_aware=True)
    # A-B tie: SEEDA counts -1 (B "wins"), a disagreement; tie-aware counts neither.
    assert seeda.values == {"accuracy": 1 / 3, "kendall": (1 - 2) / 3}
    assert ties.values == {"accuracy": 1 / 3, "kendall": (1 - 1) / 3}
