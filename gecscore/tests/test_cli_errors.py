"""The command line's contract for errors and output: what the library raises on purpose
(``GECError``) and unreadable files are one-line messages with exit status 2; every other
exception is a bug and keeps its traceback; a reader that closes stdout early (``| head``)
ends the command quietly; the shared options mean the same in every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gecscore.cli import main
from tests.shared import PACKAGE_DIR

# Runs the CLI with one more command, ``boom``, registered the way a metric family registers
# its commands (gecscore.registry.COMMANDS); ``boom`` raises what its argument names.
BOOM_COMMAND = """
import gecscore.errors

def register(subparsers):
    parser = subparsers.add_parser("boom")
    parser.add_argument("kind")
    parser.set_defaults(func=run)

def run(args):
    if args.kind == "ValueError":
        raise ValueError("planted")  # e.g. an internal bug in a comparison
    if args.kind == "KeyError":
        raise KeyError("planted")
    if args.kind == "InputError":
        raise gecscore.errors.InputError("planted")
    if args.kind == "OptionError":
        raise gecscore.errors.OptionError("planted")
    if args.kind == "OSError":
        open("/nonexistent/planted")
    return 0
"""
PROBE = """
import sys
from gecscore import registry
registry.COMMANDS["boom"] = "boom_command"
from gecscore.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _python(*argv: str, cwd: Path | None = None, **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *argv],
        cwd=cwd or PACKAGE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,  # type: ignore[arg-type]
    )


def _boom(tmp_path: Path, kind: str) -> subprocess.CompletedProcess:
    (tmp_path / "boom_command.py").write_text(BOOM_COMMAND, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    return _python("-c", PROBE, "boom", kind, env=env)


@pytest.mark.parametrize("kind", ["ValueError", "KeyError"])
def test_an_internal_bug_shows_its_traceback(tmp_path: Path, kind: str) -> None:
    done = _boom(tmp_path, kind)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert f"{kind}: " in done.stderr.splitlines()[-1]
    assert "error: " not in done.stderr


@pytest.mark.parametrize("kind", ["InputError", "OptionError"])
def test_an_error_of_the_library_is_one_line(tmp_path: Path, kind: str) -> None:
    done = _boom(tmp_path, kind)
    assert (done.returncode, done.stderr, done.stdout) == (2, "error: planted\n", "")


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    done = _boom(tmp_path, "OSError")
    assert done.returncode == 2
    assert done.stderr.startswith("error: [Errno 2]") and done.stderr.count("\n") == 1


# --- small inputs for every command that scores hypotheses -------------------------------

GOLD_M2 = "S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\nS d e f\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
HYP_M2 = "S a b c\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\nS d e f\nA 1 2|||R|||y|||REQUIRED|||-NONE-|||0\n\n"
ZH_REF = "1\t我喜欢苹果\t我很喜欢苹果\n"
ZH_HYP = "1\t我喜欢苹果\t我喜欢吃苹果\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    contents = {
        "gold.m2": GOLD_M2,
        "hyp.m2": HYP_M2,
        "src.txt": "a b c\nd e f\n",
        "ref.txt": "x b c\nd e f\n",
        "hyp1.txt": "x b c\nd y f\n",
        "hyp2.txt": "a b c\nd e f\n",
        "zh_ref.txt": ZH_REF,
        "zh_hyp.txt": ZH_HYP,
    }
    for name, text in contents.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return {name: str(tmp_path / name) for name in contents}


