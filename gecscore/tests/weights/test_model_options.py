"""The model options ``ptm2`` and ``cleme2`` share (``gecscore.commands.arguments``): a model
or device that cannot be used is one line naming the flag, in both commands alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from gecscore.cli import main

M2 = "S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\n"


@pytest.fixture
def m2_file(tmp_path: Path) -> str:
    path = tmp_path / "one.m2"
    path.write_text(M2, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", ["ptm2", "cleme2"])
def test_a_missing_model_is_one_line_naming_the_flag(
    command: str, m2_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "no-such-model")
    assert main([command, "--hyp", m2_file, "--ref", m2_file, "--model", missing]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: --model {missing}: Model ")
    assert captured.err.count("\n") == 1 and captured.out == ""


@pytest.mark.parametrize("command", ["ptm2", "cleme2"])
def test_an_unknown_device_in_the_environment_is_one_line(
    command: str,
    m2_file: str,
    tiny_bert: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEC_BERT_DEVICE", "tpu")
    argv = [command, "--hyp", m2_file, "--ref", m2_file, "--model", str(tiny_bert)]
    assert main([*argv, "--layers", "2"]) == 2
    assert capsys.readouterr().err == (
        "error: unknown device 'tpu' in $GEC_BERT_DEVICE: use auto, cpu or cuda\n"
    )


def test_an_unknown_layer_is_one_line_naming_the_model(
    m2_file: str, tiny_bert: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ptm2", "--hyp", m2_file, "--ref", m2_file, "--model", str(tiny_bert)]
    assert main([*argv, "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --model {tiny_bert}: bert-score has no default layer")
    assert "give the layer explicitly" in err and "--" not in err.split(":", 2)[2]
