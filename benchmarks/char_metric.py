"""Benchmark: char-level M2 extraction and comparison, side by side with ChERRANT.

    .venv/bin/python benchmarks/char_metric.py [--runs 3] [--shared ../shared]
        [--reference ../refs/MuCGEC --reference-python ../refs/venv-ref/bin/python]
        [--only hyp,refs,compare,startup] [--workers N] [--json OUT.json]

Times, as whole processes interleaved with the reference (see benchmarks/_sidebyside.py):

* ``hyp``: ``python -m gecscore cherrant-m2`` vs ChERRANT ``parallel_to_m2.py -g char`` on the
  example system (``example_pred_dev.txt``, 1,137 hypotheses);
* ``refs``: the same on the 2,467 MuCGEC-dev references (``MuCGEC_dev.txt``);
* ``compare``: ``python -m gecscore compare`` vs ``compare_m2_for_evaluation.py`` on
  ChERRANT's M2 of both;
* ``startup``: ours only, a fresh process until the extractor, ChERRANT's resources, the
  pinyin table and OpenCC are ready (what every run pays before its first sentence).

Both sides get ChERRANT's ``data/`` resources (ours via ``--resources``). The M2 files must be
byte-identical to each other and to ChERRANT's files in ``../shared/data/mucgec-dev``; the
comparison tables must show the same numbers. Without ``--reference`` only ours is timed.
The reference checkout is MuCGEC @3922193 (its ``scorers/ChERRANT`` folder, or that folder
itself); its Python needs the packages of ../shared/specs/reference-tools.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sidebyside import Run, Side, file_output, interleave, load_average, report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
JOBS = {"hyp": "example_pred_dev", "refs": "MuCGEC_dev"}
STARTUP_SCRIPT = """
import sys
from gecscore.align import char_pinyin
from gecscore.extract import parallel_to_m2
from gecscore.resources import load_resources
from gecscore.tokenize import normalize_target
load_resources(sys.argv[1])
char_pinyin("中")
normalize_target("中", simplified=True)
"""


def cherrant_folder(reference: Path) -> Path:
    nested = reference / "scorers" / "ChERRANT"
    folder = nested if nested.is_dir() else reference
    if not (folder / "parallel_to_m2.py").is_file():
        raise SystemExit(f"error: no parallel_to_m2.py in {folder} (give the MuCGEC checkout)")
    return folder


def comparison_numbers(run: Run) -> tuple[str, ...]:
    """The TP/FP/FN/P/R/F row under the header of the span-based correction table."""
    lines = run.stdout.decode("utf-8").splitlines()
    for index, line in enumerate(lines):
        if line.split("\t")[:3] == ["TP", "FP", "FN"]:
            return tuple(lines[index + 1].split("\t"))
    raise SystemExit("benchmark: no TP/FP/FN table in the output:\n" + "\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--reference", help="MuCGEC checkout (or its scorers/ChERRANT)")
    parser.add_argument("--reference-python", default=sys.executable)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per side (default 3)")
    parser.add_argument("--only", default="startup,hyp,refs,compare")
    parser.add_argument("--workers", type=int, default=1, help="our extraction processes")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()
    shared = Path(args.shared).resolve()
    data, resources = shared / "data" / "mucgec-dev", shared / "data" / "cherrant-resources"
    if not data.is_dir():
        print(f"error: {data} not found (use --shared)", file=sys.stderr)
        return 2
    folder = cherrant_folder(Path(args.reference).resolve()) if args.reference else None
    wanted = args.only.split(",")
    ours_python = sys.executable
    print(f"load average before: {load_average()} (2 cores shared with other work)")
    print(f"reference: {folder or 'none (our times only)'}")
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        if "startup" in wanted:
            startup = Side(
                "ours",
                [ours_python, "-c", STARTUP_SCRIPT, str(resources)],
                output=lambda run: None,
                cwd=str(REPO),
            )
            interleave([startup], args.runs * 3)
            results.append(
                report("start-up: imports + resources + pinyin table + OpenCC ready", startup, None)
            )
        for job, stem in JOBS.items():
            if job not in wanted:
                continue
            expected = (data / f"{stem}.m2").read_bytes()
            ours_m2, ref_m2 = out / f"ours-{stem}.m2", out / f"ref-{stem}.m2"
            ours = Side(
                "ours",
                [ours_python, "-m", "gecscore", "cherrant-m2", str(data / f"{stem}.txt")]
                + ["-o", str(ours_m2), "--resources", str(resources)]
                + ["--workers", str(args.workers)],
                output=file_output(ours_m2),
                cwd=str(REPO),
            )
            sides = [ours]
            reference = None
            if folder is not None:
                reference = Side(
                    "ChERRANT",
                    [args.reference_python, "parallel_to_m2.py", "-f", str(data / f"{stem}.txt")]
                    + ["-o", str(ref_m2), "-g", "char"],
                    output=file_output(ref_m2),
                    cwd=str(folder),
                    # ~70 s a run; its own modules compile in its first run (< 0.1 s of it).
                    warmup=False,
                )
                sides.append(reference)
            interleave(sides, args.runs)
            row = report(f"parallel_to_m2, {stem}.txt", ours, reference)
            row["identical_to_shared_m2"] = all(output == expected for output in ours.outputs)
            print(f"  ours byte-identical to ChERRANT's {stem}.m2: {row['identical_to_shared_m2']}")
            results.append(row)
        if "compare" in wanted:
            hyp, ref = str(data / "example_pred_dev.m2"), str(data / "MuCGEC_dev.m2")
            ours = Side(
                "ours",
                [ours_python, "-m", "gecscore", "compare", "--hyp", hyp, "--ref", ref],
                output=comparison_numbers,
                cwd=str(REPO),
            )
            sides = [ours]
            reference = None
            if folder is not None:
                reference = Side(
                    "ChERRANT",
                    [args.reference_python, "compare_m2_for_evaluation.py", "-hyp", hyp]
                    + ["-ref", ref],
                    output=comparison_numbers,
                    cwd=str(folder),
                )
                sides.append(reference)
            interleave(sides, max(args.runs, 10))
            row = report("compare, example_pred_dev.m2 vs MuCGEC_dev.m2", ours, reference)
            print(f"  our numbers: {ours.outputs[0]}")
            results.append(row)
    print(f"load average after: {load_average()}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