# Each command with two hypothesis files (the second given twice over with different names).
SEVERAL = {
    "compare": ["compare", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}", "--hyp", "{gold.m2}"],
    "cleme": ["cleme", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}", "--hyp", "{gold.m2}"],
    "cleme2": ["cleme2", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}", "--hyp", "{gold.m2}"],
    "ptm2": [
        "ptm2",
        "--model",
        "self",
        "--ref",
        "{gold.m2}",
        "--hyp",
        "{hyp.m2}",
        "--hyp",
        "{gold.m2}",
    ],
    "errant-compare": [
        "errant-compare",
        "--ref",
        "{gold.m2}",
        "--hyp",
        "{hyp.m2}",
        "--hyp",
        "{gold.m2}",
    ],
    "m2score": ["m2score", "--ref", "{gold.m2}", "--hyp", "{hyp1.txt}", "--hyp", "{hyp2.txt}"],
    "imeasure": ["imeasure", "--ref", "{gold.m2}", "--hyp", "{hyp1.txt}", "--hyp", "{hyp2.txt}"],
    "gleu": [
        "gleu",
        "--src",
        "{src.txt}",
        "--ref",
        "{ref.txt}",
        "--hyp",
        "{hyp1.txt}",
        "--hyp",
        "{hyp2.txt}",
    ],
}


def _argv(template: list[str], files: dict[str, str]) -> list[str]:
    return [files[word[1:-1]] if word.startswith("{") else word for word in template]


@pytest.mark.parametrize("command", sorted(SEVERAL))
def test_every_command_that_scores_hypotheses_takes_several(
    command: str, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(SEVERAL[command], files)
    hyps = [argv[i + 1] for i, word in enumerate(argv) if word == "--hyp"]
    assert main([*argv, "--json"]) == 0
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # One object per system, in order, each the result of that file alone.
    names = [obj["system"] for obj in objects]
    assert names in (hyps, [Path(h).name for h in hyps])  # m2score names the file only
    for hyp, obj in zip(hyps, objects, strict=True):
        alone = [*argv[: argv.index("--hyp")], "--hyp", hyp, "--json"]
        assert main(alone) == 0
        assert json.loads(capsys.readouterr().out) == obj
    assert objects[0] != objects[1]


def test_score_takes_several_parallel_files(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "score",
        "--ref",
        files["zh_ref.txt"],
        "--hyp",
        files["zh_hyp.txt"],
        "--resources",
        "none",
    ]
    assert main([*argv, "--hyp", files["zh_ref.txt"]]) == 0
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("== /")]
    assert len(headers) == 2 and out.count("F0.5") == 2
    assert out.index(f"== {files['zh_hyp.txt']}") < out.index(f"== {files['zh_ref.txt']}")


def test_one_hypothesis_prints_no_file_header(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "--ref", files["gold.m2"], "--hyp", files["hyp.m2"]]) == 0
    assert not capsys.readouterr().out.startswith("== ")


# --- options shared by the commands -------------------------------------------------------

BETA_COMMANDS = ["compare", "score", "ptm2", "m2score", "imeasure", "errant-compare", "green"]


