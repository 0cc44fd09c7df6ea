"""One Result meaning for every metric of the registry (gecscore/README.md, "What a Result
holds"), each on small real data, through ``get_metric`` AND its command:

* the command's ``--json`` line is the Result's data: ``json.loads(line) == {"system": FILE,
  **result.to_dict()}`` (``m2score`` names the file without its folder);
* the fields have one type and one precision everywhere: floats at full precision (the
  summed counts' P/R/F to the last bit, never the 4 decimals the tools print), ``beta`` and
  ``f`` set exactly for the metrics with an F-beta, plain JSON data without NaN.

The model-based metrics run on the tiny random models and the local chat server of
``tests/reffree`` (torch, transformers); ``gleu-gecm`` has no command and is checked through
the API only.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gecscore import Gold, Result, get_metric, metric_names, read_m2
from gecscore.cli import main
from gecscore.counts import Counts
from gecscore.english.textfiles import read_text_lines
from gecscore.m2 import write_m2
from gecscore.metric import SentenceScore
from gecscore.registry import METRICS

# Session fixtures of the model-based metrics' tests (tiny models, SEEDA lines), used by name.
from tests.reffree.conftest import regressors, seeda, texts, tiny_gpt2

__all__ = ["regressors", "seeda", "texts", "tiny_gpt2"]

N = 40  # sentences of each corpus

# The metrics that compute an F-beta: ``beta`` and ``f`` are set exactly for these.
F_BETA = {"cherrant", "cleme", "errant", "green", "imeasure", "m2", "ptm2", "ptm2-m2", "sentm2"}
# How each edit-counting metric makes P/R/F from its summed counts (gecscore.counts).
CONVENTIONS = {
    "cherrant": "errant",
    "errant": "errant",
    "cleme": "errant",
    "ptm2": "errant",
    "m2": "m2scorer",
    "ptm2-m2": "m2scorer",
    "imeasure": "imeasure",
}
# Scores that are whole numbers or short fractions by nature (Scribendi's -1/0/1 sum, the
# judges' 1-5 marks): their digits say nothing about rounding.
COARSE = {"scribendi", "llm-s", "llm-e"}
REFFREE = importlib.util.find_spec("torch") is not None

Case = tuple[Result, list[str] | None, str | None]  # (API result, command line, system key)


def _write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _write_m2(path: Path, source: Path) -> str:
    path.write_text(write_m2(read_m2(source)[:N]), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def files(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The first N sentences of MuCGEC dev (M2), CoNLL-14 (gold M2, AMU, source, two text
    references) and CLEME's CoNLL-14 ERRANT files."""
    root = tmp_path_factory.mktemp("result-contract")
    conll, mucgec = shared_data / "conll14", shared_data / "mucgec-dev"
    cleme = shared_data / "cleme-conll14"
    paths = {
        "zh_hyp": _write_m2(root / "zh_hyp.m2", mucgec / "example_pred_dev.m2"),
        "zh_ref": _write_m2(root / "zh_ref.m2", mucgec / "MuCGEC_dev.m2"),
        "en_hyp": _write_m2(root / "en_hyp.m2", cleme / "conll14-AMU.errant"),
        "en_ref": _write_m2(root / "en_ref.m2", cleme / "conll14.errant"),
        "gold": _write_m2(root / "gold.m2", conll / "conll14st-test.m2"),
    }
    texts_of = {
        "amu": conll / "systems" / "AMU",
        "src": conll / "conll14st-test.tok.src",
        "ref0": conll / "refs" / "ptm2" / "ref0",
        "ref1": conll / "refs" / "ptm2" / "ref1",
    }
    for name, path in texts_of.items():
        paths[name] = _write_lines(root / f"{name}.txt", read_text_lines(path).lines[:N])
    return paths


def _lines(path: str) -> list[str]:
    return read_text_lines(path).lines


