"""Benchmark: M2 (MaxMatch) on the 13 CoNLL-2014 systems, ours beside m2scorer 3.2.

    .venv/bin/python benchmarks/classic.py [--shared ../shared] [--repeat 3]
        [--reference ../refs/m2scorer --python2 ~/.pyenv/versions/2.7.18/bin/python]
        [--reference-repeat 1] [--reference-skip NTHU] [--stress-timeout 120] [--no-errant-gleu]
        [--errant-compare PATH] [--gec-ranking DIR --python2-path DIR] [--json]

* M2, ours: ONE process ``python -m gecscore m2score --hyp <13 files> --ref GOLD --json``,
  timed from outside (interpreter start, imports, reading, scoring), plus the CPU seconds of
  ``score_systems`` in this process for the 13 systems. Reference: m2scorer 3.2
  (``scripts/m2scorer.py SYSTEM GOLD``, one Python 2.7 process per system, times summed).
  Runs are interleaved (ours, reference, ours, ...) so both see the same load; medians and the
  load average before and after are printed. ``--reference-skip NTHU`` leaves NTHU out of the
  reference side (about 12 minutes of CPU alone); ours always scores all 13.
  ``identical`` compares the printed P / R / F_0.5 of every system the reference ran.
* Stress: generated outputs with long repeated n-grams (github.com/nusnlp/m2scorer/issues/8
  and /issues/12).
  Ours in one process each; the reference is given ``--stress-timeout`` seconds each.
* ERRANT compare and GLEU rows come from ``benchmarks/classic_errant_gleu.py`` when it is
  present (``--no-errant-gleu`` skips them).

Without ``--reference`` only our side is measured, and the output says so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

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


def _timed(argv: list[str], timeout: float | None = None) -> tuple[float, str | None]:
    """Wall seconds of a whole process and its stdout (None when it ran past ``timeout``)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, check=True, cwd=REPO, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, None
    return time.perf_counter() - start, done.stdout


def _parse_m2scorer(text: str) -> tuple[str, str, str]:
    values = [line.split(":")[1].strip() for line in text.strip().splitlines()[-3:]]
    return values[0], values[1], values[2]


def in_process_cpu(shared: Path) -> float:
    """CPU seconds of score_systems on the 13 systems (files already read)."""
    from gecscore.english.textfiles import read_text_lines
    from gecscore.m2 import read_m2
    from gecscore.maxmatch import score_systems

    data = shared / "data" / "conll14"
    gold = read_m2(data / "conll14st-test.m2")
    hyps = {s: read_text_lines(data / "systems" / s).lines for s in SYSTEMS}
    start = time.process_time()
    score_systems(hyps, gold)
    return time.process_time() - start


