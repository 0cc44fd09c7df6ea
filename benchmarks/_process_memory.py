"""Peak memory (RSS) of each process a benchmark step uses, sampled from /proc (Linux).

`StepMemory` is entered around one step. A thread samples, every `interval` seconds:

* this process (the benchmark: the services run here as a Celery worker runs them);
* its descendants (the extractor's pool processes, children of a fork server that is a
  child of this process);
* the PostgreSQL backends serving the database `database` (their command line names it:
  "postgres: 15/main: USER DATABASE 127.0.0.1(PORT) ...").

Each process's peak is the largest of its sampled VmRSS and its VmHWM (the kernel's own
high-water mark of its lifetime) read while it lived; for this process VmHWM is used only
when it rose during the step (the step's own peak is then exact). RSS counts the shared
pages a process touched: for PostgreSQL backends the shared buffers they read are counted
in every backend, so `RssAnon` (their private memory) is kept beside it. The 1-minute load
average is sampled too: the machine is shared.

`stop_above` (bytes) ends the benchmark, its pool processes first, as soon as one of its
processes holds more: on a shared machine a step that would swell past the memory there is
stopped with its figure printed rather than left to the kernel's OOM killer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROC = Path("/proc")


def _status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM and RssAnon of one process, in bytes (empty when it has gone)."""
    values: dict[str, int] = {}
    try:
        text = (PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return values
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon"):
            values[name] = int(rest.split()[0]) * 1024
    return values


def _processes() -> dict[int, tuple[int, str]]:
    """Every process's parent and command line."""
    found: dict[int, tuple[int, str]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        parent = int(stat.rpartition(")")[2].split()[1])
        found[int(entry.name)] = (parent, cmdline.strip())
    return found


@dataclass
class ProcessPeak:
    pid: int
    kind: str  # "benchmark", "child" or "postgres"
    command: str
    rss: int = 0
    anon: int = 0


@dataclass
class StepMemory:
    """Context manager: peak RSS of each process used during one step."""

    name: str
    database: str
    interval: float = 0.5
    stop_above: int = 0
    peaks: dict[int, ProcessPeak] = field(default_factory=dict)
    loads: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def __enter__(self) -> StepMemory:
        self._own = os.getpid()
        self._own_hwm_before = _status(self._own).get("VmHWM", 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = time.perf_counter()
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self._started
        self._stop.set()
        self._thread.join()
        self._sample()
        own = self.peaks[self._own]
        hwm = _status(self._own).get("VmHWM", 0)
        if hwm > self._own_hwm_before:
            own.rss = max(own.rss, hwm)
        if exc and exc[0] is not None:  # the figures of a failed step, before its traceback
            print(f"{format_row(self.summary())} failed: {exc[0].__name__}: {exc[1]}", flush=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self) -> None:
        self.loads.append(os.getloadavg()[0])
        processes = _processes()
        children: dict[int, list[int]] = {}
        for pid, (parent, _) in processes.items():
            children.setdefault(parent, []).append(pid)
        ours, stack = [], [self._own]
        while stack:
            pid = stack.pop()
            ours.append(pid)
            stack.extend(children.get(pid, []))
        marker = f" {self.database} "
        for pid in ours:
            rss = self._note(pid, "benchmark" if pid == self._own else "child", processes)
            if self.stop_above and rss > self.stop_above:
                self._stop_everything(pid, rss, ours)
        for pid, (_, command) in processes.items():
            if command.startswith("postgres:") and marker in command + " ":
                self._note(pid, "postgres", processes)

    def _stop_everything(self, pid: int, rss: int, ours: list[int]) -> None:
        print(
            f"| {self.name} | stopped after {time.perf_counter() - self._started:.1f} s: process "
            f"{pid} held {rss / 2**30:.2f} GB (limit {self.stop_above / 2**30:.2f} GB) | "
            f"{os.getloadavg()[0]:.1f} | | | |",
            flush=True,
        )
        for child in ours:
            if child != self._own:
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
        os._exit(3)

    def _note(self, pid: int, kind: str, processes: dict[int, tuple[int, str]]) -> int:
        """Record one process's memory; its resident size now."""
        status = _status(pid)
        if not status:
            return 0
        peak = self.peaks.setdefault(pid, ProcessPeak(pid, kind, processes[pid][1][:80]))
        high = status.get("VmRSS", 0)
        if kind != "benchmark":  # its lifetime high-water mark; ours is taken at the end
            high = max(high, status.get("VmHWM", 0))
        peak.rss = max(peak.rss, high)
        peak.anon = max(peak.anon, status.get("RssAnon", 0))
        return status.get("VmRSS", 0)

    def summary(self) -> dict[str, Any]:
        """The step's time, load and the largest process of each kind."""
        by_kind: dict[str, list[ProcessPeak]] = {}
        for peak in self.peaks.values():
            by_kind.setdefault(peak.kind, []).append(peak)

        def largest(kind: str) -> tuple[int, int, int]:
            found = by_kind.get(kind, [])
            if not found:
                return 0, 0, 0
            top = max(found, key=lambda p: p.rss)
            return len(found), top.rss, top.anon

        return {
            "step": self.name,
            "seconds": self.seconds,
            "load_mean": sum(self.loads) / len(self.loads),
            "load_max": max(self.loads),
            "benchmark": largest("benchmark"),
            "children": largest("child"),
            "postgres": largest("postgres"),
        }


def format_row(summary: dict[str, Any]) -> str:
    """One Markdown table row: step, time, load, then each kind's count and peak."""

    def gigabytes(value: int) -> str:
        return f"{value / 2**30:.2f} GB"

    _, own, _ = summary["benchmark"]
    workers, child, _ = summary["children"]
    backends, backend, backend_anon = summary["postgres"]
    return (
        f"| {summary['step']} | {summary['seconds']:.1f} s | "
        f"{summary['load_mean']:.1f} (max {summary['load_max']:.1f}) | {gigabytes(own)} | "
        + (f"{workers} x, largest {gigabytes(child)}" if workers else "-")
        + " | "
        + (
            f"{backends} x, largest {gigabytes(backend)} (private {gigabytes(backend_anon)})"
            if backends
            else "-"
        )
        + " |"
    )
