"""The commands ``scribendi``, ``some`` and ``llm-judge`` print what the library computes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore import get_metric
from gecscore.cli import main
from tests.reffree.chat_server import ChatServer


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_scribendi_command_prints_the_library_score(
    tiny_gpt2: Path, seeda: dict[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path / "src.txt", seeda["INPUT"])
    hyp = _write(tmp_path / "hyp.txt", seeda["BART"])
    code = main(
        ["scribendi", "--src", src, "--hyp", hyp, "--model", str(tiny_gpt2), "--device", "cpu"]
        + ["--json", "--sentence"]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    Scribendi = get_metric("scribendi")
    result = Scribendi(Scribendi.Config(model=str(tiny_gpt2), device="cpu")).score_corpus(
        seeda["INPUT"], seeda["BART"]
    )
    assert printed == {"system": hyp, **result.to_dict()}


def test_a_missing_model_is_a_one_line_error_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEC_SOME_MODEL_G", raising=False)
    src = _write(tmp_path / "src.txt", ["A b ."])
    assert main(["some", "--src", src, "--hyp", src]) == 2
    assert "--model-g" in capsys.readouterr().err


def test_llm_judge_command_ranks_several_systems(
    seeda: dict[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path / "src.txt", seeda["INPUT"])
    names = ["REF-F", "BART", "PIE"]
    hyps = [_write(tmp_path / f"{name}.txt", seeda[name]) for name in names]
    with ChatServer() as server:
        argv = ["llm-judge", "--src", src, "--url", server.url, "--model", "m", "--json"]
        for hyp in hyps:
            argv += ["--hyp", hyp]
        assert main(argv) == 0
        Judge = get_metric("llm-s")
        expected = Judge(Judge.Config(model="m", url=server.url)).rank_systems(
            seeda["INPUT"], [seeda[name] for name in names]
        )
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [p["score"] for p in printed] == expected
    assert printed[0]["signature"].endswith("|aggregate=trueskill")