def m2_benchmark(
    shared: Path,
    *,
    repeat: int = 3,
    reference: Path | None = None,
    python2: str | None = None,
    reference_repeat: int = 1,
    reference_skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    data = shared / "data" / "conll14"
    gold = str(data / "conll14st-test.m2")
    hyps = [str(data / "systems" / system) for system in SYSTEMS]
    ours_argv = [sys.executable, "-m", "gecscore", "m2score", "--ref", gold, "--json"]
    for hyp in hyps:
        ours_argv += ["--hyp", hyp]
    run_reference = reference is not None and python2 is not None
    reference_systems = [s for s in SYSTEMS if s not in reference_skip]
    load_before = load_average()
    ours_times: list[float] = []
    ref_times: list[float] = []
    ours_scores: dict[str, tuple[str, str, str]] = {}
    ours_counts: dict[str, tuple[int, int, int]] = {}
    ref_scores: dict[str, tuple[str, str, str]] = {}
    for run in range(max(repeat, reference_repeat if run_reference else 0)):
        if run < repeat:
            seconds, out = _timed(ours_argv)
            ours_times.append(seconds)
            assert out is not None
            for line, system in zip(out.splitlines(), SYSTEMS, strict=True):
                row = json.loads(line)
                # The m2 Result's data (full precision), printed as m2scorer prints it.
                ours_scores[system] = tuple(
                    f"{row[key]:.4f}" for key in ("precision", "recall", "score")
                )
                ours_counts[system] = tuple(row["counts"])
        if run_reference and run < reference_repeat:
            assert reference is not None and python2 is not None
            script = str(reference / "scripts" / "m2scorer.py")
            total = 0.0
            for system in reference_systems:
                seconds, out = _timed([python2, script, str(data / "systems" / system), gold])
                assert out is not None
                total += seconds
                ref_scores[system] = _parse_m2scorer(out)
            ref_times.append(total)
    result: dict[str, Any] = {
        "what": "M2 (m2scorer 3.2 semantics), 13 CoNLL-14 systems vs conll14st-test.m2",
        "ours_median_s": round(statistics.median(ours_times), 3),
        "ours_runs_s": [round(t, 3) for t in ours_times],
        "ours_cpu_in_process_s": round(in_process_cpu(shared), 3),
        "load_before": load_before,
        "load_after": load_average(),
        "counts": ours_counts,
    }
    if run_reference:
        result["reference_systems"] = reference_systems
        result["reference_median_s"] = round(statistics.median(ref_times), 3)
        result["reference_runs_s"] = [round(t, 3) for t in ref_times]
        result["identical"] = all(ours_scores[s] == ref_scores[s] for s in reference_systems)
        result["ours_median_same_systems_note"] = (
            "ours scores all 13 systems in its time; the reference only "
            + ", ".join(reference_systems)
        )
    return result


def stress_files(folder: Path) -> list[tuple[str, Path, Path]]:
    """Outputs with long repeated n-grams: (description, hypothesis file, gold M2 file)."""
    doubled_source = ("the cat sat on the mat , and the dog sat on the log . " * 12).split()
    doubled_output = (
        "the cat sat on the the mat , and and the dog sat on on the log . " * 12
    ).split()
    phrase = ["the", "cat", "sat", "on", "the", "mat", "."]
    cases = [
        (
            "stress 1: 180 tokens of repeated n-grams, 24 doubled words",
            doubled_source,
            doubled_output,
            "A 5 5|||Mec|||the|||REQUIRED|||-NONE-|||0\n",
        ),
        (
            "stress 2: 20 copies of one 7-gram, the output drops 2 of them",
            phrase * 20,
            phrase * 18,
            "A 0 7|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0\n"
            "A 7 14|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0\n",
        ),
    ]
    files = []
    for number, (what, source, output, edits) in enumerate(cases, start=1):
        gold = folder / f"stress{number}.m2"
        gold.write_text("S " + " ".join(source) + "\n" + edits + "\n", encoding="utf-8")
        hyp = folder / f"stress{number}.txt"
        hyp.write_text(" ".join(output) + "\n", encoding="utf-8")
        files.append((what, hyp, gold))
    return files


def stress_benchmark(
    *, reference: Path | None, python2: str | None, timeout: float
) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for what, hyp, gold in stress_files(Path(tmp)):
            load_before = load_average()
            argv = [sys.executable, "-m", "gecscore", "m2score", "--hyp", str(hyp)]
            ours_s, ours_out = _timed([*argv, "--ref", str(gold)])
            result: dict[str, Any] = {
                "what": what,
                "ours_s": round(ours_s, 3),
                "ours_output": (ours_out or "").strip().splitlines(),
                "load_before": load_before,
            }
            if reference is not None and python2 is not None:
                script = str(reference / "scripts" / "m2scorer.py")
                ref_s, ref_out = _timed([python2, script, str(hyp), str(gold)], timeout=timeout)
                result["reference_s"] = round(ref_s, 3)
                result["reference_finished"] = ref_out is not None
                if ref_out is not None:
                    result["identical"] = ref_out == ours_out
            result["load_after"] = load_average()
            results.append(result)
    return results


def _print(result: dict[str, Any]) -> None:
    print(result["what"])
    if "ours_median_s" in result:
        print(f"  ours:      median {result['ours_median_s']} s  runs {result['ours_runs_s']}")
    if "ours_cpu_in_process_s" in result:
        print(f"  ours, in process: {result['ours_cpu_in_process_s']} s CPU for 13 systems")
    if "ours_s" in result:
        print(f"  ours:      {result['ours_s']} s  {result['ours_output']}")
    if "reference_median_s" in result:
        ratio = result["reference_median_s"] / result["ours_median_s"]
        print(
            f"  reference: median {result['reference_median_s']} s  runs "
            f"{result['reference_runs_s']}  ({ratio:.1f}x ours)"
        )
        if "reference_systems" in result:
            print(f"  reference systems: {' '.join(result['reference_systems'])}")
    elif "reference_s" in result:
        state = "finished" if result["reference_finished"] else "did NOT finish (timeout)"
        print(f"  reference: {result['reference_s']} s, {state}")
    else:
        print("  reference: not run (give --reference and --python2); ours only")
    if "identical" in result:
        print(f"  identical: {result['identical']}")
    print(f"  load average: before {result['load_before']}, after {result['load_after']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--repeat", type=int, default=3, help="runs of ours")
    parser.add_argument("--reference", type=Path, help="m2scorer 3.2 checkout (tag version3.2)")
    parser.add_argument("--python2", help="Python 2.7 interpreter for m2scorer")
    parser.add_argument("--reference-repeat", type=int, default=1, help="runs of m2scorer")
    parser.add_argument(
        "--reference-skip", nargs="*", default=[], metavar="SYSTEM", help="e.g. NTHU"
    )
    parser.add_argument("--stress-timeout", type=float, default=120.0)
    parser.add_argument("--no-errant-gleu", action="store_true")
    parser.add_argument("--errant-compare", help="errant_compare executable (ERRANT row)")
    parser.add_argument("--gec-ranking", type=Path, help="cnap/gec-ranking checkout (GLEU row)")
    parser.add_argument("--python2-path", help="PYTHONPATH for compute_gleu's numpy/scipy")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = [
        m2_benchmark(
            args.shared,
            repeat=args.repeat,
            reference=args.reference,
            python2=args.python2,
            reference_repeat=args.reference_repeat,
            reference_skip=tuple(args.reference_skip),
        ),
        *stress_benchmark(
            reference=args.reference, python2=args.python2, timeout=args.stress_timeout
        ),
    ]
    # Optional section: ERRANT compare and GLEU rows (task E's module), when present.
    if not args.no_errant_gleu:
        try:
            from benchmarks.classic_errant_gleu import errant_compare_benchmark, gleu_benchmark
        except ImportError:
            print("(benchmarks/classic_errant_gleu.py not found: ERRANT compare and GLEU skipped)")
        else:
            results.append(
                errant_compare_benchmark(
                    args.shared, repeat=args.repeat, errant_compare=args.errant_compare
                )
            )
            results.append(
                gleu_benchmark(
                    args.shared,
                    repeat=args.repeat,
                    python2=args.python2 if args.gec_ranking else None,
                    gec_ranking=args.gec_ranking,
                    python2_path=args.python2_path,
                )
            )
    for result in results:
        if args.json:
            print(json.dumps(result))
        else:
            _print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
