"""Which torch device computes BERTScore, and what each kind of device does by default."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from gecscore.errors import OptionError

__all__ = [
    "DEVICE_CHOICES",
    "DEVICE_DEFAULTS",
    "DeviceDefaults",
    "resolve_device",
]


DEVICE_CHOICES = ("auto", "cpu", "cuda")


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
    # Buckets of 8 tokens: at most 64 lengths up to 512, so a corpus runs a bounded number
    # of shapes (the first fp16 run paid a set-up per distinct shape); the padding costs
    # ~4 tokens per sentence, which a GPU does not notice.
    "cuda": DeviceDefaults(8, 16_384, 128_000_000, True),
}


def resolve_device(spec: str | None) -> torch.device:
    """`auto` (or nothing): cuda when torch sees a GPU, else cpu; `cuda` without one: error."""
    text = (spec or "auto").strip().lower()
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(text)
    except RuntimeError:
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise OptionError(f"unknown device {spec!r}: use auto, cpu or cuda")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise OptionError(
            f"device {spec!r} requested but no CUDA GPU is available to torch "
            f"{torch.__version__}; use the cpu or auto device"
        )
    return device
