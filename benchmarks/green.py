"""Benchmark: GREEN on SEEDA's 15 systems, ours beside gec-metrics 0.1.1's, in the same run.

    .venv/bin/python benchmarks/green.py [--shared ../shared] [--runs 3]
        [--gec-metrics DIR] [--unit word|char] [--json]

Whole processes, interleaved (benchmarks/_sidebyside.py), each scoring all 15 systems of
SEEDA's subset (391 sentences, sources = outputs/subset/INPUT.txt, references =
seeda/refs/REF0.txt and REF1.txt) with GREEN's defaults (n 4, beta 2):

* ours: ``python -m gecscore green --src INPUT.txt --hyp <15 files> --ref REF0 REF1 --json``;
* reference: one process of the virtualenv's python running ``get_metric("green")`` of
  gec-metrics 0.1.1 on the same files (a script this benchmark writes to a temporary folder).

Both print the 15 corpus scores; ``identical`` compares them as floats (all bits). Each side
also reports its scoring time inside the process (after imports and reading), since
gec-metrics' ``import`` loads torch and transformers. Without the reference virtualenv, our
time is printed alone with a message.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO))
from _sidebyside import Run, Side, interleave, load_average, report  # noqa: E402

from tests.refs import reference_path  # noqa: E402

SYSTEMS = [
    *("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic"),
    *("PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"),
]

REFERENCE_SCRIPT = """
import json, sys, time
from gec_metrics import get_metric
from gec_metrics.meta_eval.utils import read_lines
src, ref0, ref1, unit, *hyps = sys.argv[1:]
sources = read_lines(src)
refs = [read_lines(ref0), read_lines(ref1)]
outputs = [read_lines(h) for h in hyps]
M = get_metric("green")
start = time.perf_counter()
metric = M(M.Config(unit=unit))
scores = [metric.score_corpus(sources, out, refs) for out in outputs]
print(f"scoring_s {time.perf_counter() - start:.4f}", file=sys.stderr)
print(json.dumps(scores))
"""


def _ours_output(run: Run) -> list[float]:
    return [json.loads(line)["score"] for line in run.stdout.decode().splitlines()]


def _reference_output(run: Run) -> list[float]:
    scores: list[float] = json.loads(run.stdout.decode())
    return scores


def _reference_scoring_s(side: Side) -> float:
    times = []
    for run in side.runs:
        for line in run.stderr.decode().splitlines():
            if line.startswith("scoring_s "):
                times.append(float(line.split()[1]))
    return statistics.median(times)


def _ours_in_process(src: Path, refs: list[Path], hyps: list[Path], unit: str, runs: int) -> float:
    """Median in-process scoring time of ours (the same steps as the reference's timer)."""
    sys.path.insert(0, str(REPO / "gecscore" / "src"))
    from gecscore.english.textfiles import read_text_lines
    from gecscore.green import GreenCorpus

    sources = read_text_lines(src).lines
    references = [read_text_lines(r).lines for r in refs]
    outputs = [read_text_lines(h).lines for h in hyps]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        corpus = GreenCorpus(sources, references, unit=unit)
        for out in outputs:
            corpus.score(out)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--gec-metrics",
        type=Path,
        default=reference_path("GEC_GREEN_GECM", "gec-metrics"),
        help="gec-metrics 0.1.1's virtualenv (default $GEC_GREEN_GECM, else $GEC_REFS_DIR/gec-metrics)",
    )
    parser.add_argument("--unit", choices=("word", "char"), default="word")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    seeda = args.shared / "data" / "seeda"
    src = seeda / "outputs" / "subset" / "INPUT.txt"
    refs = [seeda / "refs" / f"REF{k}.txt" for k in (0, 1)]
    hyps = [seeda / "outputs" / "subset" / f"{system}.txt" for system in SYSTEMS]
    ours_argv = [sys.executable, "-m", "gecscore", "green", "--src", str(src), "--json"]
    ours_argv += ["--unit", args.unit, "--ref", *map(str, refs)]
    for hyp in hyps:
        ours_argv += ["--hyp", str(hyp)]
    env = {"PYTHONPATH": str(REPO / "gecscore" / "src")}
    ours = Side("ours", ours_argv, _ours_output, cwd=str(REPO), env=env)
    python = args.gec_metrics / "bin" / "python"
    reference = None
    with tempfile.TemporaryDirectory() as folder:
        if python.exists():
            script = Path(folder) / "gec_metrics_green.py"
            script.write_text(REFERENCE_SCRIPT, encoding="utf-8")
            reference_argv = [str(python), str(script), str(src), *map(str, refs), args.unit]
            reference = Side(
                "gec-metrics", reference_argv + [str(h) for h in hyps], _reference_output
            )
        else:
            print(
                f"gec-metrics 0.1.1 is not installed in {args.gec_metrics} "
                "(pip install torch==2.13.0, then gec-metrics==0.1.1): timing ours only"
            )
        before = load_average()
        interleave([side for side in (ours, reference) if side is not None], args.runs)
        after = load_average()
    title = f"GREEN ({args.unit} units), SEEDA subset, 15 systems x 391 sentences, 2 references"
    result = report(title, ours, reference)
    result["ours_in_process_s"] = round(_ours_in_process(src, refs, hyps, args.unit, args.runs), 4)
    print(f"  in-process scoring: ours {result['ours_in_process_s']} s", end="")
    if reference is not None:
        result["reference_in_process_s"] = round(_reference_scoring_s(reference), 4)
        ratio = result["reference_in_process_s"] / result["ours_in_process_s"]
        result["in_process_ratio"] = round(ratio, 2)
        print(f", gec-metrics {result['reference_in_process_s']} s ({ratio:.2f}x)", end="")
    print()
    result["load_before"], result["load_after"] = before, after
    print(f"  load average: before {before}, after {after}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
