"""Memory and time of importing a large, valid Appraise ranking file: the platform's import
(two streamed passes, written in batches: judgments/services/appraise.py) against the import
it replaced (the whole file read into one JudgmentSet, every row built, then written: the
module as it was at commit BEFORE, read from git and run on the same database), side by
side in one run.

Data: GJG15's Appraise file (`../shared/data/conll14/human/`, the CoNLL-14 systems ranked by
people, Grundkiewicz et al. 2015), its ranking items repeated with new item ids until the
file is --megabytes large (default 10; the slowest case reported was 37 MB).

    GEC_SHARED_DIR=../shared .venv/bin/python benchmarks/appraise_memory.py --megabytes 10

Peak = tracemalloc's peak of Python allocations during the import (what the worker adds),
measured in a second run of each side; time = wall time of the first run; both sides write
into a fresh quick-start database (SQLite in a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _quickstart_db import setup_quickstart_django


def _grow(xml: str, megabytes: float) -> bytes:
    """The file with its <ranking-item>s repeated (fresh ids) until it is big enough."""
    start, end = xml.index("<ranking-item"), xml.rindex("</ranking-item>") + len("</ranking-item>")
    items = xml[start:end]
    copies = []
    size = len(xml)
    copy = 0
    while size < megabytes * 2**20:
        copies.append(re.sub(r' id="([^"]*)"', rf' id="\1-copy{copy}"', items))
        size += len(copies[-1])
        copy += 1
    return (xml[:end] + "\n".join(copies) + xml[end:]).encode("utf-8")


BEFORE = "24223a1"  # the last commit whose Appraise import read the file whole


def _import_before() -> Any:
    """judgments/services/appraise.py as it was at BEFORE (its imports resolve against the
    current tree: the library still offers read_judgments_xml and JudgmentSet)."""
    text = subprocess.run(
        ["git", "show", f"{BEFORE}:judgments/services/appraise.py"],
        cwd=Path(__file__).resolve().parents[1],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("appraise_before_streaming")
    exec(compile(text, "appraise_before_streaming.py", "exec"), module.__dict__)
    return module.import_judgments


def _naive(data: bytes, name: str) -> None:
    _import_before()(campaign_name=name, source=data)


def _streamed(data: bytes, name: str) -> None:
    from judgments.services.appraise import import_judgments

    import_judgments(campaign_name=name, source=data)


def _measure(run: Callable[[bytes, str], Any], data: bytes, name: str) -> tuple[float, float]:
    started = time.perf_counter()
    run(data, name)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    try:
        run(data, name + "-traced")
        return seconds, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    args = parser.parse_args()
    shared = Path(os.environ.get("GEC_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
    data_dir = shared / "data"
    setup_quickstart_django(data_dir, prefix="gec-appraise-bench-")
    source = sorted((data_dir / "conll14" / "human").rglob("*.xml"))[0]
    data = _grow(source.read_text(encoding="utf-8"), args.megabytes)
    items = data.count(b"<ranking-item")
    print(f"{source.name} grown to {len(data) / 2**20:.1f} MiB, {items:,} ranking items")
    print(f"load average {os.getloadavg()[0]:.2f}")
    results = {}
    for label, run in (("naive", _naive), ("streamed", _streamed)):
        seconds, peak = _measure(run, data, label)
        results[label] = peak
        print(f"{label:9} {seconds:7.1f} s  peak {peak:7.1f} MiB")
    print(f"memory naive / streamed: {results['naive'] / results['streamed']:.1f}x")


if __name__ == "__main__":
    main()
