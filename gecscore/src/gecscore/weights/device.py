"""What each kind of torch device does by default when computing BERTScore (which device:
``gecscore.devices.resolve_device``, the one rule of every model-based metric)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEVICE_DEFAULTS",
    "DeviceDefaults",
]


@dataclass(frozen=True)
class DeviceDefaults:
    """What differs between a CPU and a GPU run (see bertscore.py's docstring)."""

    length_bucket: int  # token counts rounded up to a multiple of this (1: exact lengths)
    batch_tokens: int  # tokens per forward pass (0: `batch_size` sentences)
    match_budget: int  # floats in one greedy-matching chunk
    background_writes: bool  # disk-cache writes on a writer thread


DEVICE_DEFAULTS = {
    # Exact lengths: no padding to compute and no attention mask (SDPA's unmasked kernel);
    # ~64 rows of `tokens x sentences` are as efficient as larger batches on a CPU; matching
    # chunks of 4M floats (16 MB) stay cache-friendly. Writes inline: 2 cores are busy.
    "cpu": DeviceDefaults(1, 0, 4_000_000, False),
    # Buckets of 32 tokens: at most 16 lengths up to 512. Each distinct batch shape costs a
    # one-time set-up in a process (kernel choice): on an H200, MuCGEC dev in fp16 took 5.25 s
    # the first time and 1.13 s the second with buckets of 8 (42 shapes), 1.77 s the first
    # time with buckets of 32 (14 shapes; fp32 3.21 -> 2.56 s), for 18% more padded tokens
    # (benchmarks/weighted_gpu_profile.py, docs/benchmarks.md).
    "cuda": DeviceDefaults(32, 16_384, 128_000_000, True),
}
