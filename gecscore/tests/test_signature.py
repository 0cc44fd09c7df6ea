"""Signatures: one formatter (gecscore.signature), and every metric's signature text kept
byte for byte (stored signatures key caches in the database; the CLI prints them)."""

from __future__ import annotations

import pytest

from gecscore.cleme.scorers import _signature as cleme_signature
from gecscore.cleme.weighting import NO_WEIGHTING, default_weighting
from gecscore.compare import compare_m2
from gecscore.compare import signature as compare_signature
from gecscore.english.errant_compare import CompareOptions
from gecscore.english.gleu import GleuResult
from gecscore.english.imeasure import IMeasureConfig
from gecscore.green import signature as green_signature
from gecscore.m2 import parse_m2
from gecscore.maxmatch.scorer import M2Result
from gecscore.ptm2 import signature as ptm2_signature
from gecscore.ptm2_m2 import signature as ptm2_m2_signature
from gecscore.signature import (
    COLON,
    COLON_V,
    KEYED,
    WEIGHTS,
    Signature,
    SignatureStyle,
    settings_of,
)
from gecscore.weights.base import SelfWeights


def test_keyed_style_names_metric_and_version_then_fields_in_order() -> None:
    sig = Signature("gleu", "7", (("order", "4"), ("refs", "2")))
    assert sig.text == "metric=gleu|version=7|order=4|refs=2"
    assert str(sig) == sig.text
    assert sig.parts == ["metric=gleu", "version=7", "order=4", "refs=2"]


def test_colon_styles_write_the_bare_name_and_their_version_key() -> None:
    fields = (("beta", "0.5"),)
    assert Signature("m2score", "3.2", fields, COLON).text == "m2score|version:3.2|beta:0.5"
    assert Signature("CLEME", "1.0", fields, COLON_V).text == "CLEME|v:1.0|beta:0.5"


def test_bare_fields_are_written_as_is_and_empty_ones_left_out() -> None:
    sig = Signature("x", "1", (("single", None), ("", None), ("weights=self", None)))
    assert sig.text == "metric=x|version=1|single|weights=self"


def test_weight_provider_signature_has_no_version() -> None:
    assert Signature("self", None, style=WEIGHTS).text == "weights=self"
    assert SelfWeights().signature == "weights=self"


def test_signature_is_a_read_only_value() -> None:
    a = Signature("m", "1", (("k", "v"),))
    b = Signature("m", "1", (("k", "v"),), KEYED)
    assert a == b and hash(a) == hash(b)
    assert a != Signature("m", "2", (("k", "v"),))
    assert a.field("k") == "v"
    with pytest.raises(KeyError):
        a.field("missing")
    with pytest.raises(AttributeError):
        a.metric = "other"  # type: ignore[misc]
    assert SignatureStyle(name_key=None, version_key="v", assign=":") == COLON_V


# --- every metric's text, as published (and stored) before the Signature type ---------------

BLOCK = "S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n"


def test_cherrant_compare_signature() -> None:
    blocks = parse_m2(BLOCK)
    assert compare_m2(blocks, blocks).signature == (
        "metric=cherrant-f0.5|version=1|mode=correction|refs=all|refnum=any"
    )
    result = compare_m2(
        blocks,
        blocks,
        max_refs=2,
        reference_num=1,
        mode="ds",
        beta=1.0,
        signature_fields=(("granularity", "char"), ("resources", "cherrant:0123abcd")),
    )
    assert result.signature == (
        "metric=cherrant-f1|version=1|mode=ds|refs=first2|refnum=1"
        "|granularity=char|resources=cherrant:0123abcd"
    )
    assert compare_signature(beta=0.5, mode="cse", max_refs=None, reference_num=None).text == (
        "metric=cherrant-f0.5|version=1|mode=cse|refs=all|refnum=any"
    )


