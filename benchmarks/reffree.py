"""Benchmark: SOME, IMPARA and Scribendi, ours beside gec-metrics 0.1.1's, in the same run.

    .venv/bin/python benchmarks/reffree.py [--shared ../shared] [--lines 26] [--systems 3]
        [--gec-metrics /work/refs/gec-metrics] [--size tiny] [--json]

Both sides score the same (source, hypothesis) pairs (the first ``--lines`` lines of SEEDA's
``outputs/subset``, INPUT against the first ``--systems`` of REF-F, GECToR-BERT, TemplateGEC,
PIE, BART, GPT-3.5) with the same tiny random models, built here the way the tests build them
(``gecscore.weights.random_model``: SOME's three regressors, IMPARA's quality estimator and
similarity encoder, Scribendi's GPT-2), on the CPU. Each metric on each side is one fresh
process (ours: this virtualenv's python; reference: the gec-metrics virtualenv's, with
``torch.nn.Module.cuda`` made a no-op, as the equality tests do, since 0.1.1's SOME moves its
models to CUDA whatever ``no_cuda`` says); the two sides of a metric run one after the other.
Reported per side: the whole process's wall time, and inside it the time to build the metric
and score the pairs (sentence scores; gec-metrics' ``score_sentence``; torch and
transformers' Auto classes imported before the clock on both sides), then, for ours, a
second scoring of the same pairs in the same process (served from its on-disk cache,
``cache_dir``, empty before the first). ``max |diff|`` compares the sentence
scores. Without the reference virtualenv our times are printed alone, with a message.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SYSTEMS = ("REF-F", "GECToR-BERT", "TemplateGEC", "PIE", "BART", "GPT-3.5")

OURS_SCRIPT = """
import json, sys, time
request = json.load(sys.stdin)
# Imported before the clock, as the reference's ``import gec_metrics.metrics`` does.
import torch
from transformers import (AutoModel, AutoModelForCausalLM,
                          AutoModelForSequenceClassification, AutoTokenizer)
from gecscore import get_metric
import gecscore.reffree.models
M = get_metric(request["metric"])
start = time.perf_counter()
metric = M(M.Config(device="cpu", cache_dir=request["cache_dir"], **request["config"]))
first = metric.score_corpus(request["sources"], request["hypotheses"])
cold = time.perf_counter() - start
start = time.perf_counter()
metric.score_corpus(request["sources"], request["hypotheses"])
again = time.perf_counter() - start
json.dump({"seconds": cold, "again": again,
           "sentences": [s.score for s in first.sentences]}, sys.stdout)
"""

REFERENCE_SCRIPT = """
import json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
request = json.load(sys.stdin)
import torch
if not torch.cuda.is_available():
    torch.nn.Module.cuda = lambda self, *a, **k: self
from gec_metrics.metrics import IMPARA, SOME, Scribendi
start = time.perf_counter()
M = {"some": SOME, "impara": IMPARA, "scribendi": Scribendi}[request["metric"]]
metric = M(M.Config(no_cuda=True, **request["config"]))
sentences = metric.score_sentence(request["sources"], request["hypotheses"])
json.dump({"seconds": time.perf_counter() - start, "sentences": sentences}, sys.stdout)
"""


def read_pairs(shared: Path, lines: int, systems: int) -> tuple[list[str], list[str], list[str]]:
    folder = shared / "data" / "seeda" / "outputs" / "subset"
    if not folder.is_dir():
        raise SystemExit(f"SEEDA not found at {folder} (give --shared)")

    def read(name: str) -> list[str]:
        return (folder / f"{name}.txt").read_text(encoding="utf-8").split("\n")[:lines]

    inputs = read("INPUT")
    texts = list(inputs)
    sources: list[str] = []
    hypotheses: list[str] = []
    for name in SYSTEMS:
        outputs = read(name)
        texts += outputs
        if name in SYSTEMS[:systems]:
            sources += inputs
            hypotheses += outputs
    return sources, hypotheses, texts


def build_models(root: Path, texts: list[str], size: str) -> dict[str, dict[str, str]]:
    """The metrics' configurations (model folders) on tiny random models, as the tests do."""
    sys.path.insert(0, str(REPO / "gecscore" / "src"))
    from gecscore.weights.random_model import build_random_bert, build_random_gpt2

    bert = {
        name: str(build_random_bert(root / name, texts, size=size, seed=seed, head="regression"))
        for seed, name in enumerate(("g", "f", "m", "qe"), start=1)
    }
    bert["se"] = str(build_random_bert(root / "se", texts, size=size, seed=5))
    gpt2 = str(build_random_gpt2(root / "gpt2", texts, seed=3))
    return {
        "some": {f"model_{k}": bert[k] for k in ("g", "f", "m")},
        "impara": {"model_qe": bert["qe"], "model_se": bert["se"]},
        "scribendi": {"model": gpt2},
    }


