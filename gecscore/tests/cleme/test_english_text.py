"""CLEME on English raw text: edits from ERRANT (``--granularity errant``) give the same
scores as CLEME on the M2 files ERRANT 3.0.2's own ``errant_parallel`` wrote for the same
lines (`../shared/data/conll14/errant302/`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.m2 import read_m2, write_m2

pytestmark = pytest.mark.slow

N = 80


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    """The command line in this process (``python -m gecscore`` is ``main``; a subprocess per
    call paid Python's, the library's and spaCy's start-up each time)."""
    assert main([*args, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("command", ["cleme", "cleme2"])
def test_cleme_on_english_text_equals_cleme_on_errant_parallel_m2(
    shared_data: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    conll = shared_data / "conll14"
    source = _lines(conll / "conll14st-test.tok.src")
    refs = [_lines(conll / f"refs/ptm2/ref{k}") for k in (0, 1)]
    hyp = _lines(conll / "systems/AMU")
    # Sentences whose references are both non-empty (an empty correction cannot be a column).
    kept = [i for i in range(N) if all(r[i].strip() for r in refs)]
    ref_text = tmp_path / "ref.txt"
    ref_text.write_text(
        "".join(f"{i}\t{source[i]}\t{refs[0][i]}\t{refs[1][i]}\n" for i in kept), encoding="utf-8"
    )
    hyp_text = tmp_path / "hyp.txt"
    hyp_text.write_text(
        "".join(f"{i}\t{source[i]}\t{hyp[i].strip()}\n" for i in kept), encoding="utf-8"
    )
    ref_m2 = tmp_path / "ref.m2"
    ref_m2.write_text(
        write_m2([read_m2(conll / "errant302/conll14.ref.errant302.m2")[i] for i in kept]),
        encoding="utf-8",
    )
    hyp_m2 = tmp_path / "hyp.m2"
    hyp_m2.write_text(
        write_m2([read_m2(conll / "errant302/conll14-AMU.errant302.m2")[i] for i in kept]),
        encoding="utf-8",
    )

    capsys.readouterr()
    from_text = _run(
        capsys,
        command,
        "--hyp",
        str(hyp_text),
        "--ref",
        str(ref_text),
        "--format",
        "text",
        "--granularity",
        "errant",
    )
    from_m2 = _run(capsys, command, "--hyp", str(hyp_m2), "--ref", str(ref_m2))
    # The same scores; only the `system` field (the hypothesis file's name) differs.
    assert from_text.pop("system").endswith("hyp.txt") and from_m2.pop("system").endswith("hyp.m2")
    assert from_text == from_m2
