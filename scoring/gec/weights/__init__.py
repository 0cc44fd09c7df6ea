"""Edit weights for weighted GEC metrics (PT-M2, PT-ERRANT, CLEME2.0-sim)."""

from scoring.gec.weights.base import (
    EditWeightProvider,
    ProgressCallback,
    SelfWeights,
    WeightRequest,
)
from scoring.gec.weights.bertscore import BertScoreConfig, BertScoreWeights, read_baseline
from scoring.gec.weights.model import (
    ModelNotFoundError,
    ResolvedModel,
    default_layer,
    resolve_model,
)


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
