"""Benchmark: SOME, IMPARA and Scribendi, ours beside gec-metrics 0.1.1's, interleaved runs.

    .venv/bin/python benchmarks/reffree.py [--shared ../shared] [--lines 16] [--systems 2]
        [--gec-metrics DIR] [--size base] [--runs 3] [--metrics some,...]
        [--device cpu|cuda|cpu,cuda] [--json]

Both sides score the same (source, hypothesis) pairs (the first ``--lines`` lines of SEEDA's
``outputs/subset``, INPUT against the first ``--systems`` of REF-F, GECToR-BERT, TemplateGEC,
PIE, BART, GPT-3.5) with the same random models, built here the way the tests build them
(``gecscore.weights.random_model``: SOME's three regressors, IMPARA's quality estimator and
similarity encoder at ``--size``, default ``base`` = bert-base's shape; Scribendi's GPT-2 at
GPT-2 small's shape, 12 layers x 768, for ``base``, else the tests' 2 x 32), on the CPU
(``--device cuda`` runs ours on the GPU, ``cpu,cuda`` both in turn: the reference side, when
its virtualenv is there, always runs on the CPU).

Per metric, ``--runs`` rounds, each: ours cold (a fresh process, an empty ``cache_dir``; it
times building the metric + the first scoring, then a second scoring of the same pairs in the
same process, served from the cache), then gec-metrics' (a fresh process in its virtualenv,
``torch.nn.Module.cuda`` made a no-op as in the equality tests, since 0.1.1's SOME moves its
models to CUDA whatever ``no_cuda`` says; it times building + ``score_sentence``), then ours
again from the now warm cache in a fresh process. Both sides import torch and transformers'
Auto classes before their clock. Each process's 1-minute load average is read from
``/proc/loadavg`` before and after it. Reported: medians over the rounds, the ratios
theirs/ours (in process and whole process) and cold/cache, and the max |diff| of sentence
scores. Interleaving puts both sides under the same load on a shared machine. Without the
reference virtualenv our times are printed alone, with a message.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.refs import reference_path  # noqa: E402

GPT2_SMALL = {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024, "vocab_size": 2000}
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
metric = M(M.Config(device=request["device"], cache_dir=request["cache_dir"], **request["config"]))
first = metric.score_corpus(request["sources"], request["hypotheses"])
cold = time.perf_counter() - start
start = time.perf_counter()
metric.score_corpus(request["sources"], request["hypotheses"])
again = time.perf_counter() - start
json.dump({"seconds": cold, "again": again,
           "sentences": [s.score for s in first.sentences]}, sys.stdout)
metric.cache.close()
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
    """The metrics' configurations (model folders) on random models, as the tests build them."""
    sys.path.insert(0, str(REPO / "gecscore" / "src"))
    from gecscore.weights.random_model import build_random_bert, build_random_gpt2

    bert = {
        name: str(build_random_bert(root / name, texts, size=size, seed=seed, head="regression"))
        for seed, name in enumerate(("g", "f", "m", "qe"), start=1)
    }
    bert["se"] = str(build_random_bert(root / "se", texts, size=size, seed=5))
    shape = GPT2_SMALL if size == "base" else {}
    gpt2 = str(build_random_gpt2(root / "gpt2", texts, seed=3, **shape))
    return {
        "some": {f"model_{k}": bert[k] for k in ("g", "f", "m")},
        "impara": {"model_qe": bert["qe"], "model_se": bert["se"]},
        "scribendi": {"model": gpt2},
    }


def load_average() -> float:
    path = Path("/proc/loadavg")
    return float(path.read_text().split()[0]) if path.exists() else float("nan")


