"""Benchmark: CLEME (corpus, dependent) from M2, side by side with CLEME v1.0.

    .venv/bin/python benchmarks/cleme.py [--runs 10] [--shared ../shared]
        [--reference ../refs/CLEME --reference-python ../refs/venv-ref/bin/python]
        [--level corpus|sentence] [--assumption dependent|independent] [--json OUT.json]

Times ``python -m gecscore cleme --hyp example_pred_dev.m2 --ref MuCGEC_dev.m2 --json``
against CLEME v1.0's ``scripts/evaluate.py --level corpus --scorer dependent`` on the same M2
files (THUKElab/CLEME @5fc7617; its Python needs numpy, pydantic 2, tabulate, tqdm), as
whole processes interleaved (benchmarks/_sidebyside.py), and checks both print the same
F, P, R, accuracy and TP/FP/FN/TN (the reference rounds the counts to 2 decimals; ours are
compared at that precision). The spec's value for the example system is F0.5 0.3155.
Without ``--reference`` only ours is timed.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sidebyside import Run, Side, interleave, load_average, report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXPECTED_F05 = 0.3155  # specs/cleme.md section 8, example system, corpus dependent


def reference_numbers(run: Run) -> tuple[float, ...]:
    """CLEME v1.0 prints one dict as its last line: F, Acc, P, R, tp, fp, fn, tn."""
    last = run.stdout.decode("utf-8").strip().splitlines()[-1]
    values = ast.literal_eval(last)
    return tuple(round(float(values[key]), 4) for key in ("F", "Acc", "P", "R")) + tuple(
        round(float(values[key]), 2) for key in ("tp", "fp", "fn", "tn")
    )


def our_numbers(run: Run) -> tuple[float, ...]:
    values = json.loads(run.stdout)  # the cleme Result's data
    details = values["details"]
    scores = (values["score"], details["acc"], values["precision"], values["recall"])
    counts = (*values["counts"], details["tn"])
    return tuple(round(float(v), 4) for v in scores) + tuple(round(float(v), 2) for v in counts)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--reference", help="CLEME v1.0 checkout (has scripts/evaluate.py)")
    parser.add_argument("--reference-python", default=sys.executable)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per side (default 3)")
    parser.add_argument("--level", choices=("corpus", "sentence"), default="corpus")
    parser.add_argument("--assumption", choices=("dependent", "independent"), default="dependent")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()
    data = Path(args.shared).resolve() / "data" / "mucgec-dev"
    if not data.is_dir():
        print(f"error: {data} not found (use --shared)", file=sys.stderr)
        return 2
    hyp, ref = str(data / "example_pred_dev.m2"), str(data / "MuCGEC_dev.m2")
    print(f"load average before: {load_average()} (2 cores shared with other work)")
    ours = Side(
        "ours",
        [sys.executable, "-m", "gecscore", "cleme", "--hyp", hyp, "--ref", ref]
        + ["--level", args.level, "--assumption", args.assumption, "--json"],
        output=our_numbers,
        cwd=str(REPO),
    )
    sides = [ours]
    reference = None
    if args.reference:
        folder = Path(args.reference).resolve()
        if not (folder / "scripts" / "evaluate.py").is_file():
            print(f"error: {folder}/scripts/evaluate.py not found", file=sys.stderr)
            return 2
        reference = Side(
            "CLEME v1.0",
            [args.reference_python, "scripts/evaluate.py", "--ref", ref, "--hyp", hyp]
            + ["--level", args.level, "--scorer", args.assumption],
            output=reference_numbers,
            cwd=str(folder),
        )
        sides.append(reference)
    print(f"reference: {args.reference or 'none (our times only)'}")
    interleave(sides, args.runs)
    row = report(
        f"CLEME {args.level} {args.assumption}, example_pred_dev vs MuCGEC_dev", ours, reference
    )
    print(f"  our F0.5, Acc, P, R, TP, FP, FN, TN: {ours.outputs[0]}")
    if (args.level, args.assumption) == ("corpus", "dependent"):
        print(f"  F0.5 equals the spec's {EXPECTED_F05}: {ours.outputs[0][0] == EXPECTED_F05}")
    print(f"load average after: {load_average()}")
    if args.json:
        Path(args.json).write_text(json.dumps([row], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
