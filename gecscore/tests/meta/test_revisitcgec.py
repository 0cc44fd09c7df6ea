"""RevisitCGEC: the harness (sentences, references, outputs, rankings), the Chinese metrics on
it, and ``python -m gecscore meta revisitcgec``."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from gecscore.meta.correlation import pearson, spearman
from gecscore.meta.revisitcgec import (
    CORPORA,
    SYSTEMS,
    human_scores,
    load_corpus,
)
from gecscore.meta.revisitcgec_metrics import (
    Extraction,
    ExtractionMemo,
    MetricUnavailable,
    aggregate_sentence_scores,
    cherrant,
    evaluate,
    length_metric,
    sentence_level,
)
from tests.shared import shared_missing

# Expected Wins of the whole judgments.xml, 4 decimals.
ISSUE_EW = {
    "bart": 0.6394,
    "s2e": 0.5138,
    "char": 0.4982,
    "word": 0.4701,
    "spm": 0.4558,
    "t5": 0.4228,
}
# ChERRANT @3922193 (MuCGEC repository), char level, its resources, default options, on the
# same files: MuCGEC subset from the issue; YACLC subsets measured for this test with the
# reference tool ($GEC_REFS_DIR/dropin-cherrant: parallel_to_m2.py -g char,
# compare_m2_for_evaluation.py), see docs/reproduction.md.
CHERRANT_CHAR = {
    ("mucgec", "minimal"): {
        "bart": 0.3211,
        "t5": 0.3244,
        "s2e": 0.3044,
        "word": 0.2986,
        "char": 0.2981,
        "spm": 0.2981,
    },
    ("yaclc", "minimal"): {
        "bart": 0.5889,
        "char": 0.5041,
        "s2e": 0.5644,
        "spm": 0.495,
        "t5": 0.4146,
        "word": 0.4626,
    },
    ("yaclc", "fluency"): {
        "bart": 0.3073,
        "char": 0.2192,
        "s2e": 0.2394,
        "spm": 0.2256,
        "t5": 0.1879,
        "word": 0.2264,
    },
}


@pytest.fixture(scope="module")
def revisit(shared_data: Path) -> Path:
    folder = shared_data / "revisitcgec"
    if not (folder / "judgments.xml").is_file():
        shared_missing("shared/data/revisitcgec is absent")
    if not (shared_data / "mucgec-dev" / "MuCGEC_dev.txt").is_file():
        shared_missing("shared/data/mucgec-dev is absent")
    return folder


@pytest.fixture(scope="module")
def cherrant_resources(shared_data: Path) -> Any:
    from gecscore.resources import load_resources

    folder = shared_data / "cherrant-resources"
    if not folder.is_dir():
        shared_missing("shared/data/cherrant-resources is absent")
    return load_resources(folder)


def _independent_expected_wins(path: Path, doc_id: str | None) -> dict[str, float]:
    """Expected Wins counted straight from the XML (ElementTree, no library code): split
    collapsed systems, every pair of systems in an item, ties ignored, wins/(wins+losses)
    per opponent, mean over opponents."""
    wins: dict[tuple[str, str], int] = defaultdict(int)
    for item in ET.parse(path).getroot().iter("ranking-item"):
        if doc_id is not None and item.get("doc-id") != doc_id:
            continue
        ranks = {}
        for entry in item.iter("translation"):
            for name in entry.get("system", "").split():
                ranks[name] = int(entry.get("rank", "0"))
        for a, b in combinations(sorted(ranks), 2):
            if ranks[a] < ranks[b]:
                wins[a, b] += 1
            elif ranks[b] < ranks[a]:
                wins[b, a] += 1
    out = {}
    for s in SYSTEMS:
        shares = [
            wins[s, o] / (wins[s, o] + wins[o, s])
            for o in SYSTEMS
            if o != s and wins[s, o] + wins[o, s]
        ]
        out[s] = sum(shares) / len(shares)
    return out


def test_the_harness_builds_200_sentences_six_systems_and_1000_ranking_items(
    revisit: Path,
) -> None:
    pooled = load_corpus(revisit, "all")
    assert len(pooled.sentences) == 200 and len(pooled.items) == 1000
    assert set(pooled.outputs) == set(SYSTEMS)
    for corpus in CORPORA:
        part = load_corpus(revisit, corpus)
        assert len(part.sentences) == 100 and len(part.items) == 500
        ids = (revisit / "sentence-ids" / f"{corpus}_ids.txt").read_text().split()
        assert [s.id for s in part.sentences] == ids
        # Every item's src-id names one of the corpus's sentences (MuCGEC: id - 1).
        segments = {s.segment for s in part.sentences}
        assert {item.src_id for item in part.items} == segments
        for system in SYSTEMS:
            lines = (revisit / "system-corrections" / f"{system}.{corpus}.txt").read_text(
                encoding="utf-8"
            )
            assert list(part.outputs[system]) == lines.rstrip("\n").split("\n")
    mucgec = load_corpus(revisit, "mucgec")
    first = mucgec.sentences[0]
    assert first.segment == str(int(first.id) - 1)
    dev = (revisit.parent / "mucgec-dev" / "MuCGEC_dev.txt").read_text(encoding="utf-8")
    row = next(line for line in dev.split("\n") if line.split("\t")[0] == first.id)
    assert (first.source, first.targets) == (row.split("\t")[1], tuple(row.split("\t")[2:]))
    # Pooled segments stay apart: the two corpora reuse src-ids.
    assert len(set(pooled.segments)) == 200
    assert all(item.src_id.startswith(("mucgec:", "yaclc:")) for item in pooled.items)


def test_yaclc_reference_sets_share_sources_and_differ_in_references(revisit: Path) -> None:
    minimal = load_corpus(revisit, "yaclc", yaclc_refs="minimal")
    fluency = load_corpus(revisit, "yaclc", yaclc_refs="fluency")
    assert minimal.sources == fluency.sources
    assert [s.targets for s in minimal.sentences] != [s.targets for s in fluency.sentences]
    assert (minimal.reference_set, fluency.reference_set) == ("yaclc-minimal", "yaclc-fluency")


@pytest.mark.parametrize("corpus", ["all", *CORPORA])
def test_expected_wins_equal_an_independent_count_of_the_xml(revisit: Path, corpus: str) -> None:
    report = human_scores(load_corpus(revisit, corpus), method="ew")
    independent = _independent_expected_wins(
        revisit / "judgments.xml", None if corpus == "all" else corpus
    )
    for system in SYSTEMS:
        assert abs(report["systems"][system]["expected_wins"] - independent[system]) <= 1e-9
    if corpus == "all":
        for system, value in ISSUE_EW.items():
            assert round(report["systems"][system]["expected_wins"], 4) == value, system
    # Collapsed outputs ("bart char spm") are split: every item compares all six systems.
    assert report["judgments"] == 15 * report["items"]


def test_trueskill_orders_the_systems_like_expected_wins_at_the_extremes(revisit: Path) -> None:
    report = human_scores(load_corpus(revisit, "all"), method="both", runs=40, seed=1)
    ts = {s: v["trueskill"] for s, v in report["systems"].items()}
    assert max(ts, key=lambda s: ts[s]) == "bart"
    assert min(ts, key=lambda s: ts[s]) == "t5"


@pytest.mark.parametrize("case", sorted(CHERRANT_CHAR), ids="-".join)
def test_cherrant_char_equals_cherrant_on_the_same_files(
    revisit: Path, cherrant_resources: Any, case: tuple[str, str]
) -> None:
    corpus, refs = case
    loaded = load_corpus(revisit, corpus, yaclc_refs=refs)
    run = cherrant(Extraction(loaded, cherrant_resources), "char")
    assert run.scores == CHERRANT_CHAR[case]
    assert "granularity=char" in run.signature and "resources=cherrant:" in run.signature


def test_a_shared_memo_gives_fresh_blocks_and_extracts_each_sentence_once(
    revisit: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pooled corpus repeats MuCGEC's and YACLC's sentences: with the memo those two
    filled, its extraction runs the extractor for no sentence and gives the blocks (line
    numbers included) a fresh extraction gives."""
    import gecscore.extract

    extracted: list[str] = []
    annotate_sentence = gecscore.extract.annotate_sentence

    def counted(source: str, targets: Any, **options: Any) -> Any:
        extracted.append(source)
        return annotate_sentence(source, targets, **options)

    monkeypatch.setattr(gecscore.extract, "annotate_sentence", counted)
    memo: ExtractionMemo = {}
    who = ("reference", "bart")
    for part in CORPORA:
        loaded = Extraction(load_corpus(revisit, part), memo=memo)
        for name in who:
            loaded.blocks(name)
    assert extracted
    extracted.clear()
    pooled = load_corpus(revisit, "all")
    shared = Extraction(pooled, memo=memo)
    blocks = {name: shared.blocks(name) for name in who}
    assert extracted == []
    fresh = Extraction(pooled)
    for name in who:
        assert blocks[name] == fresh.blocks(name)
    assert [b.line for b in blocks["bart"]] == list(range(1, 201))
    # Another granularity is another block.
    assert shared.blocks("bart", "word") == fresh.blocks("bart", "word")


