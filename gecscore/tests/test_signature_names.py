"""A signature names its metric by the registry name: for every name ``get_metric`` knows, the
signature of the Result starts with that name (after ``metric=`` in the keyed spelling; CLEME's
published capitals aside), and no longer registry name also fits, so a stored signature says
which metric made it (``registry.metric_of_signature``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gecscore import Gold, get_metric, registry
from gecscore.english.errant_edits import EnglishModelMissing
from gecscore.m2 import parse_m2
from gecscore.metric import Metric, Result
from gecscore.weights import make_provider
from gecscore.weights.random_model import build_random_bert, build_random_gpt2
from tests.reffree.chat_server import ChatServer

GOLD = Gold(
    parse_m2(
        "S He go to school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
        "S A cat sat on mat .\nA 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||0\n"
    )
)
HYP_GOLD = Gold(
    parse_m2(
        "S He go to school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
        "S A cat sat on mat .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    )
)
SOURCES = GOLD.sources
HYPOTHESES = ["He goes to school .", "A cat sat on mat ."]
TEXT_REFERENCES = [["He goes to school .", "A cat sat on the mat ."]]


MODEL_METRICS = ("some", "impara", "scribendi")


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny random models for the model-based metrics; none in an install without the
    [reffree] extra (torch, transformers), where those metrics are skipped."""
    if not all(importlib.util.find_spec(name) for name in ("torch", "transformers")):
        return {}
    root = tmp_path_factory.mktemp("signature-models")
    texts = [*SOURCES, *HYPOTHESES, *TEXT_REFERENCES[0]]
    found = {
        name: build_random_bert(root / name, texts, seed=seed, head="regression")
        for seed, name in enumerate(("g", "f", "m", "qe"), start=1)
    }
    found["se"] = build_random_bert(root / "se", texts, seed=5)
    found["gpt2"] = build_random_gpt2(root / "gpt2", texts, seed=3)
    return found


@pytest.fixture(scope="module")
def chat_url() -> Iterator[str]:
    with ChatServer() as server:
        yield server.url


def _scored(name: str, models: dict[str, Path], chat_url: str) -> tuple[Metric, Result]:
    """The metric ``name`` built with small options, and the Result of scoring the corpus."""
    cls = get_metric(name)
    options: dict[str, object] = {}
    sources = SOURCES
    hypotheses: Any = HYPOTHESES
    references: Any = GOLD
    if name in ("cherrant", "errant", "cleme", "cleme2", "ptm2"):
        hypotheses = HYP_GOLD  # edits in, no extractor or resources needed
    if name in ("ptm2", "ptm2-m2"):
        options["weights"] = make_provider("self")
    if name in ("gleu", "gleu-gecm", "green"):
        references = TEXT_REFERENCES
    if name in ("some", "impara", "scribendi", "llm-s", "llm-e"):
        references = ()
        options["device"] = "cpu"
    if name == "some":
        options.update(model_g=str(models["g"]), model_f=str(models["f"]), model_m=str(models["m"]))
    if name == "impara":
        options.update(model_qe=str(models["qe"]), model_se=str(models["se"]))
    if name == "scribendi":
        options["model"] = str(models["gpt2"])
    if name in ("llm-s", "llm-e"):
        options.update(model="tiny-judge", url=chat_url, retry_wait=0.0)
    metric = cls(cls.Config(**options))
    return metric, metric.score_corpus(sources, hypotheses, references)


@pytest.mark.parametrize("name", registry.metric_names())
def test_the_signature_starts_with_the_registry_name(
    name: str, models: dict[str, Path], chat_url: str
) -> None:
    if name in MODEL_METRICS and not models:
        pytest.skip("the model-based metrics need torch and transformers ([reffree])")
    try:
        _, result = _scored(name, models, chat_url)
        signature = result.signature
    except EnglishModelMissing:
        # LLM-E shows ERRANT edits, which need spaCy's English model; without it the signature
        # the Result would carry (the judge's own, see LLMJudge.score_corpus) is checked.
        judge: Any = get_metric(name)
        signature = judge(judge.Config(model="tiny-judge", url=chat_url)).signature
    first = signature.split("|", 1)[0].removeprefix("metric=")
    assert first.lower().startswith(name), signature
    assert registry.metric_of_signature(signature) == name


def test_metric_of_signature_reads_the_first_part_and_knows_old_texts_by_none() -> None:
    assert registry.metric_of_signature("metric=cherrant-f0.5|version=1|mode=correction") == (
        "cherrant"
    )
    assert registry.metric_of_signature("m2score|version:m2scorer-3.2|beta:0.5") == "m2"
    assert registry.metric_of_signature("sentm2|version:m2scorer-3.2|beta:0.5") == "sentm2"
    assert registry.metric_of_signature("CLEME2.0|v:2.0(THUKElab/CLEME@e90abea)") == "cleme2"
    assert registry.metric_of_signature("metric=ptm2-m2|version=1|base=m2") == "ptm2-m2"
    assert registry.metric_of_signature("metric=gleu-gecm|version=1") == "gleu-gecm"
    # Signatures stored before the names agreed (PT-M2's) belong to no registry name.
    assert registry.metric_of_signature("metric=pt-m2-char|version=1|level=corpus") is None
    assert registry.metric_of_signature("metric=pt-m2|version=1|base=m2") is None