def run(python: str, script: str, request: dict[str, object], env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    load_before = load_average()
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
    answer["load"] = [load_before, load_average()]
    return answer


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def measure_metric(
    metric: str,
    device: str,
    config: dict[str, str],
    pairs: tuple[list[str], list[str]],
    args: argparse.Namespace,
    envs: tuple[dict[str, str], dict[str, str]],
    tmp: Path,
) -> dict:  # type: ignore[type-arg]
    """``args.runs`` rounds of ours cold, theirs, ours warm (fresh processes), summarised."""
    reference = args.gec_metrics / "bin" / "python"
    request = {
        "metric": metric,
        "config": config,
        "sources": pairs[0],
        "hypotheses": pairs[1],
        "device": device,
    }
    rounds = []
    for index in range(args.runs):
        cache = str(tmp / f"cache-{metric}-{device}-{index}")  # one per device: a cold run is cold
        one: dict = {
            "ours": run(sys.executable, OURS_SCRIPT, {**request, "cache_dir": cache}, envs[0])
        }  # type: ignore[type-arg]
        if reference.is_file() and device == "cpu":
            one["theirs"] = run(str(reference), REFERENCE_SCRIPT, request, envs[1])
        if args.warm_process:
            one["warm"] = run(sys.executable, OURS_SCRIPT, {**request, "cache_dir": cache}, envs[0])
        rounds.append(one)
        print(
            f"  {metric} ({device}) round {index + 1}: "
            + ", ".join(
                f"{side} {r['seconds']:.2f}s/{r['wall']:.2f}s load {r['load'][0]:.1f}-{r['load'][1]:.1f}"
                for side, r in one.items()
            )
            + (
                f", max|diff| {max(abs(a - b) for a, b in zip(one['ours']['sentences'], one['theirs']['sentences'], strict=True)):.1e}"
                if "theirs" in one
                else ""
            ),
            file=sys.stderr,
            flush=True,
        )
    row: dict = {"metric": metric, "device": device, "pairs": len(pairs[0]), "rounds": rounds}  # type: ignore[type-arg]
    for side in ("ours", "theirs", "warm"):
        taken = [one[side] for one in rounds if side in one]
        if taken:
            row[side] = {
                "seconds": median([r["seconds"] for r in taken]),
                "wall": median([r["wall"] for r in taken]),
                "again": median([r["again"] for r in taken]) if "again" in taken[0] else None,
            }
    loads = [x for one in rounds for r in one.values() for x in r["load"]]
    row["load"] = [min(loads), median(loads), max(loads)]
    if "theirs" in row:
        row["max_diff"] = max(
            abs(a - b)
            for one in rounds
            for a, b in zip(one["ours"]["sentences"], one["theirs"]["sentences"], strict=True)
        )
    return row


def print_table(rows: list[dict], args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    print(
        f"{rows[0]['pairs']} pairs, {args.size} random models, medians of {args.runs} interleaved rounds"
    )
    print(
        "metric/device     ours in/proc      theirs in/proc    ratio in/proc  "
        "2nd scoring (ratio)   warm process in/proc (ratio)  load min/med/max  max|diff|"
    )
    for row in rows:
        ours = row["ours"]
        line = f"{row['metric'] + '/' + row['device']:<17} {ours['seconds']:6.2f}s/{ours['wall']:6.2f}s "
        if "theirs" in row:
            theirs = row["theirs"]
            line += (
                f"{theirs['seconds']:7.2f}s/{theirs['wall']:6.2f}s "
                f"{theirs['seconds'] / ours['seconds']:6.2f}x/{theirs['wall'] / ours['wall']:.2f}x "
            )
        line += (
            f"{ours['again']:8.4f}s ({ours['seconds'] / ours['again']:7.0f}x) "
            + (
                f"{row['warm']['seconds']:6.3f}s/{row['warm']['wall']:6.2f}s "
                f"({ours['wall'] / row['warm']['wall']:.1f}x) "
                if "warm" in row
                else "(not run)                    "
            )
            + f"{row['load'][0]:5.1f}/{row['load'][1]:.1f}/{row['load'][2]:.1f}"
        )
        if "max_diff" in row:
            line += f"  {row['max_diff']:.1e}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--lines", type=int, default=16)
    parser.add_argument("--systems", type=int, default=2)
    parser.add_argument("--size", default="base", help="random model size (random_model.SHAPES)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds per metric")
    parser.add_argument("--metrics", default="some,impara,scribendi")
    parser.add_argument(
        "--gec-metrics",
        type=Path,
        default=reference_path("GEC_REF_GECMETRICS", "gec-metrics"),
        help="gec-metrics 0.1.1's virtualenv (default $GEC_REF_GECMETRICS, else $GEC_REFS_DIR/gec-metrics)",
    )
    parser.add_argument(
        "--warm-process",
        action="store_true",
        help="also score from the warm cache in a fresh process (ours), once per round",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where ours runs: cpu, cuda, or a comma list (each metric on each in turn)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    sources, hypotheses, texts = read_pairs(args.shared, args.lines, args.systems)
    if not (args.gec_metrics / "bin" / "python").is_file():
        print(f"gec-metrics 0.1.1 virtualenv absent ({args.gec_metrics}): our times only")
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base_env["HF_HUB_OFFLINE"] = "1"
    # Kept after ours: a device machine's own site folder (carried wheels) is on PYTHONPATH.
    inherited = os.environ.get("PYTHONPATH", "")
    ours_path = f"{REPO / 'gecscore' / 'src'}:{REPO}" + (f":{inherited}" if inherited else "")
    ours_env = {**base_env, "PYTHONPATH": ours_path}
    envs = (ours_env, {**base_env, "PYTHONPATH": ""})
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    with tempfile.TemporaryDirectory(prefix="reffree-bench-") as tmp:
        configs = build_models(Path(tmp), texts, args.size)
        rows = [
            measure_metric(
                name, device, configs[name], (sources, hypotheses), args, envs, Path(tmp)
            )
            for name in args.metrics.split(",")
            for device in args.device.split(",")
        ]
    finished = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    if args.json:
        for row in rows:
            for one in row["rounds"]:
                for side in one.values():
                    side.pop("sentences", None)
        print(json.dumps({"started": started, "finished": finished, "rows": rows}, indent=1))
        return
    print(f"{started} - {finished}")
    print_table(rows, args)


if __name__ == "__main__":
    main()