@pytest.mark.parametrize("command", BETA_COMMANDS)
@pytest.mark.parametrize("beta", ["0", "-1", "nan", "inf", "half"])
def test_beta_is_a_positive_finite_number_everywhere(
    command: str, beta: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ["--model", "self"] if command == "ptm2" else []
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--beta", beta, "--hyp", "H", "--ref", "R", *model])
    assert exit_info.value.code == 2
    assert "argument --beta: must be a" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        # The bad option comes first: argparse stops at the first bad value.
        (["cherrant-m2", "--workers", "0", "IN"], "--workers"),
        (["score", "--workers", "0", "--hyp", "H", "--ref", "R"], "--workers"),
        (["cleme", "--workers", "-2", "--hyp", "H", "--ref", "R"], "--workers"),
        (["chunks", "--workers", "x", "--ref", "R"], "--workers"),
        (["meta", "rank", "--workers", "0", "--judgments", "J"], "--workers"),
        (["compare", "--max-refs", "0", "--hyp", "H", "--ref", "R"], "--max-refs"),
        (["cleme2", "--max-refs", "0", "--hyp", "H", "--ref", "R"], "--max-refs"),
        (["ptm2", "--max-arcs", "-1", "--hyp", "H", "--ref", "R", "--model", "self"], "--max-arcs"),
        (["cleme2", "--device", "tpu", "--hyp", "H", "--ref", "R", "--model", "m"], "--device"),
        (["imeasure", "--weight", "0", "--hyp", "H", "--ref", "R"], "--weight"),
        (["compare", "--hyp", "no-such-file.m2", "--ref", "R"], "--hyp"),
        (["gleu", "--src", ".", "--hyp", "H", "--ref", "R"], "--src"),
        # green and the model-based commands share the same argument types.
        (["green", "--n", "0", "--src", "S", "--hyp", "H", "--ref", "R"], "--n"),
        (["green", "--src", ".", "--hyp", "H", "--ref", "R"], "--src"),
        (["impara", "--threshold", "1.5", "--src", "S", "--hyp", "H"], "--threshold"),
        (["scribendi", "--threshold", "nan", "--src", "S", "--hyp", "H"], "--threshold"),
        (["some", "--batch-size", "0", "--src", "S", "--hyp", "H"], "--batch-size"),
        (["some", "--device", "gpu", "--src", "S", "--hyp", "H"], "--device"),
        (["llm-judge", "--timeout", "0", "--src", "S", "--hyp", "H"], "--timeout"),
        (["llm-judge", "--retries", "-1", "--src", "S", "--hyp", "H"], "--retries"),
        (["llm-judge", "--hyp", "no-such-file.txt", "--src", "S"], "--hyp"),
    ],
)
def test_a_bad_count_or_choice_is_a_usage_error_naming_the_flag(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert f"argument {flag}: " in capsys.readouterr().err


def test_a_contradiction_of_options_is_one_line_naming_the_flags(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ptm2", "--model", "self", "--base", "sentm2", "--level", "corpus"]
    assert main([*argv, "--ref", files["gold.m2"], "--hyp", files["hyp1.txt"]]) == 2
    err = capsys.readouterr().err
    assert err == "error: --base sentm2 is the sentence level; drop --level corpus\n"


def test_a_hypothesis_that_does_not_line_up_is_one_line(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = tmp_path / "short.m2"
    short.write_text(GOLD_M2.split("\n\n")[0] + "\n\n", encoding="utf-8")
    assert main(["compare", "--ref", files["gold.m2"], "--hyp", str(short)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


# --- stdout closed by its reader ---------------------------------------------------------

CLOSED_PIPE = {
    "compare": ["compare", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}", "--cat", "1"],
    "m2score": ["m2score", "--ref", "{gold.m2}", "--hyp", "{hyp1.txt}", "--hyp", "{hyp2.txt}"],
    "gleu": [
        "gleu",
        "--src",
        "{src.txt}",
        "--ref",
        "{ref.txt}",
        "--hyp",
        "{hyp1.txt}",
        "--sentence",
    ],
    "cleme": ["cleme", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}"],
    "imeasure": ["imeasure", "--ref", "{gold.m2}", "--hyp", "{hyp1.txt}", "--sentence"],
    "errant-compare": ["errant-compare", "--ref", "{gold.m2}", "--hyp", "{hyp.m2}", "--cat", "3"],
}


@pytest.mark.parametrize("command", sorted(CLOSED_PIPE))
def test_a_closed_stdout_ends_the_command_quietly(command: str, files: dict[str, str]) -> None:
    # The reading end is closed before the command writes a byte: every write fails (EPIPE).
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gecscore", *_argv(CLOSED_PIPE[command], files)],
            cwd=PACKAGE_DIR,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    finally:
        os.close(write_end)
    # 141 = 128 + SIGPIPE: what a shell reports for `cat` or `yes` in the same place.
    assert (done.returncode, done.stderr) == (141, "")


def test_head_reads_the_first_line_and_nothing_is_said(files: dict[str, str]) -> None:
    # The shell pipeline of the issue; head may close before or after the table is written.
    command = " ".join(
        [f"{sys.executable} -m gecscore", *_argv(CLOSED_PIPE["compare"], files), "| head -1"]
    )
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}; echo status=$?"],
        cwd=PACKAGE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "" and lines[-1] in ("status=0", "status=141")
    assert done.stderr == ""
