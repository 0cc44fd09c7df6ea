"""Benchmark: ERRANT compare and GLEU on the 13 CoNLL-2014 systems, ours beside the references.

    .venv/bin/python benchmarks/classic_errant_gleu.py [--shared ../shared] [--repeat 3]
        [--errant-compare .venv/bin/errant_compare]
        [--python2 ~/.pyenv/versions/2.7.18/bin/python --gec-ranking ../refs/gec-ranking]
        [--python2-path ../refs/py27libs] [--json]

Every measurement is a whole process, timed from outside (interpreter start, imports, reading,
scoring), and the runs are interleaved (ours, reference, ours, reference, ...) so both see the
same machine load; the medians are reported with the load average before and after.

* ERRANT compare: ours is ONE process ``python -m gecscore errant-compare --hyp <13 files>
  --ref conll14.errant --json``; the reference is errant 3.0.2's ``errant_compare``, which takes
  one hypothesis per process, so 13 processes (their times summed). Inputs: the CLEME-provided
  ERRANT M2 files. ``identical`` compares TP/FP/FN/P/R/F of every system.
* GLEU: ours is one process ``python -m gecscore gleu --src --hyp <13> --ref trg0 trg1
  --json``; the reference is one Python 2.7 process ``compute_gleu -s -r trg0 trg1 -o <13> -n 4``
  (gec-ranking @50b5032, numpy 1.16, scipy 1.2). ``identical`` compares the 6-decimal scores.

``benchmarks/classic.py`` imports :func:`errant_compare_benchmark` and :func:`gleu_benchmark`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU") + (
    "PKU",
    "POST",
    "RAC",
    "SJTU",
    "UFC",
    "UMC",
)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def _timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        argv, capture_output=True, text=True, check=True, cwd=REPO, env=env or None
    )
    return time.perf_counter() - start, done.stdout


def _ours(command: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "gecscore", command, *args]


def errant_compare_benchmark(
    shared: Path, *, repeat: int = 3, errant_compare: str | None = None
) -> dict[str, Any]:
    """Medians of ours (one process, 13 systems) and errant_compare (13 processes)."""
    data = shared / "data" / "cleme-conll14"
    ref = str(data / "conll14.errant")
    hyps = [str(data / f"conll14-{system}.errant") for system in SYSTEMS]
    ours_argv = _ours("errant-compare", "--ref", ref, "--json")
    for hyp in hyps:
        ours_argv += ["--hyp", hyp]
    load_before = load_average()
    ours_times: list[float] = []
    ref_times: list[float] = []
    ours_counts: dict[str, list[Any]] = {}
    ref_counts: dict[str, list[Any]] = {}
    for _ in range(repeat):
        seconds, out = _timed(ours_argv)
        ours_times.append(seconds)
        for line, system in zip(out.splitlines(), SYSTEMS, strict=True):
            row = json.loads(line)
            # The errant Result's data: P/R/F at full precision, rounded as errant prints.
            prf = [round(row[k], 4) for k in ("precision", "recall", "score")]
            ours_counts[system] = [*row["counts"], *prf]
        if errant_compare:
            total = 0.0
            for system, hyp in zip(SYSTEMS, hyps, strict=True):
                seconds, out = _timed([errant_compare, "-hyp", hyp, "-ref", ref])
                total += seconds
                values = out.strip().splitlines()[-2].split("\t")
                ref_counts[system] = [int(v) for v in values[:3]] + [float(v) for v in values[3:]]
            ref_times.append(total)
    result: dict[str, Any] = {
        "what": "ERRANT compare, 13 CoNLL-14 systems (CLEME-provided ERRANT M2)",
        "ours_median_s": round(statistics.median(ours_times), 3),
        "ours_runs_s": [round(t, 3) for t in ours_times],
        "load_before": load_before,
        "load_after": load_average(),
        "counts": ours_counts,
    }
    if errant_compare:
        result["reference_median_s"] = round(statistics.median(ref_times), 3)
        result["reference_runs_s"] = [round(t, 3) for t in ref_times]
        result["identical"] = ours_counts == ref_counts
    return result


def gleu_benchmark(
    shared: Path,
    *,
    repeat: int = 3,
    python2: str | None = None,
    gec_ranking: Path | None = None,
    python2_path: str | None = None,
) -> dict[str, Any]:
    """Medians of ours and compute_gleu (Python 2.7), each one process for the 13 systems."""
    data = shared / "data" / "conll14"
    src = str(data / "conll14st-test.tok.src")
    refs = [str(data / "refs" / "gecmetrics" / f"conll14st-test.tok.trg{k}") for k in (0, 1)]
    hyps = [str(data / "systems" / system) for system in SYSTEMS]
    ours_argv = _ours("gleu", "--src", src, "--ref", *refs, "--json")
    for hyp in hyps:
        ours_argv += ["--hyp", hyp]
    reference_argv: list[str] | None = None
    env: dict[str, str] | None = None
    if python2 and gec_ranking:
        script = str(gec_ranking / "scripts" / "compute_gleu")
        reference_argv = [python2, script, "-s", src, "-r", *refs, "-o", *hyps, "-n", "4"]
        env = dict(os.environ)
        if python2_path:
            env["PYTHONPATH"] = python2_path
    load_before = load_average()
    ours_times: list[float] = []
    ref_times: list[float] = []
    ours_scores: dict[str, str] = {}
    ref_scores: dict[str, str] = {}
    for _ in range(repeat):
        seconds, out = _timed(ours_argv)
        ours_times.append(seconds)
        for line, system in zip(out.splitlines(), SYSTEMS, strict=True):
            ours_scores[system] = f"{json.loads(line)['score']:f}"
        if reference_argv is not None:
            seconds, out = _timed(reference_argv, env)
            ref_times.append(seconds)
            for line in out.splitlines():
                name, score = line.split()
                ref_scores[name] = score
    result: dict[str, Any] = {
        "what": "GLEU (4-gram, 2 references, 500 draws), 13 CoNLL-14 systems",
        "ours_median_s": round(statistics.median(ours_times), 3),
        "ours_runs_s": [round(t, 3) for t in ours_times],
        "load_before": load_before,
        "load_after": load_average(),
        "scores": ours_scores,
    }
    if reference_argv is not None:
        result["reference_median_s"] = round(statistics.median(ref_times), 3)
        result["reference_runs_s"] = [round(t, 3) for t in ref_times]
        result["identical"] = ours_scores == ref_scores
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--errant-compare", help="errant 3.0.2's errant_compare executable")
    parser.add_argument("--python2", help="Python 2.7 for compute_gleu")
    parser.add_argument("--gec-ranking", type=Path, help="checkout of cnap/gec-ranking @50b5032")
    parser.add_argument("--python2-path", help="PYTHONPATH with numpy 1.16 / scipy 1.2 for it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = [
        errant_compare_benchmark(
            args.shared, repeat=args.repeat, errant_compare=args.errant_compare
        ),
        gleu_benchmark(
            args.shared,
            repeat=args.repeat,
            python2=args.python2,
            gec_ranking=args.gec_ranking,
            python2_path=args.python2_path,
        ),
    ]
    for result in results:
        if args.json:
            print(json.dumps(result))
            continue
        print(result["what"])
        print(f"  ours:      median {result['ours_median_s']} s  runs {result['ours_runs_s']}")
        if "reference_median_s" in result:
            ratio = result["reference_median_s"] / result["ours_median_s"]
            print(
                f"  reference: median {result['reference_median_s']} s  runs "
                f"{result['reference_runs_s']}  ({ratio:.1f}x ours)"
            )
            print(f"  identical: {result['identical']}")
        print(f"  load average: before {result['load_before']}, after {result['load_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