def test_word_level_says_its_segmenter(revisit: Path) -> None:
    run = cherrant(Extraction(load_corpus(revisit, "mucgec")), "word")
    assert "granularity=word-jieba" in run.signature
    assert set(run.scores) == set(SYSTEMS)


def test_correlations_and_sentence_level_come_from_the_scores_shown(revisit: Path) -> None:
    corpus = load_corpus(revisit, "yaclc")
    report = evaluate(
        corpus, metrics=["length", "ptm2"], method="ew", bootstrap=50, bootstrap_sentences=20
    )
    systems = list(SYSTEMS)
    h = [report["systems"][s]["human_ew"] for s in systems]
    m = [report["systems"][s]["length"] for s in systems]
    entry = report["correlation"]["ew"]["metrics"]["length"]
    assert entry["pearson"] == pytest.approx(pearson(h, m), abs=1e-12)
    assert entry["spearman"] == pytest.approx(spearman(h, m), abs=1e-12)
    low, high = entry["pearson_ci"]
    assert low <= entry["pearson"] <= high
    assert len(entry["pearson_ci_sentences"]) == 2
    # Windows run over the human ranking: the first holds the four best systems.
    best = sorted(systems, key=lambda s: -report["systems"][s]["human_ew"])
    assert sorted(entry["window"][0]["systems"]) == sorted(best[:4])
    # PT-M2 without a configured Chinese BERT is listed as unavailable, not dropped silently.
    assert "ptm2" in report["unavailable"] and "ptm2" not in report["metrics"]
    # Sentence level: each pairwise judgment against the length order, counted here directly.
    run = length_metric(corpus)
    by_segment = {
        s: dict(zip(corpus.segments, run.sentence_scores[s], strict=True)) for s in SYSTEMS
    }
    agree = decided = 0
    from gecscore.meta.judgments import pairwise

    for pair in pairwise(corpus.items, systems=SYSTEMS):
        if pair.relation == "=":
            continue
        decided += 1
        a, b = by_segment[pair.system_a][pair.segment], by_segment[pair.system_b][pair.segment]
        agree += (a > b and pair.relation == "<") or (a < b and pair.relation == ">")
    sentence = report["sentence"]["metrics"]["length"]
    assert sentence["accuracy"] == pytest.approx(agree / decided, abs=1e-12)
    assert report["sentence"]["pairs"] == 7500
    assert sentence_level(corpus, {"length": run})["metrics"]["length"] == sentence


