"""`python -m gecscore ptm2`: `--model self` prints exactly what `compare` prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("system", ["example", "source", "mix", "oracle1"])
@pytest.mark.parametrize("max_refs", [None, "1", "3"])
def test_self_equals_compare(
    system: str, max_refs: str | None, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "mucgec-dev"
    files = ["--hyp", str(folder / f"{system}_pred_dev.m2"), "--ref", str(folder / "MuCGEC_dev.m2")]
    extra = ["--max-refs", max_refs] if max_refs else []
    ours = run_json(capsys, "ptm2", *files, "--model", "self", "--json", *extra)
    theirs = run_json(capsys, "compare", *files, "--json", *extra)
    for key in ("counts", "precision", "recall", "score", "f", "beta"):
        assert ours[key] == theirs[key], key
    assert "weights=self" in ours["signature"]


def test_text_input_is_extracted_like_score(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "mucgec-dev"
    resources = shared_data / "cherrant-resources"
    files = ["--hyp", str(folder / "example_pred_dev.txt"), "--ref", str(folder / "MuCGEC_dev.txt")]
    ours = run_json(
        capsys, "ptm2", *files, "--model", "self", "--json", "--resources", str(resources)
    )
    # char-metric.md section 8: the example system, resources on.
    assert (ours["counts"], round(ours["score"], 4)) == ([1084, 1635, 3003], 0.3622)


def test_english_errant_files_use_word_edits(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "cleme-conll14"
    ours = run_json(
        capsys,
        "ptm2",
        "--hyp",
        str(folder / "conll14-AMU.errant"),
        "--ref",
        str(folder / "conll14.errant"),
        "--model",
        "self",
        "--json",
    )
    # english-metrics.md: errant_compare on the CLEME-provided files, AMU 483/795/1934.
    assert ours["counts"] == [483, 795, 1934]
    assert "granularity=word" in ours["signature"]


def test_bertscore_model_from_a_folder(
    tiny_bert: Path, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "cherrant-demo"
    files = ["--hyp", str(folder / "demo.hyp.m2.char"), "--ref", str(folder / "demo.ref.m2.char")]
    args = ["ptm2", *files, "--model", str(tiny_bert), "--layers", "2", "--device", "cpu", "--json"]
    first = run_json(capsys, *args, "--cache-dir", str(tmp_path))
    again = run_json(capsys, *args, "--cache-dir", str(tmp_path))
    assert first == again
    assert "weights=bertscore-F" in first["signature"] and "layer=2" in first["signature"]
    assert 0 < first["score"] < 1
    sentence = run_json(capsys, *args, "--level", "sentence")
    assert sentence["details"]["level"] == "sentence"


def test_missing_model_is_a_clear_error(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "cherrant-demo"
    status = main(
        [
            "ptm2",
            "--hyp",
            str(folder / "demo.hyp.m2.char"),
            "--ref",
            str(folder / "demo.ref.m2.char"),
            "--model",
            str(tmp_path / "bert-base-chinese"),
        ]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert "bert-base-chinese" in err and "never downloaded" in err


@pytest.mark.skipif(
    __import__("torch").cuda.is_available(), reason="a GPU is present: cuda is no error"
)
def test_cuda_without_a_gpu_is_a_clear_error(
    tiny_bert: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "cherrant-demo"
    files = ["--hyp", str(folder / "demo.hyp.m2.char"), "--ref", str(folder / "demo.ref.m2.char")]
    args = ["ptm2", *files, "--model", str(tiny_bert), "--layers", "2", "--device", "cuda"]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert "no CUDA GPU is available" in captured.err and "--device cpu" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_device_comes_from_the_environment_when_not_given(
    tiny_bert: Path,
    shared_data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = shared_data / "cherrant-demo"
    files = ["--hyp", str(folder / "demo.hyp.m2.char"), "--ref", str(folder / "demo.ref.m2.char")]
    args = ["ptm2", *files, "--model", str(tiny_bert), "--layers", "2", "--json"]
    monkeypatch.setenv("GEC_BERT_DEVICE", "cpu")
    on_cpu = run_json(capsys, *args)
    monkeypatch.setenv("GEC_BERT_DEVICE", "auto")
    assert run_json(capsys, *args) == on_cpu  # auto is the CPU here (or equal to it on a GPU)
    monkeypatch.setenv("GEC_BERT_DEVICE", "tpu")
    assert main(args) == 2
    assert "unknown device 'tpu'" in capsys.readouterr().err
