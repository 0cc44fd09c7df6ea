"""Benchmark: the compiled TrueSkill player against the numpy player, side by side.

    .venv/bin/python benchmarks/trueskill_player.py [--shared ../shared] [--runs 1000]

For each judgment set (GJG15 CoNLL-14, SEEDA-sent, SEEDA-edit) it plays ``--runs`` seeded
TrueSkill runs (``TS.py -n 2 -d 0``: len(pairs) + 1 matches each, chunks of 500 side by side in
one process, as ``trueskill_mu(workers=1)``) with numpy and then with the compiled player
(gecscore/_trueskill), and prints both wall times, the ratio, and the largest difference of
the final mu (the players may differ where the two exp implementations differ in the last
bit). The load average is printed first: on a shared machine it dominates the times.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from gecscore.meta.judgments import pairwise, read_judgments_xml
from gecscore.meta.rankings.trueskill_ranking import TS_CHUNK, _play

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    data = args.shared / "data"
    cases = {
        "gjg15": data / "conll14" / "human" / "judgments.xml",
        "seeda-sent": data / "seeda" / "data" / "judgments_sent.xml",
        "seeda-edit": data / "seeda" / "data" / "judgments_edit.xml",
    }
    chunks = [
        (min(TS_CHUNK, args.runs - start), 1000 + start) for start in range(0, args.runs, TS_CHUNK)
    ]
    print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} runs per set, one process")
    print(
        f"{'set':<11} {'pairs':>7} {'numpy (s)':>10} {'compiled (s)':>13} {'ratio':>6} max |mu diff|"
    )
    for name, path in cases.items():
        pairs = pairwise(read_judgments_xml(path).items)
        started = time.perf_counter()
        numpy_mu, _, _ = _play(pairs, chunks, compiled=False)
        numpy_s = time.perf_counter() - started
        started = time.perf_counter()
        native_mu, _, _ = _play(pairs, chunks, compiled=True)
        native_s = time.perf_counter() - started
        gap = float(np.abs(numpy_mu - native_mu).max())
        print(
            f"{name:<11} {len(pairs):>7} {numpy_s:>10.2f} {native_s:>13.2f}"
            f" {numpy_s / native_s:>5.2f}x {gap:.2g}"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