def _m2_pair(hyp: str, ref: str) -> tuple[list[str], Gold, Gold]:
    gold = Gold(read_m2(ref))
    return gold.sources, Gold(read_m2(hyp)), gold


def _case(name: str, files: dict[str, str], request: pytest.FixtureRequest) -> Case:
    """The API's Result of metric ``name`` and the command line that must print it."""
    from gecscore.weights import SelfWeights

    metric: Any = get_metric(name)
    gold = Gold(read_m2(files["gold"]))
    amu, refs = _lines(files["amu"]), [_lines(files["ref0"]), _lines(files["ref1"])]
    text_refs = ["--ref", files["ref0"], files["ref1"]]
    text_args = ["--src", files["src"], "--hyp", files["amu"], *text_refs, "--json"]
    gold_args = ["--hyp", files["amu"], "--ref", files["gold"], "--json"]
    if name in ("cherrant", "errant", "cleme", "cleme2", "ptm2"):
        lang = "zh" if name in ("cherrant", "ptm2", "cleme") else "en"
        hyp, ref = files[f"{lang}_hyp"], files[f"{lang}_ref"]
        config = metric.Config(weights=SelfWeights()) if name == "ptm2" else metric.Config()
        result = metric(config).score_corpus(*_m2_pair(hyp, ref))
        command = {"cherrant": ["compare"], "errant": ["errant-compare"]}.get(name, [name])
        extra = ["--model", "self"] if name == "ptm2" else []
        return result, [*command, "--hyp", hyp, "--ref", ref, *extra, "--json"], hyp
    if name in ("m2", "sentm2", "imeasure"):
        result = metric().score_corpus(gold.sources, amu, gold)
        command = {"m2": ["m2score"], "sentm2": ["m2score", "--sentence"]}.get(name, [name])
        system = Path(files["amu"]).name if name != "imeasure" else files["amu"]
        return result, [*command, *gold_args], system
    if name == "ptm2-m2":
        result = metric(metric.Config(weights=SelfWeights())).score_corpus(gold.sources, amu, gold)
        return result, ["ptm2", "--base", "m2", "--model", "self", *gold_args], files["amu"]
    sources = _lines(files["src"])
    if name == "gleu":
        result = metric(metric.Config(iterations=20)).score_corpus(sources, amu, refs)
        return result, ["gleu", *text_args, "--iterations", "20"], files["amu"]
    if name == "green":
        return metric().score_corpus(sources, amu, refs), ["green", *text_args], files["amu"]
    if name == "gleu-gecm":
        result = metric(metric.Config(iterations=20)).score_corpus(sources, amu, refs)
        return result, None, None  # no command
    return _model_case(name, metric, request)


def _model_case(name: str, metric: Any, request: pytest.FixtureRequest) -> Case:
    """SOME, IMPARA and Scribendi on the tiny random models (SEEDA lines)."""
    if not REFFREE:
        pytest.skip("the model-based metrics need torch and transformers ([reffree])")
    lines = request.getfixturevalue("seeda")
    root = request.getfixturevalue("tmp_path")
    src = _write_lines(root / "src.txt", lines["INPUT"])
    hyp = _write_lines(root / "hyp.txt", lines["BART"])
    args = ["--src", src, "--hyp", hyp, "--json", "--sentence"]
    if name == "scribendi":
        options = {"model": str(request.getfixturevalue("tiny_gpt2"))}
        flags = ["--model", options["model"]]
    else:
        models = request.getfixturevalue("regressors")
        aspects = ("g", "f", "m") if name == "some" else ("qe", "se")
        options = {f"model_{aspect}": str(models[aspect]) for aspect in aspects}
        flags = [item for a in aspects for item in (f"--model-{a}", str(models[a]))]
    config = metric.Config(**options, device="cpu", batch_size=8)
    result = metric(config).score_corpus(lines["INPUT"], lines["BART"])
    return result, [name, *args, *flags, "--device", "cpu", "--batch-size", "8"], hyp


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(argv) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _check_types(name: str, result: Result) -> None:
    """One type per field, whatever the metric."""

    def number(value: object) -> bool:
        return isinstance(value, float | int) and not isinstance(value, bool)

    assert result.metric == name and isinstance(result.signature, str)
    assert type(result.score) is float, (name, type(result.score))
    for value in (result.precision, result.recall, result.beta, result.f):
        assert value is None or type(value) is float, (name, value)
    assert (result.beta is not None) == (name in F_BETA), name
    assert (result.f is not None) == (result.beta is not None), name
    assert result.counts is None or (
        len(result.counts) == 3 and all(number(c) for c in result.counts)
    ), name
    assert all(isinstance(s, SentenceScore) and type(s.score) is float for s in result.sentences)
    assert isinstance(result.details, Mapping)
    data = result.to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data  # plain JSON data, no NaN


