"""Benchmark: ``python -m gecscore compare`` as a whole process, two source trees side by side.

    .venv/bin/python benchmarks/compare_two_trees.py OLD_SRC NEW_SRC [--runs 20] [--shared ../shared]

OLD_SRC / NEW_SRC are the ``gecscore/src`` folders of two checkouts (e.g. main's and a
branch's). Each round runs both, alternating which goes first; round 0 warms the page cache
and is not counted. Prints the median and range of wall time and of CPU time (user + system
of the child, the figure that load on other cores disturbs least), the load average, and
whether both printed the same table. The input is MuCGEC dev: ``example_pred_dev.m2`` against
``MuCGEC_dev.m2`` (the ``compare`` row of docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", help="gecscore/src of the first tree")
    parser.add_argument("new", help="gecscore/src of the second tree")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    args = parser.parse_args()
    dev = Path(args.shared) / "data" / "mucgec-dev"
    command = [
        sys.executable,
        "-m",
        "gecscore",
        "compare",
        "--hyp",
        str(dev / "example_pred_dev.m2"),
        "--ref",
        str(dev / "MuCGEC_dev.m2"),
    ]
    trees = {"old": args.old, "new": args.new}
    wall: dict[str, list[float]] = {name: [] for name in trees}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    outputs: dict[str, str] = {}
    load_before = Path("/proc/loadavg").read_text().strip()
    for round_number in range(args.runs + 1):
        order = list(trees.items())
        if round_number % 2 == 0:
            order.reverse()
        for name, src in order:
            env = {**os.environ, "PYTHONPATH": src}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            outputs[name] = done.stdout
            if round_number:
                wall[name].append(elapsed)
                cpu[name].append(
                    after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                )
    print(f"load average before: {load_before}")
    print(f"load average after:  {Path('/proc/loadavg').read_text().strip()}")
    for name, src in trees.items():
        w, c = wall[name], cpu[name]
        print(
            f"{name} ({src}): wall median {statistics.median(w):.3f} s "
            f"({min(w):.3f}-{max(w):.3f}), CPU median {statistics.median(c):.3f} s "
            f"({min(c):.3f}-{max(c):.3f}), {args.runs} runs"
        )
    print(f"same table: {outputs['old'] == outputs['new']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
