"""Meta-evaluation from our own metric implementations (gecscore.meta.compute)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.meta.compute import METRICS, compute, load_inputs
from gecscore.meta.correlation import pearson, spearman
from gecscore.meta.scorefiles import read_system_scores

# Chollampatt & Ng (2018), GJG15, 13 systems incl. INPUT:
# (Pearson EW, Pearson TS, Spearman EW, Spearman TS); SentM2 Spearman is not quoted.
PUBLISHED = {"m2": (0.623, 0.672, 0.687, 0.720), "sentm2": (0.871, 0.864, None, None)}


@pytest.mark.slow
def test_gjg15_correlations_from_our_m2_scorer(conll14: Path) -> None:
    inputs = load_inputs(conll14 / "systems", conll14 / "conll14st-test.m2")
    assert len(inputs.outputs) == 13
    scores = compute(["m2", "sentm2"], inputs)
    ew = read_system_scores(conll14 / "human" / "expected_wins.txt.gz").scores
    ts = read_system_scores(conll14 / "human" / "trueskill.txt.gz").scores
    systems = sorted(ew)
    for metric, (p_ew, p_ts, s_ew, s_ts) in PUBLISHED.items():
        m = [scores[metric][s] for s in systems]
        assert round(pearson([ew[s] for s in systems], m), 3) == p_ew
        assert round(pearson([ts[s] for s in systems], m), 3) == p_ts
        if s_ew is not None:
            assert round(spearman([ew[s] for s in systems], m), 3) == s_ew
            assert round(spearman([ts[s] for s in systems], m), 3) == s_ts


def test_unknown_metric_names_the_known_ones(conll14: Path) -> None:
    with pytest.raises(ValueError, match="unknown metrics nope .known: " + ", ".join(METRICS)):
        compute(["nope"], load_inputs(conll14 / "systems", conll14 / "conll14st-test.m2"))


def test_outputs_of_the_wrong_length_are_an_error(seeda: Path, conll14: Path) -> None:
    with pytest.raises(ValueError, match="391 lines for 1312 gold sentences"):
        load_inputs(seeda / "outputs" / "subset", conll14 / "conll14st-test.m2")


def test_sentence_statistics_give_back_the_system_scores(seeda: Path, conll14: Path) -> None:
    """The per-sentence statistics the sentence bootstrap resamples reproduce each system's
    score when nothing is resampled (corpus M2 from the chosen annotators' counts)."""
    from gecscore.meta.compute import compute_all

    inputs = load_inputs(
        seeda / "outputs" / "subset",
        conll14 / "conll14st-test.m2",
        lines=seeda / "subset_conll14_lines.txt",
        systems=["BART", "T5", "INPUT"],
    )
    for result in compute_all(["m2", "sentm2"], inputs).values():
        assert result.sentence_stats is not None and result.aggregate is not None
        for system, score in result.scores.items():
            stats = result.sentence_stats[system]
            assert stats.shape[0] == 391
            assert result.aggregate(stats.sum(axis=0), 391) == pytest.approx(score, abs=1e-12)


def test_imeasure_is_in_the_registry(seeda: Path, conll14: Path) -> None:
    """Smoke test of the registry entry (gecscore.english.imeasure is tested in its own
    folder): the uncorrected INPUT scores I = 0, as in the published I-measure file."""
    inputs = load_inputs(
        seeda / "outputs" / "subset",
        conll14 / "conll14st-test.m2",
        lines=seeda / "subset_conll14_lines.txt",
        systems=["INPUT", "T5"],
    )
    scores = compute(["imeasure"], inputs)["imeasure"]
    assert scores["INPUT"] == 0.0
    assert -1.0 <= scores["T5"] <= 1.0
