"""The one calling convention (gecscore.metric): looked up by name, built from a Config,
``score_corpus`` returns a Result, and misuse is a GECError that says what is wrong."""

from __future__ import annotations

import pytest

import gecscore
from gecscore.english.gleu import corpus_gleu

SOURCES = ["the cat sat on mat today .", "he go to school every days ."]
HYPOTHESES = ["the cat sat on the mat today .", "he goes to school every days ."]
REFERENCES = [
    ["the cat sat on the mat today .", "he goes to school every day ."],
    ["the cat sat on a mat today .", "he went to school every day ."],
]


def test_gleu_through_the_convention_equals_the_function() -> None:
    GLEU = gecscore.get_metric("gleu")
    metric = GLEU(GLEU.Config(iterations=20))
    result = metric.score_corpus(SOURCES, HYPOTHESES, REFERENCES)
    direct = corpus_gleu(SOURCES, HYPOTHESES, REFERENCES, iterations=20, sentence=True)
    assert result.metric == "gleu"
    assert result.score == direct.gleu
    assert result.signature == direct.signature
    assert [s.score for s in result.sentences] == direct.sentence_scores
    assert result.details["references"] == 2


def test_misuse_is_a_gecerror() -> None:
    GLEU = gecscore.get_metric("gleu")
    with pytest.raises(gecscore.GECError, match="unknown metric 'nope'"):
        gecscore.get_metric("nope")
    with pytest.raises(gecscore.GECError, match="draw must be one of"):
        GLEU.Config(draw="sometimes")
    with pytest.raises(gecscore.GECError, match="1 hypotheses for 2 sources"):
        GLEU().score_corpus(SOURCES, HYPOTHESES[:1], REFERENCES)
    with pytest.raises(gecscore.GECError, match="reference sets"):
        GLEU().score_corpus(SOURCES, HYPOTHESES, REFERENCES[0])  # type: ignore[arg-type]


def test_gold_is_its_blocks_and_has_every_attribute_its_type_declares() -> None:
    # Its type once declared a ``blocks`` attribute that no instance had (AttributeError).
    import inspect

    from gecscore.m2 import parse_m2

    blocks = parse_m2("S a b c\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\nS d e\n")
    gold = gecscore.Gold(blocks)
    assert tuple(gold) == tuple(blocks) and gold.sources == ["a b c", "d e"]
    for name in inspect.get_annotations(gecscore.Gold):
        assert hasattr(gold, name), f"Gold declares {name!r} but has no such attribute"
