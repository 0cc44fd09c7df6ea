"""Exact fp32 linear layers through oneDNN on CPU, for the BERTScore encoder.

On CPU the encoder's time is almost all in its linear layers (about 80% of a cold
corpus, measured), and torch sends fp32 `linear` to MKL's sgemm. On AMD CPUs MKL runs its
AVX2 code even where AVX-512 exists: about 90 GFLOP/s per core on this machine's EPYC,
where oneDNN's AVX-512 kernel (shipped inside torch) reaches about 210 GFLOP/s for the
same fp32 products. Both are plain IEEE fp32 (no bf16/tf32 down-conversion: torch's
`mkldnn.matmul.fp32_precision` is left alone); they differ only in the order of the
additions, i.e. in float noise (~1e-7 relative), far below the 1e-6 the weights are
tested to against bert-score.

`use_onednn_linears` swaps every `nn.Linear` of a model for `OneDnnLinear` holding the
weight pre-packed in oneDNN's blocked layout. It checks one product against torch's
before it swaps anything and leaves the model untouched where oneDNN is missing or
disagrees, so it can never make results wrong, only not faster.
"""

from __future__ import annotations

import torch

__all__ = [
    "OneDnnLinear",
    "onednn_available",
    "use_onednn_linears",
]


class OneDnnLinear(torch.nn.Module):
    """`nn.Linear` forward (y = x W^T + b, fp32) through oneDNN with a pre-packed weight."""

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        weight = linear.weight.detach().float().contiguous()
        # Kept for anything that reads `.weight` (and for state_dict); forward uses `packed`.
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        bias = linear.bias.detach().float().contiguous() if linear.bias is not None else None
        self.bias = torch.nn.Parameter(bias, requires_grad=False) if bias is not None else None
        # Packing once (instead of per call) is what makes small batches fast too.
        self.packed = torch.ops.mkldnn._reorder_linear_weight(weight, None)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(  # type: ignore[no-any-return]
            hidden.contiguous(), self.packed, self.bias, "none", [], ""
        )

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, onednn"


def onednn_available() -> bool:
    return bool(
        torch.backends.mkldnn.is_available()  # type: ignore[no-untyped-call]
        and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")
        and hasattr(torch.ops.mkldnn, "_linear_pointwise")
    )


def _agrees(linear: torch.nn.Linear) -> bool:
    """One oneDNN product equals torch's to float noise (guards against a broken build)."""
    generator = torch.Generator().manual_seed(0)
    sample = torch.randn(3, 5, linear.in_features, generator=generator)
    with torch.inference_mode():
        expected = torch.nn.functional.linear(sample, linear.weight, linear.bias)
        got = OneDnnLinear(linear)(sample)
    scale = float(expected.abs().max()) + 1e-30
    return got.shape == expected.shape and float((got - expected).abs().max()) <= 1e-5 * scale


def use_onednn_linears(model: torch.nn.Module) -> int:
    """Swap the fp32 CPU `nn.Linear`s of `model` for oneDNN ones; returns how many (0: none)."""
    if not onednn_available():
        return 0
    targets = [
        (parent, name, child)
        for parent in model.modules()
        for name, child in parent.named_children()
        if type(child) is torch.nn.Linear
        and child.weight.dtype == torch.float32
        and child.weight.device.type == "cpu"
    ]
    if not targets:
        return 0
    try:
        if not _agrees(targets[0][2]):
            return 0
        for parent, name, child in targets:
            setattr(parent, name, OneDnnLinear(child))
    except RuntimeError:  # an op missing from this torch build: keep torch's linear
        return 0
    return len(targets)