def test_aggregation_goes_through_the_hook(revisit: Path) -> None:
    corpus = load_corpus(revisit, "mucgec")
    run = length_metric(corpus)
    try:
        import gecscore.meta.aggregation  # type: ignore[import-not-found]  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(MetricUnavailable, match="aggregation"):
            aggregate_sentence_scores("trueskill", run.sentence_scores, corpus.segments)
        report = evaluate(
            corpus, metrics=["length"], method="ew", aggregates=["default", "expected-wins"]
        )
        assert "length/expected-wins" in report["unavailable"]
        assert "length" in report["metrics"]
    else:
        scores = aggregate_sentence_scores("expected-wins", run.sentence_scores, corpus.segments)
        assert set(scores) == set(SYSTEMS)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gecscore", "meta", "revisitcgec", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "GEC_CHERRANT_RESOURCES": ""},
    )


def test_cli_prints_the_keys_the_issue_spells(revisit: Path, cherrant_resources: Any) -> None:
    done = _cli(
        "--data",
        str(revisit),
        "--corpus",
        "mucgec",
        "--metric",
        "cherrant-char",
        "length",
        "green",
        "--method",
        "ew",
        "--bootstrap",
        "20",
        "--resources",
        str(revisit.parent / "cherrant-resources"),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for system, value in CHERRANT_CHAR["mucgec", "minimal"].items():
        assert report["systems"][system]["cherrant-char"] == value
        assert report["systems"][system]["human_ew"] == pytest.approx(
            report["human"]["systems"][system]["expected_wins"]
        )
    assert set(report["correlation"]) == {"ew"}
    assert {"pearson", "spearman", "pearson_ci", "spearman_ci", "window"} <= set(
        report["correlation"]["ew"]["metrics"]["cherrant-char"]
    )
    # GREEN: scored when the registry has it, otherwise named as unavailable.
    from gecscore.registry import metric_names

    williams = report["correlation"]["ew"]["williams"]
    scored_green = {"green"} if "green" in metric_names() else set()
    assert set(williams) == {"cherrant-char", "length"} | scored_green

    assert ("green" in report["metrics"]) == ("green" in metric_names())
    assert ("green" in report["unavailable"]) != ("green" in metric_names())
    text = _cli("--data", str(revisit), "--corpus", "yaclc", "--metric", "length", "--runs", "20")
    assert text.returncode == 0, text.stderr
    assert "vs human ew" in text.stdout and "vs human trueskill" in text.stdout


def test_cli_names_a_missing_folder(tmp_path: Path) -> None:
    done = _cli("--data", str(tmp_path), "--metric", "length", "--method", "ew")
    assert done.returncode != 0
    assert "judgments.xml" in done.stderr


def test_bootstrap_intervals_are_null_free_for_six_systems(revisit: Path) -> None:
    report = evaluate(load_corpus(revisit, "mucgec"), metrics=["length"], method="ew")
    low, high = report["correlation"]["ew"]["metrics"]["length"]["pearson_ci"]
    assert not math.isnan(low) and not math.isnan(high)


def test_ptm2_runs_with_a_configured_model_and_says_which(revisit: Path) -> None:
    """``self`` (every edit weighs 1) stands in for a Chinese BERT: the metric runs on the
    same M2 blocks, one sentence score per sentence, and its signature names the model."""
    corpus = load_corpus(revisit, "mucgec")
    report = evaluate(corpus, metrics=["ptm2"], method="ew", ptm2_model="self", bootstrap=0)
    assert "ptm2" not in report["unavailable"]
    assert "self" in report["metrics"]["ptm2"]["signature"]
    assert set(report["sentence"]["metrics"]) == {"ptm2"}
    assert all(0.0 <= report["systems"][s]["ptm2"] <= 1.0 for s in SYSTEMS)
