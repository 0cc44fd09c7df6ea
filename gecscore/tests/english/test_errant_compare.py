"""ERRANT compare against errant_compare 3.0.2 on the 13 CoNLL-14 systems (CLEME ERRANT M2).

``data/errant_compare_3.0.2.txt`` holds the output of errant 3.0.2's ``errant_compare -hyp
conll14-<SYSTEM>.errant -ref conll14.errant <OPTIONS>`` (the installed reference tool, run on
../shared/data/cleme-conll14/), one ``== SYSTEM OPTIONS`` header per run. Our text output must
equal it character for character (counts, rounded P/R/F, category tables).
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from gecscore.english.errant_compare import (
    CompareOptions,
    compare_blocks,
    format_result,
)
from gecscore.m2 import M2Block, read_m2

ERRANT_COMPARE = Path(sys.executable).parent / "errant_compare"
EXPECTED = Path(__file__).parent / "data" / "errant_compare_3.0.2.txt"
SYSTEMS = "AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC".split()  # noqa: SIM905


def _runs() -> list[tuple[str, list[str], str]]:
    text = EXPECTED.read_text(encoding="utf-8")
    runs = []
    for chunk in re.split(r"(?m)^== ", text)[1:]:
        header, body = chunk.split("\n", 1)
        system, *options = header.split()
        runs.append((system, options, body))
    return runs


def _options(words: list[str]) -> CompareOptions:
    kwargs: dict[str, object] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-ds", "-dt", "-cse", "-cs"):
            kwargs["mode"] = word[1:]
        elif word in ("-single", "-multi"):
            kwargs[word[1:]] = True
        elif word == "-cat":
            index += 1
            kwargs["cat"] = int(words[index])
        elif word == "-filt":
            kwargs["filt"] = tuple(words[index + 1 :])
            break
        else:
            raise AssertionError(f"unknown option {word}")
        index += 1
    return CompareOptions(**kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def cleme_dir(shared_data: Path) -> Path:
    return shared_data / "cleme-conll14"


@cache
def _blocks(path: str) -> list[M2Block]:
    return read_m2(path)


def test_expected_outputs_cover_every_system_and_option() -> None:
    runs = _runs()
    assert sorted({system for system, _, _ in runs}) == sorted(SYSTEMS)
    option_sets = {" ".join(options) for _, options, _ in runs}
    for wanted in ("", "-ds", "-dt", "-cse", "-single", "-multi", "-cat 3", "-filt R:PREP M:DET"):
        assert wanted in option_sets


def test_all_runs_equal_errant_compare_output(cleme_dir: Path) -> None:
    ref = _blocks(str(cleme_dir / "conll14.errant"))
    mismatches = []
    for system, options, body in _runs():
        hyp = _blocks(str(cleme_dir / f"conll14-{system}.errant"))
        ours = format_result(compare_blocks(hyp, ref, _options(options)))
        if ours.strip("\n") != body.strip("\n"):
            mismatches.append(f"{system} {' '.join(options)}:\n{ours}\nexpected:\n{body}")
    assert not mismatches, mismatches[0]


@pytest.mark.parametrize(
    ("system", "counts"), [("AMU", (483, 795, 1934)), ("CAMB", (725, 1329, 1886))]
)
def test_issue_numbers(cleme_dir: Path, system: str, counts: tuple[int, int, int]) -> None:
    result = compare_blocks(
        read_m2(cleme_dir / f"conll14-{system}.errant"), read_m2(cleme_dir / "conll14.errant")
    )
    assert (result.tp, result.fp, result.fn) == counts
    chosen = {(s.hyp_annotator, s.ref_annotator) for s in result.sentences}
    assert chosen <= {(0, 0), (0, 1)}


@pytest.mark.slow
@pytest.mark.skipif(
    not ERRANT_COMPARE.exists(), reason="errant_compare (errant 3.0.2) not installed"
)
def test_live_errant_compare_with_cat_2_and_token_detection(cleme_dir: Path) -> None:
    hyp, ref = cleme_dir / "conll14-NTHU.errant", cleme_dir / "conll14.errant"
    command = [str(ERRANT_COMPARE), "-hyp", str(hyp), "-ref", str(ref), "-dt", "-cat", "2"]
    expected = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    ours = format_result(
        compare_blocks(read_m2(hyp), read_m2(ref), CompareOptions(mode="dt", cat=2))
    )
    assert ours == expected


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # errant_compare 3.0.2 -hyp errant302/conll14.ref.errant302.m2 -ref conll14.errant [-dt]
        ("cs", (3746, 15, 14, 0.996, 0.9963, 0.9961)),
        ("dt", (4708, 0, 1, 1.0, 0.9998, 1.0)),
    ],
)
def test_two_annotator_hypothesis_equals_errant_compare(
    shared_data: Path, cleme_dir: Path, mode: str, expected: tuple[float, ...]
) -> None:
    # The re-extracted references as a hypothesis: every hyp x ref annotator pair competes.
    hyp = shared_data / "conll14" / "errant302" / "conll14.ref.errant302.m2"
    result = compare_blocks(
        read_m2(hyp), read_m2(cleme_dir / "conll14.errant"), CompareOptions(mode=mode)
    )
    assert (result.tp, result.fp, result.fn, result.p, result.r, result.f) == expected
    assert {s.hyp_annotator for s in result.sentences} == {0, 1}


def test_ties_keep_the_earlier_pair_and_unk_counts_only_for_detection() -> None:
    from gecscore.m2 import parse_m2

    ref = parse_m2(
        "S a b c\n"
        "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
        "A 2 3|||UNK|||c|||REQUIRED|||-NONE-|||0\n"
        "A 0 1|||R:NOUN|||y|||REQUIRED|||-NONE-|||1\n"
        "A 2 3|||UNK|||c|||REQUIRED|||-NONE-|||1\n"
    )
    hyp = parse_m2("S a b c\nA 2 3|||R:OTHER|||z|||REQUIRED|||-NONE-|||0\n")
    correction = compare_blocks(hyp, ref)
    # UNK is skipped: FN 1 against either annotator; equal F, TP, FP, FN: annotator 0 wins.
    assert (correction.tp, correction.fp, correction.fn) == (0, 1, 1)
    assert correction.sentences[0].ref_annotator == 0
    detection = compare_blocks(hyp, ref, CompareOptions(mode="ds"))
    assert (detection.tp, detection.fp, detection.fn) == (1, 0, 1)
