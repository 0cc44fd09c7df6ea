"""Our TrueSkill human ranking on RevisitCGEC against grammatical/evaluation's own ``TS.py``.

    .venv/bin/python benchmarks/trueskill_reference.py --reference CHECKOUT
        [--data ../shared/data/revisitcgec] [--corpus all mucgec yaclc] [--runs 1000]
        [--jobs 2] [--nice 5] [--python python2] [--work DIR] [--ours-runs 1000] [--json OUT]

CHECKOUT is a clone of github.com/grammatical/evaluation (kept outside this repository; the
check in docs/metrics/meta-evaluation.md used @08cdad8). For each corpus the script

1. writes the pairwise judgments our harness ranks (``pairwise(corpus.items, systems=SYSTEMS)``,
   collapsed outputs split) in ``print_pairs.pl -r`` form (``A<TAB>B<TAB>RANK_A<TAB>RANK_B``) and,
   for the pooled corpus with perl and XML::Twig at hand, checks that they are the same multiset
   as ``perl data/scripts/print_pairs.pl -r < judgments.xml`` (the Makefile's ``pairs.tup.txt``);
2. runs ``TS.py RUN -n 2 -d 0`` (the Makefile's ``TS/run.%_mu_sigma.json``), one unseeded process
   per run, ``--jobs`` at a time under ``nice``, until ``--runs`` ``*_mu_sigma.json`` files are in
   ``WORK/CORPUS/`` (runs already there are kept, so an interrupted call resumes; ``--runs 0``
   only compares what is there). ``--python`` is the interpreter: TS.py is Python 2 code
   (``python2`` with numpy and trueskill 0.4.5 importable, e.g. through PYTHONPATH);
3. prints per system the reference's mean mu +- its standard error, ours
   (``rank_trueskill(pairs, runs=--ours-runs, seed=0)``) and the difference in standard errors.

Nothing here is imported by the tests; it needs the reference checkout and minutes of CPU.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "gecscore" / "src"))

from gecscore.meta.judgments import pairwise  # noqa: E402
from gecscore.meta.rankings.trueskill_ranking import trueskill_mu  # noqa: E402
from gecscore.meta.revisitcgec import SYSTEMS, load_corpus  # noqa: E402

TS_DIR = Path("data/scripts/wmt-trueskill")


def pair_lines(data: Path, corpus: str) -> list[str]:
    """Our harness's pairwise judgments of ``corpus`` as ``print_pairs.pl -r`` lines."""
    items = load_corpus(data, corpus).items
    return [
        f"{p.system_a}\t{p.system_b}\t{p.rank_a}\t{p.rank_b}\n"
        for p in pairwise(items, systems=SYSTEMS)
    ]


def perl_pairs(reference: Path, data: Path) -> list[str] | None:
    """``print_pairs.pl -r`` on the whole judgments.xml, or None without perl/XML::Twig."""
    if shutil.which("perl") is None:
        return None
    script = reference / "data" / "scripts" / "print_pairs.pl"
    with (data / "judgments.xml").open("rb") as xml:
        done = subprocess.run(["perl", str(script), "-r"], stdin=xml, capture_output=True)
    if done.returncode != 0:
        return None
    return done.stdout.decode().splitlines(keepends=True)


def one_run(reference: Path, pairs: Path, prefix: Path, python: str, nice: int) -> float:
    """One ``TS.py -n 2 -d 0`` process; the result is renamed into place only when complete."""
    started = time.monotonic()
    partial = prefix.with_name(prefix.name + ".tmp")
    command = [
        "nice",
        "-n",
        str(nice),
        *python.split(),
        "TS.py",
        str(partial),
        "-n",
        "2",
        "-d",
        "0",
    ]
    with pairs.open("rb") as stdin:
        subprocess.run(
            command, cwd=reference / TS_DIR, stdin=stdin, check=True, capture_output=True
        )
    Path(f"{partial}_mu_sigma.json").rename(f"{prefix}_mu_sigma.json")
    Path(f"{partial}-0.8-1.0_count.json").unlink(missing_ok=True)
    return time.monotonic() - started


def run_reference(args: argparse.Namespace, folder: Path, pairs: Path) -> None:
    done = sum(".tmp" not in p.name for p in folder.glob("*_mu_sigma.json"))
    todo = [i for i in range(args.runs) if not (folder / f"run.{i:04d}_mu_sigma.json").exists()]
    todo = todo[: max(0, args.runs - done)]
    with ThreadPoolExecutor(args.jobs) as pool:
        jobs = [
            pool.submit(
                one_run, args.reference, pairs, folder / f"run.{i:04d}", args.python, args.nice
            )
            for i in todo
        ]
        for k, job in enumerate(jobs, 1):
            seconds = job.result()
            load = os.getloadavg()[0]
            print(
                f"  run {done + k}/{args.runs}: {seconds:.1f} s wall, load {load:.2f}", flush=True
            )


