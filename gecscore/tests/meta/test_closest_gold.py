"""``meta system --compute ... --closest-gold DIR [--pooled]`` (gecscore.meta.closest_gold):
each metric also against per-system references, one parallel file per system named after it.
On RevisitCGEC's MuCGEC subset with stand-in closest-golds (the first system's file holds
its own outputs, every other system's the next system's outputs)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from gecscore.cli import main
from gecscore.errors import InputError
from gecscore.m2 import write_m2
from gecscore.meta.closest_gold import closest_gold_columns, read_closest_gold_dir
from gecscore.meta.compute import Inputs, compute_all
from gecscore.meta.revisitcgec import SYSTEMS
from gecscore.meta.revisitcgec_runs import Extraction
from tests.meta.test_compute_edits import mucgec_case

__all__ = ["mucgec_case"]


def _run(args: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


@pytest.fixture(scope="module")
def files(mucgec_case: tuple[Inputs, Extraction], tmp_path_factory: pytest.TempPathFactory) -> Path:
    inputs, extraction = mucgec_case
    root = tmp_path_factory.mktemp("closest")
    (root / "outputs").mkdir()
    (root / "cg").mkdir()
    sources = [s.source for s in extraction.corpus.sentences]
    for k, system in enumerate(SYSTEMS):
        lines = inputs.outputs[system]
        (root / "outputs" / f"{system}.txt").write_text("\n".join(lines) + "\n", "utf-8")
        (root / "hyp").mkdir(exist_ok=True)
        (root / "hyp" / f"{system}.txt").write_text(
            "".join(
                f"{n}\t{s}\t{h}\n" for n, (s, h) in enumerate(zip(sources, lines, strict=True), 1)
            ),
            "utf-8",
        )
        golds = lines if k == 0 else inputs.outputs[SYSTEMS[(k + 1) % len(SYSTEMS)]]
        (root / "cg" / f"{system}.txt").write_text(
            "".join(
                f"{n}\t{s}\t{g}\n" for n, (s, g) in enumerate(zip(sources, golds, strict=True), 1)
            ),
            "utf-8",
        )
    (root / "gold.m2").write_text(write_m2(inputs.gold), "utf-8")
    (root / "human.tsv").write_text(
        "".join(f"ew\tzh\tmucgec\t{s}\t{0.1 * k}\n" for k, s in enumerate(SYSTEMS)), "utf-8"
    )
    return root


def test_each_system_is_scored_against_its_own_file_as_gecscore_score_does(
    files: Path, mucgec_case: tuple[Inputs, Extraction]
) -> None:
    report = _run(
        ["meta", "system", "--human", str(files / "human.tsv"), "--compute", "cherrant", "cleme"]
        + ["--outputs", str(files / "outputs"), "--gold", str(files / "gold.m2")]
        + ["--closest-gold", str(files / "cg"), "--pooled", "--bootstrap", "0", "--json"]
    )
    assert set(report["metrics"]) == {
        "cherrant", "cleme", "cherrant@closest-gold", "cleme@closest-gold",
        "cherrant@pooled", "cleme@pooled",
    }  # fmt: skip
    assert all(isinstance(entry["pearson"], float) for entry in report["metrics"].values())
    inputs, _ = mucgec_case
    computed = closest_gold_columns(["cherrant"], inputs, files / "cg", pooled=True)
    scores = {name: result.scores for name, result in computed.items()}
    scores["cherrant"] = compute_all(["cherrant"], inputs)["cherrant"].scores
    for system in SYSTEMS:
        alone = _run(
            ["score", "--ref", str(files / "cg" / f"{system}.txt")]
            + ["--hyp", str(files / "hyp" / f"{system}.txt"), "--json"]
        )
        assert scores["cherrant@closest-gold"][system] == round(alone["score"], 4), system
    # Its own outputs as closest-golds: perfect; every output but the second system's is in
    # the pool (someone's closest-gold), so those are perfect under pooled.
    assert scores["cherrant@closest-gold"][SYSTEMS[0]] == 1.0
    assert scores["cherrant@closest-gold"][SYSTEMS[1]] < 1.0
    pooled = scores["cherrant@pooled"]
    assert pooled[SYSTEMS[1]] < 1.0
    assert all(pooled[s] == 1.0 for s in SYSTEMS if s != SYSTEMS[1])
    assert all(pooled[s] >= scores["cherrant"][s] for s in SYSTEMS)


def test_a_missing_file_or_a_wrong_source_is_named(
    files: Path, mucgec_case: tuple[Inputs, Extraction], tmp_path: Path
) -> None:
    inputs, _ = mucgec_case
    with pytest.raises(InputError, match="no closest-gold file for nobody"):
        read_closest_gold_dir(files / "cg", ["nobody"], inputs.gold, "zh")
    bad = tmp_path / "cg"
    bad.mkdir()
    text = (files / "cg" / f"{SYSTEMS[0]}.txt").read_text("utf-8").splitlines()
    n, source, gold = text[2].split("\t")
    text[2] = f"{n}\t{source}X\t{gold}"
    (bad / f"{SYSTEMS[0]}.txt").write_text("\n".join(text) + "\n", "utf-8")
    with pytest.raises(InputError, match="line 3: source differs"):
        read_closest_gold_dir(bad, [SYSTEMS[0]], inputs.gold, "zh")
