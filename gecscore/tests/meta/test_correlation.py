"""System-level correlations against the published GJG15 numbers and SEEDA's own scripts."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from gecscore.maxmatch import M2Result
from gecscore.meta.correlation import pearson, spearman, t_survival, williams, window_analysis
from gecscore.meta.scorefiles import (
    SEEDA_SYSTEMS,
    SYSTEM_SETS,
    read_sentence_scores,
    read_system_scores,
    select_systems,
)

# Chollampatt & Ng (2018) / gecmetrics, 13 systems incl. INPUT: (Pearson, Spearman) per human
# ranking, from the published metric score files.
PUBLISHED_GJG15 = {
    ("m2score", "expected_wins"): (0.623, 0.687),
    ("m2score", "trueskill"): (0.672, 0.720),
    ("gleu", "expected_wins"): (0.691, 0.407),
    ("gleu", "trueskill"): (0.733, 0.478),
}


@pytest.mark.parametrize(("metric", "human"), sorted(PUBLISHED_GJG15))
def test_gjg15_correlations_of_the_published_scores(conll14: Path, metric: str, human: str) -> None:
    h = read_system_scores(conll14 / "human" / f"{human}.txt.gz").scores
    m = read_system_scores(conll14 / "published_scores" / "system" / f"{metric}.txt.gz").scores
    systems = sorted(h)
    assert len(systems) == 13
    r = pearson([h[s] for s in systems], [m[s] for s in systems])
    rho = spearman([h[s] for s in systems], [m[s] for s in systems])
    assert (round(r, 3), round(rho, 3)) == PUBLISHED_GJG15[(metric, human)]


def test_gjg15_sentm2_from_the_published_sentence_scores_is_not_the_paper_number(
    conll14: Path,
) -> None:
    """SentM2 0.871 / 0.864 is the mean of m2scorer's per-sentence F0.5 over the best
    annotator (our scorer, see test_compute); the published per-sentence file (gecmetrics)
    averages to another number, so it is not the file behind that figure."""
    h = read_system_scores(conll14 / "human" / "expected_wins.txt.gz").scores
    sent = read_sentence_scores(conll14 / "published_scores" / "sentence" / "m2score.txt.gz")
    systems = sorted(h)
    means = [sum(sent.scores[s].values()) / len(sent.scores[s]) for s in systems]
    assert round(pearson([h[s] for s in systems], means), 3) != 0.871


def test_williams_gleu_vs_m2_on_expected_wins(conll14: Path) -> None:
    h = read_system_scores(conll14 / "human" / "expected_wins.txt.gz").scores
    gleu = read_system_scores(conll14 / "published_scores" / "system" / "gleu.txt.gz").scores
    m2 = read_system_scores(conll14 / "published_scores" / "system" / "m2score.txt.gz").scores
    systems = sorted(h)
    result = williams([h[s] for s in systems], [gleu[s] for s in systems], [m2[s] for s in systems])
    assert (round(result.t, 3), round(result.p, 3)) == (0.399, 0.349)
    # scipy.stats.t.sf(t, 10) for that t (df = n - 3 = 10), scipy 1.17.1
    assert result.p == pytest.approx(0.3491383853006403, abs=1e-12)


def test_spearman_and_pearson_with_ties_equal_scipy() -> None:
    # scipy 1.17.1: spearmanr / pearsonr([1, 2, 2, 3, 4], [1, 3, 2, 2, 5]).statistic
    x, y = [1, 2, 2, 3, 4], [1, 3, 2, 2, 5]
    assert spearman(x, y) == pytest.approx(0.7631578947368421, abs=1e-12)
    assert pearson(x, y) == pytest.approx(0.8385566513510484, abs=1e-12)


def test_window_puts_equal_human_scores_in_reverse_input_order() -> None:
    """window_analysis_system.py sorts with np.argsort(human)[::-1] ([3 2 1 0] for
    [1, 2, 2, 3]): of two systems with equal human scores the later one comes first."""
    windows = window_analysis(["A", "B", "C", "D"], [1.0, 2.0, 2.0, 3.0], [1, 2, 3, 4], 4)
    assert windows[0].systems == ("D", "C", "B", "A")


@pytest.mark.parametrize(
    ("t", "df", "expected"),
    # scipy.stats.t.sf(t, df), scipy 1.17.1 (printed with repr)
    [
        (0.39900553698918056, 10, 0.3491383853006403),
        (2.5, 3, 0.04385332350403278),
        (-1.2, 7, 0.8654140315863967),
        (0.0, 5, 0.5),
    ],
)
def test_t_survival_equals_scipy(t: float, df: int, expected: float) -> None:
    assert t_survival(t, df) == pytest.approx(expected, abs=1e-12)


_DRIVER = """
import argparse, contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
module = __import__(sys.argv[2])
out = []
for case in json.loads(sys.argv[3]):
    buffer = io.StringIO()
    namespace = argparse.Namespace(**case)
    module.args = namespace  # corr_sentence.py reads the global its __main__ sets
    with contextlib.redirect_stdout(buffer):
        module.main(namespace)
    out.append(buffer.getvalue())
