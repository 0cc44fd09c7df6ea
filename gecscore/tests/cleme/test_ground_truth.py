"""Every public number of specs/cleme.md section 8 (and the CoNLL-14 README), to 4 decimals."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cleme.inputs import read_m2_sentences
from gecscore.cleme.model import Sentence
from gecscore.cleme.scorers import cleme
from gecscore.cleme.stats import chunk_statistics
from gecscore.cleme.v2 import cleme2

# specs/cleme.md section 8: CLEME v1.0 F0.5 per system, columns:
# (level, assumption, length weighting)
SETTINGS = [
    ("corpus", "dependent", True),
    ("corpus", "independent", True),
    ("sentence", "dependent", True),
    ("sentence", "independent", True),
    ("corpus", "dependent", False),
    ("corpus", "independent", False),
]
SPEC_F = {
    "example": (0.3155, 0.3343, 0.3736, 0.4768, 0.3757, 0.3981),
    "source": (0.0261, 0.0285, 0.0612, 0.0953, 0.0293, 0.0323),
    "noop": (0.0, 0.0, 0.051, 0.0836, 0.0, 0.0),
    "oracle1": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
}
CASES = [
    pytest.param(
        system, *setting, expected, id=f"{system}-{setting[0]}-{setting[1]}-lw{setting[2]}"
    )
    for system, row in SPEC_F.items()
    for setting, expected in zip(SETTINGS, row, strict=True)
]


@pytest.mark.parametrize(("system", "level", "assumption", "weighted", "expected"), CASES)
def test_mucgec_dev_cleme_f05_matches_spec(
    mucgec_hyps: dict[str, list[Sentence]],
    mucgec_refs: list[Sentence],
    system: str,
    level: str,
    assumption: str,
    weighted: bool,
    expected: float,
) -> None:
    score = cleme(
        mucgec_hyps[system],
        mucgec_refs,
        level=level,  # type: ignore[arg-type]
        assumption=assumption,  # type: ignore[arg-type]
        length_weighting=weighted,
    )
    assert round(score.f, 4) == expected


@pytest.mark.parametrize(("system", "expected_b"), [("source", 2.2745), ("example", 2.3905)])
def test_length_bias_depends_on_the_system(
    mucgec_hyps: dict[str, list[Sentence]],
    mucgec_refs: list[Sentence],
    system: str,
    expected_b: float,
) -> None:
    score = cleme(mucgec_hyps[system], mucgec_refs)
    assert round(score.bias, 4) == expected_b


def test_mucgec_dev_cleme2_example_corpus_dependent(
    mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    score = cleme2(mucgec_hyps["example"], mucgec_refs)
    assert (score.tp, score.fp_ne, score.fp_un, score.fn) == (994, 806, 797, 1901)
    assert round(score.hit, 4) == 0.2686
    assert round(score.wrong, 4) == 0.2178
    assert round(score.under, 4) == 0.5136
    assert round(score.over, 4) == 0.3069
    assert round(score.score, 4) == 0.5022


def test_mucgec_dev_cleme2_example_corpus_independent(
    mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    assert (
        round(cleme2(mucgec_hyps["example"], mucgec_refs, assumption="independent").score, 4)
        == 0.5137
    )


@pytest.mark.parametrize(("system", "expected"), [("noop", 0.4), ("oracle1", 1.0)])
def test_mucgec_dev_cleme2_extremes(
    mucgec_hyps: dict[str, list[Sentence]],
    mucgec_refs: list[Sentence],
    system: str,
    expected: float,
) -> None:
    assert round(cleme2(mucgec_hyps[system], mucgec_refs).score, 4) == expected


def test_oracle_sentence_level_cleme2_stays_below_one(
    mucgec_hyps: dict[str, list[Sentence]], mucgec_refs: list[Sentence]
) -> None:
    # spec 6: a sentence with nothing to correct gets hit 0, so even an oracle is < 1.
    score = cleme2(mucgec_hyps["oracle1"], mucgec_refs, level="sentence")
    assert score.score < 1.0
    assert round(score.wrong, 4) == 0.0 and round(score.under, 4) == 0.0


def test_mucgec_dev_reference_chunk_statistics(mucgec_refs: list[Sentence]) -> None:
    stats = chunk_statistics(mucgec_refs)
    assert (stats.chunks, stats.unchanged, stats.corrected, stats.dummy) == (
        11007,
        5994,
        3247,
        1766,
    )
    assert round(stats.unchanged_mean_length, 2) == 7.24
    assert round(stats.corrected_mean_length, 2) == 2.05
    assert round(stats.changed_mean_length, 4) == 2.2745
    assert stats.icc + stats.iuc + stats.cc == pytest.approx(1.0)


def test_conll14_amu_matches_cleme_readme(conll_dir: Path) -> None:
    score = cleme(
        read_m2_sentences(conll_dir / "conll14-AMU.errant"),
        read_m2_sentences(conll_dir / "conll14.errant"),
    )
    assert (score.f, score.acc, score.p, score.r) == (0.2514, 0.7634, 0.2645, 0.2097)
    assert (round(score.tp, 2), round(score.fp, 2), round(score.fn, 2), score.tn) == (
        313.51,
        871.8,
        1181.71,
        6312.0,
    )


# CLEME v1.0 (THUKElab/CLEME @5fc7617, scripts/evaluate.py) on CoNLL-14 POST: F, Acc, P, R and,
# at corpus level, tp, fp, fn, tn. POST is the system whose hypothesis deletes a whole
# sentence that has two references (sentence 24): v1.0 then drops the hypothesis and scores the
# first reference in its place, which moves the length weighting's b and the counts.
POST_V1 = {
    ("corpus", "dependent"): (0.2131, 0.7383, 0.2107, 0.2231, 332.52, 1245.67, 1157.97, 6449.0),
    ("corpus", "independent"): (0.2251, 0.771, 0.215, 0.2772, 338.52, 1235.67, 882.66, 6793.0),
    ("sentence", "dependent"): (0.3334, 0.7478, 0.5326, 0.5061),
    ("sentence", "independent"): (0.3938, 0.8148, 0.5626, 0.5983),
}


@pytest.mark.parametrize(("level", "assumption"), sorted(POST_V1))
def test_conll14_post_matches_cleme_v1(conll_dir: Path, level: str, assumption: str) -> None:
    score = cleme(
        read_m2_sentences(conll_dir / "conll14-POST.errant"),
        read_m2_sentences(conll_dir / "conll14.errant"),
        level=level,  # type: ignore[arg-type]
        assumption=assumption,  # type: ignore[arg-type]
    )
    got: tuple[float, ...] = (score.f, score.acc, score.p, score.r)
    if level == "corpus":
        got += (round(score.tp, 2), round(score.fp, 2), round(score.fn, 2), score.tn)
        assert round(score.bias, 4) == 1.8247
    assert got == POST_V1[(level, assumption)]
