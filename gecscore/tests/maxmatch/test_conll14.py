"""M2 on the 13 CoNLL-2014 systems equals m2scorer 3.2 (default options).

Expected counts were produced by running the reference, not by our code:

    git clone https://github.com/nusnlp/m2scorer && git -C m2scorer checkout version3.2  # 2122ffd
    ~/.pyenv/versions/2.7.18/bin/python m2scorer/scripts/m2scorer.py -v \\
        shared/data/conll14/systems/$SYSTEM shared/data/conll14/conll14st-test.m2

and reading its last lines (CORRECT EDITS / PROPOSED EDITS / GOLD EDITS, then P, R, F_0.5;
2026-11-23, Python 2.7.18; NTHU took 1,784 s of wall time at load average 17, the others 41-114 s). The F0.5 column equals
``published_scores/system/m2score.txt.gz`` for every system, which is checked too. Beyond these
totals, the verbose outputs were compared sentence by sentence and annotator by annotator with
ours (0 differences in 17,056 sentences); that script lives outside the repository.

SentM2 of INPUT (0.3133) is the spec's number (``shared/specs/english-metrics.md``).
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecscore.english.textfiles import read_text_lines
from gecscore.m2 import read_m2
from gecscore.maxmatch import score_systems

# system: (correct, proposed, gold) as m2scorer 3.2 -v prints them, and its printed P, R, F0.5.
M2SCORER_32 = {
    "AMU": ((509, 1223, 2378), ("0.4162", "0.2140", "0.3501")),
    "CAMB": ((772, 1944, 2565), ("0.3971", "0.3010", "0.3733")),
    "CUUI": ((623, 1491, 2504), ("0.4178", "0.2488", "0.3679")),
    "IITB": ((28, 91, 2010), ("0.3077", "0.0139", "0.0590")),
    "INPUT": ((0, 0, 1994), ("1.0000", "0.0000", "0.0000")),
    "IPN": ((59, 523, 2067), ("0.1128", "0.0285", "0.0709")),
    "NTHU": ((443, 1263, 2350), ("0.3508", "0.1885", "0.2992")),
    "PKU": ((306, 950, 2242), ("0.3221", "0.1365", "0.2532")),
    "POST": ((527, 1527, 2425), ("0.3451", "0.2173", "0.3088")),
    "RAC": ((345, 1041, 2301), ("0.3314", "0.1499", "0.2668")),
    "SJTU": ((106, 352, 2080), ("0.3011", "0.0510", "0.1519")),
    "UFC": ((35, 50, 2032), ("0.7000", "0.0172", "0.0784")),
    "UMC": ((329, 1052, 2275), ("0.3127", "0.1446", "0.2537")),
}


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def results(conll14: Path):  # type: ignore[no-untyped-def]
    gold = read_m2(conll14 / "conll14st-test.m2")
    systems = {
        name: read_text_lines(conll14 / "systems" / name).lines for name in sorted(M2SCORER_32)
    }
    started = time.process_time()
    scored = score_systems(systems, gold)
    return scored, time.process_time() - started


@pytest.mark.parametrize("system", sorted(M2SCORER_32))
def test_counts_and_scores_equal_m2scorer_32(results, system: str) -> None:  # type: ignore[no-untyped-def]
    scored, _ = results
    result = scored[system]
    (correct, proposed, gold), printed = M2SCORER_32[system]
    assert (result.tp, result.tp + result.fp, result.tp + result.fn) == (correct, proposed, gold)
    assert (f"{result.p:.4f}", f"{result.r:.4f}", f"{result.f:.4f}") == printed
    assert result.exact


def test_f05_equals_the_published_system_scores(results, conll14: Path) -> None:  # type: ignore[no-untyped-def]
    scored, _ = results
    with gzip.open(conll14 / "published_scores/system/m2score.txt.gz", "rt") as handle:
        published = {f[3]: f[4] for f in (line.rstrip("\n").split("\t") for line in handle)}
    assert set(published) == set(M2SCORER_32)
    assert {name: f"{r.f:.4f}" for name, r in scored.items()} == published


def test_sentm2_of_input_is_the_spec_value(results) -> None:  # type: ignore[no-untyped-def]
    scored, _ = results
    assert f"{scored['INPUT'].sent_f:.4f}" == "0.3133"
    assert len(scored["INPUT"].sentence_f) == 1312


def test_all_13_systems_take_well_under_10_s_of_cpu(results) -> None:  # type: ignore[no-untyped-def]
    _, cpu_seconds = results
    assert cpu_seconds < 10.0, f"13 systems took {cpu_seconds:.1f} s of CPU"


def test_cli_text_output_is_byte_identical_to_m2scorer(conll14: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "gecscore",
            "m2score",
            "--hyp",
            str(conll14 / "systems/AMU"),
            "--ref",
            str(conll14 / "conll14st-test.m2"),
        ],
        capture_output=True,
        check=True,
    )
    # m2scorer 3.2's stdout for AMU, byte for byte.
    assert completed.stdout == b"Precision   : 0.4162\nRecall      : 0.2140\nF_0.5       : 0.3501\n"