def _check_precision(name: str, result: Result) -> None:
    """Full precision: P/R/F are the summed counts' to the last bit (never rounded); other
    scores keep their digits."""
    if name in CONVENTIONS:
        assert result.counts is not None and result.beta is not None
        expected = Counts(*result.counts).prf(result.beta, convention=CONVENTIONS[name])  # type: ignore[arg-type]
        assert (result.precision, result.recall, result.f) == expected, name
        values = [v for v in expected if v is not None]
        assert any(round(v, 4) != v for v in values), f"{name}: pick data with more digits"
    elif name not in COARSE:
        assert round(result.score, 4) != result.score, name
    if name in F_BETA and name not in ("imeasure",):
        assert result.f == result.score, name


@pytest.mark.parametrize("name", metric_names())
def test_api_and_command_give_one_result_meaning(
    name: str,
    files: dict[str, str],
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if name in ("llm-s", "llm-e"):
        _judge_case(name, request, capsys)
        return
    result, argv, system = _case(name, files, request)
    _check_types(name, result)
    _check_precision(name, result)
    if argv is None:
        assert METRICS[name].commands == ()  # a metric without a command
        return
    (printed,) = _run(argv, capsys)
    assert printed == {"system": system, **result.to_dict()}


def _judge_case(
    name: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """The LLM judges: the API and the command against one chat server."""
    if not REFFREE:
        pytest.skip("the model-based metrics need torch and transformers ([reffree])")
    from tests.reffree.chat_server import ChatServer

    lines = request.getfixturevalue("seeda")
    root = request.getfixturevalue("tmp_path")
    src = _write_lines(root / "src.txt", lines["INPUT"])
    hyp = _write_lines(root / "hyp.txt", lines["BART"])
    metric: Any = get_metric(name)
    level = "sent" if name == "llm-s" else "edit"
    with ChatServer() as server:
        result = metric(metric.Config(model="m", url=server.url)).score_corpus(
            lines["INPUT"], lines["BART"]
        )
        argv = ["llm-judge", "--level", level, "--url", server.url, "--model", "m"]
        (printed,) = _run([*argv, "--src", src, "--hyp", hyp, "--json"], capsys)
    _check_types(name, result)
    _check_precision(name, result)
    assert printed == {"system": hyp, **result.to_dict()}


def test_a_sentence_without_a_score_is_null_in_json() -> None:
    # An unjudged sentence (the LLM judges) is NaN in the Result and null in its data.
    result = Result("llm-s", 3.0, "sig", sentences=(SentenceScore(math.nan), SentenceScore(2.0)))
    data = result.to_dict()
    assert [s["score"] for s in data["sentences"]] == [None, 2.0]
    json.dumps(data, allow_nan=False)


def test_details_become_plain_data() -> None:
    result = Result("x", 0.5, "sig", counts=(1, 2, 3), details={"t": (1, 2), 3: {"k": (4,)}})
    assert result.to_dict()["details"] == {"t": [1, 2], "3": {"k": [4]}}
    assert result.to_dict()["counts"] == [1, 2, 3]
