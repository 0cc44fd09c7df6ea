from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from gecscore.meta.scorefiles import SEEDA_SYSTEMS


def wmt_scores(path: Path) -> dict[str, float]:
    """A WMT human-score file (gzipped, tab-separated; name in column 4, score in column 5)."""
    with gzip.open(path, "rt") as handle:
        return {f[3]: float(f[4]) for f in (line.rstrip("\n").split("\t") for line in handle)}


def seeda_scores(path: Path) -> dict[str, float]:
    """SEEDA's human scores: one number per line, in SEEDA_SYSTEMS order."""
    values = [float(x) for x in path.read_text().split()]
    return dict(zip(SEEDA_SYSTEMS, values, strict=True))


# (file, published EW, published TrueSkill, inter kappa, intra kappa) per judgment set
def judgment_cases(
    shared: Path,
) -> dict[str, tuple[Path, dict[str, float], dict[str, float], str, str]]:
    human = shared / "seeda" / "scores" / "human"
    conll = shared / "conll14" / "human"
    return {
        "gjg15": (
            conll / "judgments.xml",
            wmt_scores(conll / "expected_wins.txt.gz"),
            wmt_scores(conll / "trueskill.txt.gz"),
            "0.29",
            "0.46",
        ),
        "seeda-sent": (
            shared / "seeda" / "data" / "judgments_sent.xml",
            seeda_scores(human / "EW_sent.txt"),
            seeda_scores(human / "TS_sent.txt"),
            "0.40",
            "0.72",
        ),
        "seeda-edit": (
            shared / "seeda" / "data" / "judgments_edit.xml",
            seeda_scores(human / "EW_edit.txt"),
            seeda_scores(human / "TS_edit.txt"),
            "0.28",
            "0.62",
        ),
    }


@pytest.fixture(scope="session")
def cases(shared_data: Path):  # type: ignore[no-untyped-def]
    if not (shared_data / "conll14" / "human").is_dir() or not (shared_data / "seeda").is_dir():
        pytest.skip("shared/data/conll14 or shared/data/seeda is absent")
    return judgment_cases(shared_data)