print(json.dumps(out))
"""


def _seeda_runs(
    python: str, utils: Path, script: str, cases: list[dict[str, str]]
) -> list[list[float]]:
    """Run SEEDA's ``script``'s own main() once per case in ONE process (scipy loads once);
    the numbers it prints, per case."""
    done = subprocess.run(
        [python, "-c", _DRIVER, str(utils), script, json.dumps(cases)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [
        [float(x) for x in re.findall(r": (-?[0-9.e+-]+|nan)", text)]
        for text in json.loads(done.stdout)
    ]


def _write_scores(path: Path, values: list[float]) -> None:
    path.write_text("\n".join(repr(v) for v in values))


def test_seeda_correlations_equal_corr_system_py(
    seeda: Path, seeda_m2: dict[str, M2Result], seeda_scripts: tuple[str, Path], tmp_path: Path
) -> None:
    """Our M2 and SentM2 on the subset, correlated with every human file and system set, equal
    what SEEDA's utils/corr_system.py prints for the same score files (run side by side)."""
    python, utils = seeda_scripts
    cases: list[dict[str, str]] = []
    expected: list[tuple[list[float], list[float]]] = []
    for metric in ("m2", "sentm2"):
        values = [seeda_m2[s].f if metric == "m2" else seeda_m2[s].sent_f for s in SEEDA_SYSTEMS]
        score_file = tmp_path / f"{metric}.txt"
        _write_scores(score_file, values)
        ours_all = read_system_scores(score_file).scores
        for human_name in ("EW_edit", "EW_sent", "TS_edit", "TS_sent"):
            human_file = seeda / "scores" / "human" / f"{human_name}.txt"
            human = read_system_scores(human_file).scores
            for selection in SYSTEM_SETS:
                cases.append(
                    {
                        "human_score": str(human_file),
                        "metric_score": str(score_file),
                        "systems": selection,
                    }
                )
                systems = select_systems(SEEDA_SYSTEMS, selection)
                expected.append(([human[s] for s in systems], [ours_all[s] for s in systems]))
    theirs = _seeda_runs(python, utils, "corr_system", cases)
    assert len(theirs) == 32
    for (h, m), (r, rho) in zip(expected, theirs, strict=True):
        assert pearson(h, m) == pytest.approx(r, abs=1e-12)
        assert spearman(h, m) == pytest.approx(rho, abs=1e-12)


# SEEDA's utils/corr_system.py (scipy 1.17.1) on our M2 / SentM2 subset scores, base set, as
# printed; recorded here so that the check also runs where SEEDA's scripts are not installed.
RECORDED_BASE = {
    ("m2", "EW_edit"): (0.7579561517231753, 0.7692307692307694),
}


def test_seeda_m2_base_edit_equals_the_recorded_corr_system_output(
    seeda: Path, seeda_m2: dict[str, M2Result]
) -> None:
    human = read_system_scores(seeda / "scores" / "human" / "EW_edit.txt").scores
    systems = select_systems(SEEDA_SYSTEMS, "base")
    h = [human[s] for s in systems]
    m = [seeda_m2[s].f for s in systems]
    r, rho = RECORDED_BASE[("m2", "EW_edit")]
    assert pearson(h, m) == pytest.approx(r, abs=1e-12)
    assert spearman(h, m) == pytest.approx(rho, abs=1e-12)
    sent = [seeda_m2[s].sent_f for s in systems]
    assert (round(pearson(h, sent), 3), round(spearman(h, sent), 3)) == (0.871, 0.846)


def test_window_analysis_equals_window_analysis_system_py(
    seeda: Path, seeda_m2: dict[str, M2Result], seeda_scripts: tuple[str, Path], tmp_path: Path
) -> None:
    python, utils = seeda_scripts
    score_file = tmp_path / "m2.txt"
    _write_scores(score_file, [seeda_m2[s].f for s in SEEDA_SYSTEMS])
    systems = select_systems(SEEDA_SYSTEMS, "base")
    cases: list[dict[str, str]] = []
    ours: list[float] = []
    for human_name in ("EW_edit", "TS_sent"):
        human_file = seeda / "scores" / "human" / f"{human_name}.txt"
        human = read_system_scores(human_file).scores
        for size in (4, 5, 6, 7, 8):
            cases.append(
                {
                    "human_score": str(human_file),
                    "metric_score": str(score_file),
                    "window_size": str(size),
                }
            )
            windows = window_analysis(
                systems, [human[s] for s in systems], [seeda_m2[s].f for s in systems], size
            )
            ours.extend(v for w in windows for v in (w.pearson, w.spearman))
    theirs = [
        v for values in _seeda_runs(python, utils, "window_analysis_system", cases) for v in values
    ]
    assert len(theirs) == len(ours)
    assert ours == pytest.approx(theirs, abs=1e-12)
