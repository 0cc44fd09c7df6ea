"""PT-M2 / PT-ERRANT: `self` weights give exactly the unweighted comparison (spec numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.m2 import parse_m2, read_m2
from gecscore.ptm2 import PTM2InputError, score_ptm2
from gecscore.weights import SelfWeights

# char-metric.md section 8 (ChERRANT, MuCGEC dev, default references).
MUCGEC = {
    "example": (1084, 1635, 3003, 0.3987, 0.2652, 0.3622, (0.2759, 0.3424, 0.3614)),
    "source": (24, 6, 3618, 0.8, 0.0066, 0.0319, (0.0222, 0.0304, 0.0318)),
    "noop": (0, 0, 3625, 1.0, 0.0, 0.0, (0.0, 0.0, 0.0)),
    "oracle1": (4392, 0, 0, 1.0, 1.0, 1.0, (1.0, 1.0, 1.0)),
}


@pytest.fixture(scope="module")
def mucgec_refs(shared_data: Path) -> list:  # type: ignore[type-arg]
    return read_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.m2")


@pytest.mark.parametrize("system", sorted(MUCGEC))
def test_self_weights_reproduce_cherrant_on_mucgec_dev(
    system: str,
    mucgec_refs: list,
    shared_data: Path,  # type: ignore[type-arg]
) -> None:
    tp, fp, fn, p, r, f, first_k = MUCGEC[system]
    hyp = read_m2(shared_data / "mucgec-dev" / f"{system}_pred_dev.m2")
    result = score_ptm2(hyp, mucgec_refs, SelfWeights())
    assert (result.tp, result.fp, result.fn) == (tp, fp, fn)
    assert (round(result.p, 4), round(result.r, 4), round(result.f, 4)) == (p, r, f)
    for k, expected in zip((1, 2, 3), first_k, strict=True):
        assert round(score_ptm2(hyp, mucgec_refs, SelfWeights(), max_refs=k).f, 4) == expected
    assert "weights=self" in result.signature and "level=corpus" in result.signature


def test_self_weights_reproduce_the_cherrant_demo(shared_data: Path) -> None:
    demo = shared_data / "cherrant-demo"
    result = score_ptm2(
        read_m2(demo / "demo.hyp.m2.char"), read_m2(demo / "demo.ref.m2.char"), SelfWeights()
    )
    assert (result.tp, result.fp, result.fn) == (8, 19, 35)
    assert (round(result.p, 4), round(result.r, 4), round(result.f, 4)) == (0.2963, 0.186, 0.2649)


@pytest.mark.parametrize(
    ("system", "counts"),
    [("AMU", (483, 795, 1934)), ("CAMB", (725, 1329, 1886)), ("INPUT", (0, 0, 2070))],
)
def test_self_weights_reproduce_errant_compare_on_conll14(
    system: str, counts: tuple[int, int, int], shared_data: Path
) -> None:
    folder = shared_data / "cleme-conll14"
    result = score_ptm2(
        read_m2(folder / f"conll14-{system}.errant"),
        read_m2(folder / "conll14.errant"),
        SelfWeights(),
        granularity="word",
    )
    assert (result.tp, result.fp, result.fn) == counts
    assert result.signature.startswith("metric=ptm2|") and "|granularity=word|" in result.signature


def test_sentence_level_oracle_is_perfect_and_noop_is_not(
    mucgec_refs: list, shared_data: Path
) -> None:  # type: ignore[type-arg]
    oracle = score_ptm2(
        read_m2(shared_data / "mucgec-dev" / "oracle1_pred_dev.m2"),
        mucgec_refs,
        SelfWeights(),
        level="sentence",
    )
    assert oracle.f == 1.0
    noop = score_ptm2(
        read_m2(shared_data / "mucgec-dev" / "noop_pred_dev.m2"),
        mucgec_refs,
        SelfWeights(),
        level="sentence",
    )
    # A do-nothing system scores F = 1 exactly on the sentences where some reference is
    # "no error" (P = R = 1 there) and 0 elsewhere.
    no_error = sum(1 for s in noop.sentences if not s.skipped and s.f == 1.0)
    assert 0 < no_error < len(noop.sentences)
    assert noop.f == pytest.approx(no_error / sum(1 for s in noop.sentences if not s.skipped))


def test_mismatched_block_counts_are_a_clear_error(mucgec_refs: list) -> None:  # type: ignore[type-arg]
    with pytest.raises(PTM2InputError, match="1137"):
        score_ptm2(mucgec_refs[:10], mucgec_refs, SelfWeights())


def test_overlapping_reference_edits_are_a_clear_error() -> None:
    m2 = "S a b c\nA 0 2|||R|||x|||REQUIRED|||-NONE-|||0\nA 1 3|||R|||y|||REQUIRED|||-NONE-|||0\n"
    blocks = parse_m2(m2)
    with pytest.raises(
        PTM2InputError, match="reference block at line 1: overlapping edits at token 1"
    ):
        score_ptm2(blocks, blocks, SelfWeights(), granularity="word")
