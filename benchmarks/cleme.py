"""Benchmark: CLEME (corpus, dependent) of the MuCGEC-dev example system.

    .venv/bin/python benchmarks/cleme.py [--shared ../shared] [--repeat 5] [--text] [--workers 2]

Measures, each in a fresh process (cold caches, as a real run):

* ``process m2``: a fresh ``python`` that imports ``scoring.gec.cleme``, reads
  ``example_pred_dev.m2`` and ``MuCGEC_dev.m2`` and scores, timed from outside (interpreter
  start, imports, reading, scoring): the same work as the reference's 2.2 s (CLEME v1.0
  CLI, specs/cleme.md section 9);
* ``library m2``: the same inside Python after the imports (read + partition + count + score);
* ``cli m2``: ``python -m scoring.gec cleme ...``; this also imports every other command
  module of the shared CLI registry, so it includes their import cost;
* ``process text`` (with --text): the same from raw ``id \\t source \\t targets`` files, i.e.
  our char-level edit extraction (ChERRANT resources) + CLEME. The reference has no raw-text
  path for Chinese; HEAD's 22.6 s is its M2 run.

Prints wall/CPU time (best and median of --repeat runs), peak RSS, the ratio to 2.2 s and
22.6 s, and checks that F0.5 is the spec's 0.3155.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE_V1_SECONDS = 2.2  # CLEME v1.0 CLI, M2 input, one system (spec section 9)
REFERENCE_HEAD_SECONDS = 22.6  # CLEME HEAD main.py, 780 MB
EXPECTED_F05 = 0.3155


def _library_child(shared: Path) -> dict[str, object]:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    sys.path.insert(0, str(REPO))
    from scoring.gec.cleme.inputs import read_m2_sentences
    from scoring.gec.cleme.scorers import cleme

    imported = time.perf_counter()
    data = shared / "data" / "mucgec-dev"
    score = cleme(
        read_m2_sentences(data / "example_pred_dev.m2"), read_m2_sentences(data / "MuCGEC_dev.m2")
    )
    end = time.perf_counter()
    return {
        "wall_s": round(end - imported, 4),
        "import_s": round(imported - wall0, 4),
        "cpu_s": round(time.process_time() - cpu0, 4),
        "f05": score.f,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


PROCESS_TEXT_SCRIPT = """
import json, sys
from scoring.gec.cleme import cleme, read_sentences
from scoring.gec.resources import load_resources
resources = load_resources(sys.argv[3])
workers = int(sys.argv[4])
hyp = read_sentences(sys.argv[1], resources=resources, workers=workers)
ref = read_sentences(sys.argv[2], resources=resources, workers=workers)
print(json.dumps(cleme(hyp, ref).as_dict()))
"""

PROCESS_SCRIPT = """
import json, sys
from scoring.gec.cleme import cleme, read_m2_sentences
score = cleme(read_m2_sentences(sys.argv[1]), read_m2_sentences(sys.argv[2]))
print(json.dumps(score.as_dict()))
"""


def _run_cli(argv: list[str], command: list[str] | None = None) -> dict[str, object]:
    """Run one child; its own CPU time and peak RSS come from wait4 (RUSAGE_CHILDREN's max
    RSS would carry over from earlier children). Extraction workers' CPU is not included."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, *(command or ["-m", "scoring.gec", *argv, "--json"])],
            cwd=REPO,
            stdout=out,
            stderr=err,
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode:
            raise SystemExit(f"benchmark child failed: {err.read()}")
        result = json.loads(out.read())
    return {
        "wall_s": round(wall, 4),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 4),
        "f05": result["f05"],
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }


def _summary(name: str, runs: list[dict[str, object]]) -> None:
    walls = [float(str(run["wall_s"])) for run in runs]
    cpus = [float(str(run["cpu_s"])) for run in runs]
    best = min(walls)
    ok = all(run["f05"] == EXPECTED_F05 for run in runs)
    print(
        f"{name:<12} wall best {best:.3f} s, median {statistics.median(walls):.3f} s; "
        f"cpu best {min(cpus):.3f} s; peak RSS {max(float(str(r['peak_rss_mb'])) for r in runs):.0f} MB; "
        f"x{REFERENCE_V1_SECONDS / best:.1f} vs {REFERENCE_V1_SECONDS} s, "
        f"x{REFERENCE_HEAD_SECONDS / best:.1f} vs {REFERENCE_HEAD_SECONDS} s; "
        f"F0.5 {runs[0]['f05']} {'== spec' if ok else '!= spec ' + str(EXPECTED_F05)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--repeat", type=int, default=5, help="runs per configuration")
    parser.add_argument("--text", action="store_true", help="also time raw-text input")
    parser.add_argument("--workers", type=int, default=1, help="extraction processes (text)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    shared = Path(args.shared).resolve()
    if args.child:
        print(json.dumps(_library_child(shared)))
        return 0
    data = shared / "data" / "mucgec-dev"
    if not data.is_dir():
        print(f"error: {data} not found (use --shared)", file=sys.stderr)
        return 2
    print(
        f"reference: CLEME v1.0 CLI {REFERENCE_V1_SECONDS} s, HEAD {REFERENCE_HEAD_SECONDS} s "
        "(spec section 9); machine load now:",
        " ".join(f"{x:.2f}" for x in os.getloadavg()),
    )
    hyp_m2, ref_m2 = str(data / "example_pred_dev.m2"), str(data / "MuCGEC_dev.m2")
    process = ["-c", PROCESS_SCRIPT, hyp_m2, ref_m2]
    _summary("process m2", [_run_cli([], process) for _ in range(args.repeat)])
    library_runs = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--shared", str(shared), "--child"],
            check=True,
            capture_output=True,
            text=True,
        )
        library_runs.append(json.loads(out.stdout))
    _summary("library m2", library_runs)
    m2_args = ["cleme", "--hyp", hyp_m2, "--ref", ref_m2]
    _summary("cli m2", [_run_cli(m2_args) for _ in range(args.repeat)])
    if args.text:
        text = [
            "-c",
            PROCESS_TEXT_SCRIPT,
            str(data / "example_pred_dev.txt"),
            str(data / "MuCGEC_dev.txt"),
            str(shared / "data" / "cherrant-resources"),
            str(args.workers),
        ]
        runs = [_run_cli([], text) for _ in range(max(1, args.repeat // 5))]
        _summary(f"process text w{args.workers}", runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
