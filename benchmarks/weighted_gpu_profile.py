"""Where a cold GPU run of the BERTScore edit weights spends its time: one-time set-up or work.

    python3 benchmarks/weighted_gpu_profile.py [--size base] [--dataset mucgec]

On a GPU, `benchmarks/weighted.py` times the first ("cold") run of a process: the CUDA context,
cuBLAS handles and the per-shape kernel choice are paid inside it. This script computes the
same corpus's weights several times in ONE process, each time with a new provider and no disk
cache (everything encoded again): fp32 twice, fp16 twice (without the fp16 error measurement,
which `weighted.py --fp16` times separately), then fp16 and fp32 with length buckets of 32
tokens (fewer distinct batch shapes, more padding). A second run much faster than the first
means one-time set-up, not the work, dominates the cold figure. Also printed: the attention
implementation the model runs and the top CUDA kernels of one fp16 run (torch profiler).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "gecscore" / "src"))

import torch  # noqa: E402
from gecscore.m2 import read_m2  # noqa: E402
from gecscore.ptm2 import prepare_sentences, weight_requests  # noqa: E402
from gecscore.weights import BertScoreConfig, BertScoreWeights  # noqa: E402
from weighted import DATASETS, RANDOM_LAYERS, build_random_model  # noqa: E402


def one_run(label: str, config: BertScoreConfig, requests: list, profile: bool = False) -> None:  # type: ignore[type-arg]
    provider = BertScoreWeights(config)
    provider.load()
    torch.cuda.synchronize()
    started = time.perf_counter()
    if profile:
        from torch.profiler import ProfilerActivity
        from torch.profiler import profile as torch_profile

        with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            provider.weights(requests)
            torch.cuda.synchronize()
    else:
        provider.weights(requests)
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    s = provider.stats
    print(
        f"{label:<28} {seconds:6.2f} s  tokenise {s.tokenize_seconds:.2f}  forward "
        f"{s.forward_seconds:.2f}  match {s.match_seconds:.2f}  batches {s.forward_batches} "
        f"shapes {len(s.shapes or ())}  padded tokens {s.tokens_padded}",
        flush=True,
    )
    if profile:
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12))
    provider.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="base")
    parser.add_argument("--dataset", default="mucgec", choices=sorted(DATASETS))
    args = parser.parse_args()
    _, hyp_path, ref_path, granularity = DATASETS[args.dataset]
    sentences = prepare_sentences(read_m2(hyp_path), read_m2(ref_path), granularity=granularity)
    requests, _ = weight_requests(sentences, granularity=granularity)
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, {len(requests)} requests")
    print(f"TF32 matmul allowed: {torch.backends.cuda.matmul.allow_tf32}")
    with tempfile.TemporaryDirectory() as tmp:
        model = build_random_model(args.size, Path(tmp))
        layer = RANDOM_LAYERS[args.size][args.dataset]

        def config(fp16: bool, bucket: int | None = None) -> BertScoreConfig:
            return BertScoreConfig(
                model=str(model), num_layers=layer, device="cuda", fp16=fp16, length_bucket=bucket
            )

        probe = BertScoreWeights(config(False))
        probe.load()
        print(f"attention: {probe.encoder.model.config._attn_implementation}")
        for label, cfg in (
            ("fp32 first", config(False)),
            ("fp32 second", config(False)),
            ("fp16 first", config(True)),
            ("fp16 second", config(True)),
            ("fp16 bucket 32 first", config(True, 32)),
            ("fp16 bucket 32 second", config(True, 32)),
            ("fp32 bucket 32 first", config(False, 32)),
        ):
            cfg_run = cfg
            if cfg.fp16:
                provider_error = (0.0, 0)
                one = BertScoreWeights(cfg_run)
                one.fp16_error = provider_error  # skip the error sample: timed in weighted.py
                one.load()
                torch.cuda.synchronize()
                started = time.perf_counter()
                one.weights(requests)
                torch.cuda.synchronize()
                s = one.stats
                print(
                    f"{label:<28} {time.perf_counter() - started:6.2f} s  tokenise "
                    f"{s.tokenize_seconds:.2f}  forward {s.forward_seconds:.2f}  match "
                    f"{s.match_seconds:.2f}  batches {s.forward_batches} shapes "
                    f"{len(s.shapes or ())}  padded tokens {s.tokens_padded}",
                    flush=True,
                )
                one.close()
            else:
                one_run(label, cfg_run, requests)
        one_run("fp32 profiled", config(False), requests, profile=True)


if __name__ == "__main__":
    main()
