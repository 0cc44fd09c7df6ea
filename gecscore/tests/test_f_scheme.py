"""The F column's label and the F key of every command's JSON.

Label: ChERRANT prints ``"F" + str(args.beta)`` with ``--beta`` read as a float, so
``compare --beta 1`` prints ``F1.0`` (it printed ``F1``). The expected tables below are
ChERRANT's own output: ``python3 compare_m2_for_evaluation.py -hyp hyp.m2 -ref ref.m2 -b B
-cat 1`` of HillZhang1999/MuCGEC @3922193 (``scorers/ChERRANT``), run outside the repository
on HYP_M2 / REF_M2 written to files; ours adds its ``signature:`` line before the last blank.

JSON: every command's object is its metric's ``Result.to_dict()`` (and ``system``): the F at
the command's beta is ``f`` at every beta, beside ``beta`` (m2score once wrote
``f1``/``f2``/``sent_f1`` and no beta; the commands once wrote ``f05`` at beta 0.5).
``counts.f_key`` still names the F of the scorers' own dicts (``ClemeScore.as_dict``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gecscore.cleme.inputs import read_m2_sentences
from gecscore.cleme.scorers import cleme
from gecscore.cli import main
from gecscore.counts import f_key, f_label

REF_M2 = """\
S 我 去 了 学 校
A 1 2|||S|||走|||REQUIRED|||-NONE-|||0
A 3 3|||M|||大|||REQUIRED|||-NONE-|||0

S 他 很 好
A 2 3|||S|||棒|||REQUIRED|||-NONE-|||0

"""
HYP_M2 = """\
S 我 去 了 学 校
A 1 2|||S|||走|||REQUIRED|||-NONE-|||0
A 4 5|||S|||院|||REQUIRED|||-NONE-|||0

S 他 很 好
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

"""


def _cherrant(label: str, f: str) -> str:
    """ChERRANT's stdout for HYP_M2 / REF_M2 with -cat 1 (only the label and F depend on -b)."""
    return (
        "\n"
        "===================== Span-Based Correction ======================\n"
        f"Category       TP       FP       FN       P        R        {label}\n"
        "M              0        0        1        1.0      0.0      0.0\n"
        "S              1        1        1        0.5      0.5      0.5\n"
        "\n"
        "=========== Span-Based Correction ============\n"
        f"TP\tFP\tFN\tPrec\tRec\t{label}\n"
        f"1\t1\t2\t0.5\t0.3333\t{f}\n"
        "==============================================\n"
        "\n"
    )


CHERRANT = {
    "0.5": _cherrant("F0.5", "0.4545"),
    "1": _cherrant("F1.0", "0.4"),
    "2": _cherrant("F2.0", "0.3571"),
    "0.75": _cherrant("F0.75", "0.4237"),
}

# m2score / imeasure inputs: English tokens, one sentence.
GOLD = "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\n\n"
HYP = "a x c\n"


def _files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("hyp.m2", HYP_M2), ("ref.m2", REF_M2), ("gold.m2", GOLD), ("hyp.txt", HYP)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths[name] = str(tmp_path / name)
    return paths


def test_labels_and_keys() -> None:
    assert [f_label(b) for b in (0.5, 1, 1.0, 2, 0.75)] == ["F0.5", "F1.0", "F1.0", "F2.0", "F0.75"]
    assert [f_key(b) for b in (0.5, 1.0, 2.0, 0.75)] == ["f05", "f", "f", "f"]


@pytest.mark.parametrize("beta", sorted(CHERRANT))
def test_compare_prints_cherrants_table_and_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], beta: str
) -> None:
    files = _files(tmp_path)
    args = ["compare", "--hyp", files["hyp.m2"], "--ref", files["ref.m2"], "--beta", beta]
    assert main([*args, "--cat", "1"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[-3].startswith("signature: ")
    del lines[-3]
    assert "\n".join(lines) == CHERRANT[beta]


def test_ptm2_with_self_weights_prints_compares_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    args = ["--hyp", files["hyp.m2"], "--ref", files["ref.m2"], "--beta", "1"]
    assert main(["ptm2", "--model", "self", *args]) == 0
    assert "TP\tFP\tFN\tPrec\tRec\tF1.0\n1\t1\t2\t0.5\t0.3333\t0.4\n" in capsys.readouterr().out


def _json_objects(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[dict[str, object]]:
    assert main(argv) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("beta", ["0.5", "1", "2"])
def test_every_command_names_f_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], beta: str
) -> None:
    files = _files(tmp_path)
    m2_pair = ["--hyp", files["hyp.m2"], "--ref", files["ref.m2"], "--beta", beta, "--json"]
    gold_pair = ["--hyp", files["hyp.txt"], "--ref", files["gold.m2"], "--beta", beta, "--json"]
    outputs = {
        "compare": _json_objects(capsys, ["compare", *m2_pair]),
        "errant-compare": _json_objects(capsys, ["errant-compare", *m2_pair]),
        "ptm2": _json_objects(capsys, ["ptm2", "--model", "self", *m2_pair]),
        "m2score": _json_objects(capsys, ["m2score", *gold_pair]),
        "m2score --sentence": _json_objects(capsys, ["m2score", *gold_pair, "--sentence"]),
        "imeasure": _json_objects(capsys, ["imeasure", *gold_pair]),
    }
    for command, (payload,) in outputs.items():
        assert payload["beta"] == float(beta), command
        assert isinstance(payload["f"], float), command
        # No key spells the beta (f05, f1, sent_f1, ...): the F is ``f`` at every beta.
        assert [k for k in payload if re.fullmatch(r"(sent_)?f\d+", k)] == [], command
    m2score, sentm2 = outputs["m2score"][0], outputs["m2score --sentence"][0]
    assert (m2score["metric"], sentm2["metric"]) == ("m2", "sentm2")
    assert sentm2["f"] == sentm2["score"] == m2score["f"] == m2score["score"] == 1.0
    assert m2score["precision"] == m2score["recall"] == 1.0


def test_clemes_dict_names_f_the_same_way(tmp_path: Path) -> None:
    files = _files(tmp_path)
    hyp, ref = read_m2_sentences(files["hyp.m2"]), read_m2_sentences(files["ref.m2"])
    assert "f05" in cleme(hyp, ref).as_dict()
    data = cleme(hyp, ref, beta=1.0).as_dict()
    assert data["beta"] == 1.0 and isinstance(data["f"], float) and "f1" not in data