def run(python: str, script: str, request: dict[str, object], env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    start = time.perf_counter()
    done = subprocess.run(
        [python, "-c", script],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{python} failed on {request['metric']}:\n{done.stderr[-2000:]}")
    answer: dict = json.loads(done.stdout)  # type: ignore[type-arg]
    answer["wall"] = wall
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--lines", type=int, default=26)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--size", default="tiny", help="random model size (random_model.SHAPES)")
    parser.add_argument("--gec-metrics", type=Path, default=Path("/work/refs/gec-metrics"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    sources, hypotheses, texts = read_pairs(args.shared, args.lines, args.systems)
    reference = args.gec_metrics / "bin" / "python"
    if not reference.is_file():
        print(f"gec-metrics 0.1.1 virtualenv absent ({args.gec_metrics}): our times only")
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base_env["HF_HUB_OFFLINE"] = "1"
    ours_env = {**base_env, "PYTHONPATH": f"{REPO / 'gecscore' / 'src'}:{REPO}"}
    reference_env = {**base_env, "PYTHONPATH": ""}
    rows = []
    with tempfile.TemporaryDirectory(prefix="reffree-bench-") as tmp:
        configs = build_models(Path(tmp), texts, args.size)
        for metric, config in configs.items():
            request = {
                "metric": metric,
                "config": config,
                "sources": sources,
                "hypotheses": hypotheses,
            }
            ours_request = {**request, "cache_dir": str(Path(tmp) / f"cache-{metric}")}
            ours = run(sys.executable, OURS_SCRIPT, ours_request, ours_env)
            row = {"metric": metric, "pairs": len(sources), "ours": ours}
            if reference.is_file():
                theirs = run(str(reference), REFERENCE_SCRIPT, request, reference_env)
                row["gec-metrics"] = theirs
                row["max_diff"] = max(
                    abs(a - b) for a, b in zip(ours["sentences"], theirs["sentences"], strict=True)
                )
            rows.append(row)
    load = Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "?"
    if args.json:
        for row in rows:
            for side in ("ours", "gec-metrics"):
                if side in row:
                    row[side].pop("sentences", None)
        print(json.dumps({"load": load, "rows": rows}, indent=1))
        return
    print(f"{len(sources)} pairs, {args.size} random models, CPU; /proc/loadavg: {load}")
    header = "metric      ours build+score  2nd score  process | gec-metrics build+score  process | ratio (theirs/ours)  max |diff|"
    print(header)
    for row in rows:
        ours = row["ours"]
        line = (
            f"{row['metric']:<10}  {ours['seconds']:>15.2f}s {ours['again']:>9.3f}s"
            f" {ours['wall']:>7.2f}s"
        )
        if "gec-metrics" in row:
            theirs = row["gec-metrics"]
            line += (
                f" | {theirs['seconds']:>22.2f}s {theirs['wall']:>7.2f}s"
                f" | {theirs['seconds'] / ours['seconds']:>6.2f}x in, "
                f"{theirs['wall'] / ours['wall']:.2f}x process  {row['max_diff']:.1e}"
            )
        print(line)


if __name__ == "__main__":
    main()
