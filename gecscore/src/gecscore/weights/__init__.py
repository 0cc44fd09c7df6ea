"""Edit weights for weighted GEC metrics (PT-M2, PT-ERRANT, CLEME2.0-sim).

Importing this package is cheap: torch, transformers and bert-score load only when a
BERTScore provider is created (the `self` path and the unweighted metrics never need them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gecscore.weights.base import (
    EditWeightProvider,
    ProgressCallback,
    SelfWeights,
    WeightRequest,
)
from gecscore.weights.model import (
    ModelNotFoundError,
    ResolvedModel,
    default_layer,
    resolve_model,
)

if TYPE_CHECKING:
    from gecscore.weights.bertscore import BertScoreConfig, BertScoreWeights, read_baseline

_LAZY = {"BertScoreConfig", "BertScoreWeights", "read_baseline"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from gecscore.weights import bertscore

        return getattr(bertscore, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_provider(
    model: str,
    *,
    num_layers: int | None = None,
    batch_size: int = 64,
    device: str | None = None,
    fp16: bool = False,
    idf: bool = False,
    rescale_with_baseline: bool = False,
    baseline: str | None = None,
    cache_dir: str | None = None,
) -> EditWeightProvider:
    """`self` gives weight 1 to every edit; anything else is a model for BERTScore."""
    if model == "self":
        return SelfWeights()
    from gecscore.weights.bertscore import BertScoreConfig, BertScoreWeights

    return BertScoreWeights(
        BertScoreConfig(
            model=model,
            num_layers=num_layers,
            batch_size=batch_size,
            device=device,
            fp16=fp16,
            idf=idf,
            rescale_with_baseline=rescale_with_baseline,
            baseline=baseline,
            cache_dir=cache_dir,
        )
    )


__all__ = [
    "BertScoreConfig",
    "BertScoreWeights",
    "EditWeightProvider",
    "ModelNotFoundError",
    "ProgressCallback",
    "ResolvedModel",
    "SelfWeights",
    "WeightRequest",
    "default_layer",
    "make_provider",
    "read_baseline",
    "resolve_model",
]