def reference_mu(folder: Path) -> dict[str, list[float]]:
    mus: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    for path in sorted(folder.glob("*_mu_sigma.json")):
        if ".tmp" in path.name:  # a run still writing
            continue
        run = json.loads(path.read_text())
        for system in SYSTEMS:
            mus[system].append(float(run[system][0]))
    return mus


def mean_se(values: list[float]) -> tuple[float, float, float]:
    """Mean, sample standard deviation and standard error of the mean (NaN where undefined)."""
    n = len(values)
    mean = sum(values) / n if n else math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.nan
    return mean, sd, sd / math.sqrt(n) if n > 1 else math.nan


def compare(
    mus: dict[str, list[float]], ours: dict[str, list[float]]
) -> dict[str, dict[str, float]]:
    """Per system: the reference's mean mu and its standard error, ours (mean over our runs,
    = rank_trueskill's score) and the difference in the reference's standard errors and in
    the standard error of the difference (both means' errors)."""
    rows: dict[str, dict[str, float]] = {}
    for system in sorted(SYSTEMS, key=lambda s: -sum(ours[s])):
        mean, sd, se = mean_se(mus[system])
        our_mean, _, our_se = mean_se(ours[system])
        diff = our_mean - mean
        both = math.hypot(se, our_se)
        rows[system] = {
            "reference": mean,
            "reference_se": se,
            "reference_sd": sd,
            "runs": len(mus[system]),
            "ours": our_mean,
            "ours_se": our_se,
            "ours_runs": len(ours[system]),
            "difference": diff,
            "standard_errors": diff / se if se else math.nan,
            "standard_errors_of_difference": diff / both if both else math.nan,
        }
    return rows


def check_corpus(args: argparse.Namespace, corpus: str) -> dict[str, Any]:
    folder = args.work / corpus
    folder.mkdir(parents=True, exist_ok=True)
    lines = pair_lines(args.data, corpus)
    pairs = folder.parent / f"pairs.{corpus}.tup.txt"
    pairs.write_text("".join(lines))
    same_as_perl = None
    if corpus == "all":
        perl = perl_pairs(args.reference, args.data)
        same_as_perl = None if perl is None else Counter(perl) == Counter(lines)
    print(f"{corpus}: {len(lines)} pairs (same multiset as print_pairs.pl -r: {same_as_perl})")
    if args.runs:
        run_reference(args, folder, pairs)
    items = load_corpus(args.data, corpus).items
    # rank_trueskill's score is the mean of these runs' mu (the same call, seed 0).
    pairs_ours = pairwise(items, systems=SYSTEMS)
    mu = trueskill_mu(pairs_ours, runs=args.ours_runs, seed=0)
    systems = sorted({p.system_a for p in pairs_ours} | {p.system_b for p in pairs_ours})
    ours = {s: [float(v) for v in mu[:, i]] for i, s in enumerate(systems)}
    rows = compare(reference_mu(folder), ours)
    print(
        "| system | reference mean mu +- s.e. | ours +- s.e. | ours - reference "
        "| in reference s.e. | in s.e. of the difference |"
    )
    for system, row in rows.items():
        print(
            f"| {system} | {row['reference']:.4f} +- {row['reference_se']:.4f} "
            f"({row['runs']} runs) | {row['ours']:.4f} +- {row['ours_se']:.4f} "
            f"| {row['difference']:+.4f} | {row['standard_errors']:+.1f} "
            f"| {row['standard_errors_of_difference']:+.1f} |"
        )
    return {"pairs": len(lines), "same_as_print_pairs": same_as_perl, "systems": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reference", type=Path, required=True, help="grammatical/evaluation clone"
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/revisitcgec")
    parser.add_argument("--corpus", nargs="+", default=["all"], choices=["all", "mucgec", "yaclc"])
    parser.add_argument("--runs", type=int, default=1000, help="reference runs wanted per corpus")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--nice", type=int, default=5)
    parser.add_argument("--python", default="python2", help="interpreter command for TS.py")
    parser.add_argument("--work", type=Path, default=Path("trueskill-reference-runs"))
    parser.add_argument("--ours-runs", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {corpus: check_corpus(args, corpus) for corpus in args.corpus}
    report["load_average"] = list(os.getloadavg())
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
