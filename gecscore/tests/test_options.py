"""One place for option checks (gecscore.options): every metric's Config refuses a bad value
of each of its options with an OptionError (a GECError and a ValueError) naming the option;
and what is missing here (a package, a model, a setting) is one kind of error, Unavailable.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import fields
from pathlib import Path

import pytest

import gecscore.errors
from gecscore import get_metric, metric_names
from gecscore.errors import GECError, OptionError, Unavailable

NAN, INF = math.nan, math.inf
# Bad values of every checked option, by its name in the Configs.
BAD: dict[str, tuple[object, ...]] = {
    "beta": (NAN, INF, -INF, 0.0, -0.5, "0.5"),
    "weight": (NAN, INF, 0.0, -1.0),
    "timeout": (NAN, INF, 0.0, -1.0),
    "weight_g": (NAN, INF, -0.1),
    "weight_f": (NAN, INF, -0.1),
    "weight_m": (NAN, INF, -0.1),
    "retry_wait": (NAN, INF, -1.0),
    "threshold": (NAN, 1.5, -0.1, INF),
    "device": ("gpu", "cuda:x", "tpu:0", "", None),
    "max_refs": (0, -1, 1.5, True),
    "reference_num": (0, -1, 1.5),
    "workers": (0, -1, 2.0, None),
    "iterations": (0, -1, 1.5, None),
    "order": (0, -1, 1.5),
    "n": (0, -1, 1.5),
    "batch_size": (0, -1, 1.5),
    "max_length": (1, 0, -1),
    "chunk_size": (0, -1, 1.5),
    "concurrency": (0, -1),
    "max_targets": (0, -1),
    "max_new_tokens": (0, -1),
    "max_response_bytes": (0, -1),
    "retries": (-1, 1.5),
    "max_unchanged_words": (-1, 1.5, None),
    "max_arcs": (-1, 1.5),
    "mode": ("spans", "", None),
    "cat": (0, 4, "1"),
    "level": ("document", None),
    "assumption": ("maybe",),
    "granularity": ("phrase",),
    "strategy": ("some",),
    "select": ("precision",),
    "draw": ("sometimes",),
    "unit": ("byte",),
    "optimise": ("both",),
    "backend": ("grpc",),
}
# Options with no range to check: paths, model names and settings (checked when the model is
# loaded: Unavailable), flags, free text, the LLM judge's criteria (checked when the judge is
# built: its choices depend on the judge), objects.
FREE = {
    "resources",
    "simplified",
    "single",
    "multi",
    "filt",
    "length_weighting",
    "factors",
    "weights",
    "model",
    "model_g",
    "model_f",
    "model_m",
    "model_qe",
    "model_se",
    "url",
    "api_key",
    "seed",
    "criteria",
    "cache_dir",
}


def _options(name: str) -> list[str]:
    return [option.name for option in fields(get_metric(name).Config)]


@pytest.mark.parametrize("name", metric_names())
def test_every_option_of_every_metric_is_checked_or_free(name: str) -> None:
    unclassified = [option for option in _options(name) if option not in BAD and option not in FREE]
    assert unclassified == [], f"{name}: classify the new options in BAD or FREE"


CASES = [
    (name, option, value)
    for name in metric_names()
    for option in _options(name)
    for value in BAD.get(option, ())
]


@pytest.mark.parametrize(("name", "option", "value"), CASES)
def test_a_bad_value_is_an_option_error_naming_the_option(
    name: str, option: str, value: object
) -> None:
    Config = get_metric(name).Config
    with pytest.raises(OptionError, match=option) as info:
        Config(**{option: value})
    assert isinstance(info.value, ValueError) and isinstance(info.value, GECError)


@pytest.mark.parametrize("name", metric_names())
def test_the_defaults_and_the_edges_are_accepted(name: str) -> None:
    Config = get_metric(name).Config
    Config()
    edges = {
        "threshold": 1.0,
        "max_unchanged_words": 0,
        "max_arcs": 0,
        "beta": 1e-9,
        "device": "cuda:1",
    }
    for option in set(_options(name)) & set(edges):
        Config(**{option: edges[option]})


def test_the_error_module_exports_every_error_kind() -> None:
    kinds = {
        name
        for name, value in vars(gecscore.errors).items()
        if inspect.isclass(value) and issubclass(value, GECError)
    }
    assert kinds == {"GECError", "OptionError", "InputError", "InputFormatError", "Unavailable"}
    assert kinds <= set(gecscore.errors.__all__)


def test_what_is_missing_here_is_one_kind_of_error() -> None:
    from gecscore.english.errant_edits import EnglishModelMissing
    from gecscore.meta.revisitcgec_runs import MetricUnavailable
    from gecscore.reffree.models import MissingDependencyError, ModelSettingError
    from gecscore.resources import ResourceError
    from gecscore.weights.model import ModelNotFoundError

    for kind in (
        EnglishModelMissing,
        MetricUnavailable,
        MissingDependencyError,
        ModelSettingError,
        ModelNotFoundError,
        ResourceError,
    ):
        assert issubclass(kind, Unavailable), kind


@pytest.mark.parametrize("name", ["some", "impara", "scribendi"])
def test_a_model_metric_without_its_model_is_unavailable(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in (
        "GEC_SOME_MODEL_G",
        "GEC_SOME_MODEL_F",
        "GEC_SOME_MODEL_M",
        "GEC_IMPARA_MODEL_QE",
        "GEC_IMPARA_MODEL_SE",
        "GEC_SCRIBENDI_MODEL",
    ):
        monkeypatch.delenv(variable, raising=False)
    metric = get_metric(name)
    with pytest.raises(Unavailable, match="GEC_"):
        metric(metric.Config()).score_corpus(["A b ."], ["A b ."])
    missing = str(tmp_path / "no-such-model")
    options = {option: missing for option in _options(name) if option.startswith("model")}
    with pytest.raises(Unavailable, match="no-such-model"):
        metric(metric.Config(**options)).score_corpus(["A b ."], ["A b ."])


def test_an_llm_judge_without_an_endpoint_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEC_LLM_URL", raising=False)
    monkeypatch.delenv("GEC_LLM_MODEL", raising=False)
    judge = get_metric("llm-s")
    with pytest.raises(Unavailable, match="no LLM endpoint configured"):
        judge(judge.Config(model="m"))
    with pytest.raises(Unavailable, match="no model name"):
        judge(judge.Config(url="http://127.0.0.1:9/v1"))
