"""Side-by-side timing of our commands and a reference tool's, as whole processes.

Used by benchmarks/char_metric.py and benchmarks/cleme.py. Each pair of commands is run
interleaved (ours, reference, reference, ours, ...: the order alternates every round so a
change of machine load hits both sides alike), N runs each, every run a fresh process. A run
records wall time, CPU time (user + system) and peak memory (``ru_maxrss`` from ``wait4``:
the largest resident set of the process and of any child it waited for). Before the timed
runs each side runs once untimed when asked (``warmup``): Python writes its bytecode caches
and we write the prebuilt resources (gecscore/src/gecscore/resources.py) in that run, as a real
installation has them after its first use.

Children run with PYTHONDONTWRITEBYTECODE removed from the environment, for both sides: a
normal Python caches bytecode, and timing a recompilation of every module at each start
measures the benchmark's environment, not the tools.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stdout: bytes
    stderr: bytes


@dataclass
class Side:
    """One command line to time; ``output`` turns a finished run into what must be identical
    across runs and sides (a file's bytes, a table, a tuple of numbers)."""

    name: str
    argv: list[str]
    output: Callable[[Run], object]
    cwd: str | None = None
    warmup: bool = True
    env: dict[str, str] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    outputs: list[object] = field(default_factory=list)


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra or {})
    return env


def run_process(argv: Sequence[str], *, cwd: str | None = None, env: dict[str, str]) -> Run:
    """Run one command to completion; raises SystemExit with its stderr when it fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(list(argv), cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode:
        tail = stderr.decode("utf-8", "replace")[-2000:]
        raise SystemExit(f"benchmark command failed ({child.returncode}): {' '.join(argv)}\n{tail}")
    return Run(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=usage.ru_maxrss / 1024,
        stdout=stdout,
        stderr=stderr,
    )


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def interleave(sides: Sequence[Side], runs: int, *, progress: bool = True) -> None:
    """Warm up, then run every side ``runs`` times, alternating the order each round."""
    for side in sides:
        if side.warmup:
            run_process(side.argv, cwd=side.cwd, env=child_environment(side.env))
    for round_index in range(runs):
        order = list(sides) if round_index % 2 == 0 else list(reversed(sides))
        for side in order:
            run = run_process(side.argv, cwd=side.cwd, env=child_environment(side.env))
            side.runs.append(run)
            side.outputs.append(side.output(run))
            if progress:
                print(
                    f"  run {round_index + 1}/{runs} {side.name}: {run.wall_s:.3f} s "
                    f"(load {load_average()})",
                    flush=True,
                )


def _spread(values: list[float], unit: str, digits: int) -> str:
    median = statistics.median(values)
    return f"{median:.{digits}f} {unit} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def report(title: str, ours: Side, reference: Side | None, *, digits: int = 3) -> dict[str, object]:
    """Print one comparison line block; returns the numbers (for a JSON summary)."""
    print(f"{title}:")
    result: dict[str, object] = {"what": title}
    for side in (ours, reference):
        if side is None:
            continue
        walls = [run.wall_s for run in side.runs]
        cpus = [run.cpu_s for run in side.runs]
        peak = max(run.peak_rss_mb for run in side.runs)
        stable = all(output == side.outputs[0] for output in side.outputs)
        print(
            f"  {side.name:<10} wall median {_spread(walls, 's', digits)}, CPU median "
            f"{statistics.median(cpus):.{digits}f} s, peak RSS {peak:.0f} MiB, "
            f"{len(walls)} runs{'' if stable else ', OUTPUT DIFFERS BETWEEN RUNS'}"
        )
        result[side.name] = {
            "wall_median_s": round(statistics.median(walls), 4),
            "wall_min_s": round(min(walls), 4),
            "wall_max_s": round(max(walls), 4),
            "cpu_median_s": round(statistics.median(cpus), 4),
            "peak_rss_mib": round(peak, 1),
            "runs": len(walls),
        }
    if reference is None:
        print("  (no reference given: our times only, no ratio)")
        return result
    ratio = statistics.median(r.wall_s for r in reference.runs) / statistics.median(
        r.wall_s for r in ours.runs
    )
    cpu_ratio = statistics.median(r.cpu_s for r in reference.runs) / statistics.median(
        r.cpu_s for r in ours.runs
    )
    identical = all(output == reference.outputs[0] for output in ours.outputs + reference.outputs)
    # Two decimals: near a target of 1.0x or 10x the first decimal hides which side of it.
    print(
        f"  ratio (reference median / ours median): {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU; "
        f"outputs identical: {identical}"
    )
    result["ratio"] = round(ratio, 2)
    result["cpu_ratio"] = round(cpu_ratio, 2)
    result["identical"] = identical
    return result


def file_output(path: Path) -> Callable[[Run], object]:
    """The output of a run is the bytes of the file it wrote."""
    return lambda run: path.read_bytes()
