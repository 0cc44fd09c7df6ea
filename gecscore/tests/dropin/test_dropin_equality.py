"""The drop-in commands print what the reference tools print, byte for byte.

references.json holds, per case, the sha256 and length of the reference's output
(tools/record_dropin_references.py re-runs ChERRANT @3922193, errant 3.0.2 and m2scorer 3.2 to
regenerate it); the outputs themselves are not kept (they derive from the shared data). When a
case differs and the reference tools are set up (``$GEC_DROPIN_REFS``, default
``$GEC_REFS_DIR``: tests/refs.py), the failure shows the first differing line.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.refs import reference_path
from tests.shared import SHARED_DIR, shared_missing

HERE = Path(__file__).resolve().parent
RECORDS = json.loads((HERE / "references.json").read_text(encoding="utf-8"))
RECORDER = HERE.parents[2] / "tools" / "record_dropin_references.py"
CHERRANT_DATA = SHARED_DIR / "data" / "cherrant-resources"


def _recorder() -> ModuleType | None:
    """tools/record_dropin_references.py (the case expansion and the reference runs), when this
    is a checkout that has it."""
    if not RECORDER.exists():
        return None
    spec = importlib.util.spec_from_file_location("record_dropin_references", RECORDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _expand(args: list[str], tmp: Path, out: Path) -> list[str]:
    # The same expansion as the recorder's (kept here so the test runs from the package alone).
    result = []
    for arg in args:
        if arg.startswith("{head:"):
            count, path = arg[len("{head:") : -1].split(":", 1)
            source = SHARED_DIR / path
            target = tmp / f"head{count}-{source.name}"
            if not target.exists():
                lines = source.read_bytes().split(b"\n")[: int(count)]
                target.write_bytes(b"\n".join(lines) + b"\n")
            result.append(str(target))
        else:
            result.append(arg.replace("{shared}", str(SHARED_DIR)).replace("{out}", str(out)))
    return result


def _main(command: str):  # type: ignore[no-untyped-def]
    if command == "cherrant-compare":
        from gecscore.dropin.cherrant_compare import main
    elif command == "cherrant-parallel":
        from gecscore.dropin.cherrant_parallel import main
    elif command == "errant-compare":
        from gecscore.dropin.errant_compare import main
    elif command == "errant-parallel":
        from gecscore.dropin.errant_parallel import main
    else:
        from gecscore.dropin.m2scorer import main
    return main


def _ours(command: str, args: list[str], tmp: Path) -> bytes:
    out = tmp / "ours.m2"
    argv = _expand(args, tmp, out)
    if command == "cherrant-parallel":
        argv += ["--resources", str(CHERRANT_DATA)]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert _main(command)(argv) == 0
    if command == "errant-parallel":
        assert stdout.getvalue() == "Loading resources...\nProcessing parallel files...\n"
    if command in ("cherrant-parallel", "errant-parallel"):
        return out.read_bytes()
    return stdout.getvalue().encode("utf-8")


def _first_difference(name: str, ours: bytes) -> str:
    recorder = _recorder()
    if recorder is None:
        return "(tools/record_dropin_references.py is not here: no reference to show)"
    refs = reference_path("GEC_DROPIN_REFS")
    try:
        reference = recorder.reference_output(name, refs, SHARED_DIR)
    except (FileNotFoundError, RuntimeError) as exc:
        return f"(reference not available: {exc})"
    ref_lines = reference.split(b"\n")
    our_lines = ours.split(b"\n")
    for number, (a, b) in enumerate(zip(ref_lines, our_lines, strict=False), start=1):
        if a != b:
            shown = [line.decode("utf-8", "backslashreplace") for line in (a, b)]
            return (
                f"first difference at line {number}:\n  reference: {shown[0]!r}\n"
                f"  ours:      {shown[1]!r}"
            )
    return f"one output is a prefix of the other ({len(ref_lines)} vs {len(our_lines)} lines)"


# Extraction (ChERRANT's aligner, spaCy) takes seconds per case: the slow part.
CASES = [
    pytest.param(name, marks=pytest.mark.slow) if "parallel" in RECORDS[name]["command"] else name
    for name in sorted(RECORDS)
]


@pytest.mark.parametrize("name", CASES)
def test_dropin_output_equals_reference(name: str, tmp_path: Path) -> None:
    record = RECORDS[name]
    command, args = record["command"], record["args"]
    for arg in args:
        path = arg[len("{head:") : -1].split(":", 1)[1] if arg.startswith("{head:") else None
        if path and not (SHARED_DIR / path).exists():
            shared_missing(path)
        if "{shared}" in arg and not Path(arg.replace("{shared}", str(SHARED_DIR))).exists():
            shared_missing(arg)
    if command == "cherrant-parallel" and not CHERRANT_DATA.is_dir():
        shared_missing("data/cherrant-resources")
    if command == "errant-parallel":
        from gecscore.english.errant_edits import EnglishModelMissing, annotator

        try:
            annotator()
        except EnglishModelMissing as exc:
            pytest.skip(str(exc))
    ours = _ours(command, args, tmp_path)
    digest = hashlib.sha256(ours).hexdigest()
    if digest != record["sha256"] or len(ours) != record["bytes"]:
        pytest.fail(
            f"{name}: {len(ours)} bytes, sha256 {digest}; the reference printed "
            f"{record['bytes']} bytes, sha256 {record['sha256']}\n" + _first_difference(name, ours)
        )


# Edits whose span is beyond their sentence: the reference compare scripts never look at the
# sentence's length and score them as written (the library's own commands refuse them). The
# expected stdout of each case is in the file, as the reference printed it.
BEYOND_SOURCE = json.loads((HERE / "beyond_source.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(BEYOND_SOURCE["cases"]))
def test_dropin_compare_scores_edits_beyond_the_sentence_as_the_reference(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for file_name, text in BEYOND_SOURCE["inputs"].items():
        (tmp_path / file_name).write_text(text, encoding="utf-8")
    case = BEYOND_SOURCE["cases"][name]
    argv = ["-hyp", str(tmp_path / case["hyp"]), "-ref", str(tmp_path / case["ref"])]
    assert _main(case["command"])([*argv, *case["flags"]]) == 0
    captured = capsys.readouterr()
    assert captured.out == case["stdout"]
    assert "edit(s) with a span beyond the sentence's tokens" in captured.err
    assert "scores them as written" in captured.err