def test_errant_signature_with_flags() -> None:
    assert CompareOptions().signature == "metric=errant-f0.5|version=errant-3.0.2|mode=cs"
    options = CompareOptions(
        mode="dt", beta=1.0, single=True, multi=True, filt=("R:SPELL", "M:DET")
    )
    assert options.signature == (
        "metric=errant-f1|version=errant-3.0.2|mode=dt|single|multi|filt=R:SPELL,M:DET"
    )


def test_m2scorer_gleu_and_imeasure_signatures() -> None:
    m2 = M2Result(1, 0, 0, 1.0, 1.0, 1.0, 0.5, [], [], max_unchanged_words=2)
    assert (
        m2.signature == "m2score|version:m2scorer-3.2|beta:0.5|max_unchanged_words:2|case:sensitive"
    )
    gleu = GleuResult(0.5, 500, "python2", 2, None, 0.0)
    assert gleu.signature == (
        "metric=gleu|version=gec-ranking-50b5032|order=4|refs=2|draw=python2|iterations=500"
    )
    assert green_signature(n=4, beta=2.0, unit="word", references=2) == (
        "metric=green|version=gec-metrics-0.1.1|n=4|beta=2|unit=word|refs=2"
    )
    assert IMeasureConfig().signature == (
        "imeasure|version:imeasure-fc79fdf-nomix|level:token|max:correction-wacc"
        "|optimise:sentence|w:2|beta:1|refs:per-annotator"
    )


def test_ptm2_signatures_end_with_the_weight_provider() -> None:
    provider = SelfWeights()
    assert ptm2_signature(
        provider, level="corpus", granularity="char", beta=0.5, max_refs=None
    ).text == (
        "metric=ptm2|version=1|level=corpus|granularity=char|beta=0.5"
        "|selection=greedy-running-f4dp|refs=all|weights=self"
    )
    assert ptm2_signature(
        provider, level="sentence", granularity="word", beta=1, max_refs=2
    ).text == (
        "metric=ptm2|version=1|level=sentence|granularity=word|beta=1"
        "|selection=best-f-per-sentence|refs=first2|weights=self"
    )
    assert ptm2_m2_signature(provider, level="sentence", beta=0.5, max_unchanged_words=2).text == (
        "metric=ptm2-m2|version=1|base=sentm2|level=sentence|beta=0.5|max_unchanged_words=2"
        "|edits=maxmatch-lattice(m2scorer-3.2)|selection=best-f-per-sentence|weights=self"
    )


def test_cleme_signature() -> None:
    assert cleme_signature("corpus", "dependent", 0.5, NO_WEIGHTING, 0.0, None) == (
        "CLEME|v:1.0(THUKElab/CLEME@5fc7617)|level:corpus|assume:dependent|beta:0.5"
        "|weight:none|refs:all"
    )
    assert cleme_signature("sentence", "independent", 1.0, None, 0.0, 3, "accuracy") == (
        "CLEME|v:1.0(THUKElab/CLEME@5fc7617)|level:sentence|assume:independent|beta:1"
        "|weight:none|refs:3|select:accuracy"
    )


def test_settings_of_leaves_out_only_the_measured_length_bias() -> None:
    """CLEME's b is measured from each system's chunks: signatures that differ
    only there share their settings; any chosen option still tells them apart."""
    table = default_weighting("corpus", "dependent")
    one = cleme_signature("corpus", "dependent", 0.5, table, 2.2056, None)
    other = cleme_signature("corpus", "dependent", 0.5, table, 2.2336, None)
    assert one != other and ",b=2.2056)" in one
    assert settings_of(one) == settings_of(other)
    assert settings_of(one) == one.replace("b=2.2056", "b=*")
    beta_one = cleme_signature("corpus", "dependent", 1.0, table, 2.2056, None)
    assert settings_of(beta_one) != settings_of(one)
    plain = cleme_signature("corpus", "dependent", 0.5, NO_WEIGHTING, 0.0, None)
    assert settings_of(plain) == plain
    keyed = Signature("gleu", "7", (("b", "2"), ("order", "4"))).text  # a chosen field named b
    assert settings_of(keyed) == keyed
