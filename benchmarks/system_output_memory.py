"""Memory and time of reading an uploaded system output: the streamed reader the platform
uses (scoring/uploads.py `upload_lines` + `parse_system_output`) against reading the file
whole first (the naive way, which the platform did before: the bounded reader's bytes, the
decoded text, its list of lines), side by side in one run on real data.

Data: MuCGEC dev's example predictions (`../shared/data/mucgec-dev/example_pred_dev.txt`,
1,137 lines of ``id \\t source \\t hypothesis``):

* valid: the file as it is, against a release of MuCGEC dev's 1,137 sources;
* huge: the first 12 characters of its hypotheses, repeated to --lines lines (default
  4,800,000: under every upload limit, about 170 MB), against the same release: a file
  nobody should be able to make a worker hold.

    GEC_SHARED_DIR=../shared .venv/bin/python benchmarks/system_output_memory.py

Peak memory is tracemalloc's peak of Python allocations during the call (what one request
adds), from a second run under tracemalloc; time is wall time of a run without it; one
process, nothing stored.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from core.exceptions import ServiceError  # noqa: E402
from core.uploads import read_upload  # noqa: E402
from scoring.uploads import ReleasedRow, parse_system_output, upload_lines  # noqa: E402


def _outcome(call: Callable[[], Any]) -> str:
    try:
        return f"{len(call().hypotheses)} hypotheses"
    except ServiceError as error:
        return f"refused: {str(error)[:70]}"


def measure(call: Callable[[], Any]) -> tuple[float, float, str]:
    started = time.perf_counter()
    said = _outcome(call)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    try:
        _outcome(call)
        return seconds, tracemalloc.get_traced_memory()[1] / 2**20, said
    finally:
        tracemalloc.stop()


def naive(data: bytes, release: list[ReleasedRow], name: str) -> Any:
    """Read whole, decode whole, split, then parse (the lines are already in memory)."""
    text = read_upload(data, name=name).decode("utf-8")
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return parse_system_output(lines, release=release, file_name=name)


def streamed(data: bytes, release: list[ReleasedRow], name: str) -> Any:
    return parse_system_output(upload_lines(data, file_name=name), release=release, file_name=name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=4_800_000)
    args = parser.parse_args()
    shared = Path(os.environ.get("GEC_SHARED_DIR", ROOT.parent / "shared")) / "data"
    dev = (shared / "mucgec-dev" / "example_pred_dev.txt").read_bytes()
    rows = [line.split("\t") for line in dev.decode("utf-8").splitlines()]
    release = [ReleasedRow(row[0], row[1]) for row in rows]
    hypotheses = [row[2] for row in rows]
    huge = "".join(hypotheses[i % len(hypotheses)][:12] + "\n" for i in range(args.lines)).encode(
        "utf-8"
    )
    print(f"valid: {len(dev):,} bytes; huge: {len(huge):,} bytes, {args.lines:,} lines")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'file':6} {'reader':9} {'seconds':>8} {'peak MiB':>9}  outcome")
    for label, data in (("valid", dev), ("huge", huge)):
        results = {}
        for reader, run in (("naive", naive), ("streamed", streamed)):
            seconds, peak, said = measure(
                lambda run=run, data=data, name=f"{label}.txt": run(data, release, name)
            )
            results[reader] = (seconds, peak)
            print(f"{label:6} {reader:9} {seconds:8.2f} {peak:9.1f}  {said}")
        ratio = results["naive"][1] / max(results["streamed"][1], 1e-9)
        print(f"{label:6} memory naive / streamed: {ratio:.0f}x")


if __name__ == "__main__":
    main()
