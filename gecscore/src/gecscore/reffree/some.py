"""SOME (Yoshimura et al. 2020): three BERT regressors, as gec-metrics 0.1.1 ``SOME`` runs them.

Per sentence: the grammaticality regressor and the fluency regressor read the hypothesis,
the meaning-preservation regressor reads the pair (source, hypothesis); each raw output x is
min-max normalised from the 1-4 scale, ``(x - 1) / 3``; the score is
``weight_g * g + weight_f * f + weight_m * m`` (0.55, 0.43, 0.02, the paper's weights). The
corpus score is the mean of the sentence scores. All three read their input through the
fluency model's tokenizer (as gec-metrics does), truncated to ``max_length`` tokens.

gec-metrics pads every batch to ``max_length``; we pad to the longest input of the batch and
batch sentences of similar length together. With the attention mask the outputs are the same
(up to float rounding, checked to 1e-6 in the tests) and short sentences cost less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscore.devices import resolve_device
from gecscore.metric import MetricConfig, References, Result
from gecscore.options import check_count, check_device, check_non_negative
from gecscore.reffree.base import ReferenceFreeMetric, cache_key, length_batches
from gecscore.reffree.models import load_model, load_tokenizer, model_setting
from gecscore.signature import Signature

__all__ = [
    "METRIC_VERSION",
    "SOME",
    "SOMEConfig",
    "min_max_normalize",
]


METRIC_VERSION = "gec-metrics-0.1.1"


@dataclass(frozen=True)
class SOMEConfig(MetricConfig):
    """SOME's options (defaults: gec-metrics 0.1.1 / the paper). Models: local folders of the
    three regressors (kokeman/SOME's ``gfm-models``), else ``$GEC_SOME_MODEL_G/F/M``."""

    model_g: str | None = None  # grammaticality
    model_f: str | None = None  # fluency (its tokenizer serves all three)
    model_m: str | None = None  # meaning preservation
    weight_g: float = 0.55
    weight_f: float = 0.43
    weight_m: float = 0.02
    batch_size: int = 32
    max_length: int = 128
    device: str = "auto"
    cache_dir: str | None = None  # on-disk cache of sentence scores (gecscore.reffree.cache)

    def __post_init__(self) -> None:
        for name in ("weight_g", "weight_f", "weight_m"):
            check_non_negative(getattr(self, name), name)
        check_count(self.batch_size, "batch_size")
        check_count(self.max_length, "max_length", 2)
        check_device(self.device)


def min_max_normalize(x: float, x_min: float = 1.0, x_max: float = 4.0) -> float:
    return (x - x_min) / (x_max - x_min)


class SOME(ReferenceFreeMetric):
    """SOME: ``score_corpus(sources, hypotheses)``; sentence scores and their mean."""

    name = "some"
    Config = SOMEConfig

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        config = self.config
        assert isinstance(config, SOMEConfig)
        self.models = {
            aspect: model_setting(
                getattr(config, f"model_{aspect}"),
                setting=f"SOME model_{aspect} (--model-{aspect})",
                env=f"GEC_SOME_MODEL_{aspect.upper()}",
                what=f"SOME's {label} regressor",
            )
            for aspect, label in (("g", "grammaticality"), ("f", "fluency"), ("m", "meaning"))
        }
        self.device = resolve_device(config.device)
        self._loaded: dict[str, Any] = {}
        self._tokenizer: Any = None

    @property
    def signature(self) -> str:
        config = self.config
        assert isinstance(config, SOMEConfig)
        return Signature(
            "some",
            METRIC_VERSION,
            (
                ("g", self.models["g"].id),
                ("f", self.models["f"].id),
                ("m", self.models["m"].id),
                ("weights", f"{config.weight_g:g},{config.weight_f:g},{config.weight_m:g}"),
                ("max_length", str(config.max_length)),
            ),
        ).text

    def _load(self) -> tuple[Any, dict[str, Any]]:
        if not self._loaded:
            self._tokenizer = load_tokenizer(self.models["f"])
            for aspect, model in self.models.items():
                self._loaded[aspect] = load_model(model, "sequence-classification", self.device)
        return self._tokenizer, self._loaded

    def sentence_scores(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """Each pair's score, from the cache where it is there."""
        self.hash_models(self.models.values(), self._load)
        prefix = self.signature
        keys = [cache_key(prefix, s, h) for s, h in zip(sources, hypotheses, strict=True)]

        def compute(indices: list[int]) -> list[float]:
            return self._compute([sources[i] for i in indices], [hypotheses[i] for i in indices])

        return self.cached(keys, compute)

    def _compute(self, sources: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        config = self.config
        assert isinstance(config, SOMEConfig)
        import torch

        tokenizer, models = self._load()
        scores = [0.0] * len(sources)
        arguments = {"max_length": config.max_length, "truncation": True, "padding": True}
        for batch in length_batches(hypotheses, config.batch_size, sources):
            hyps = [hypotheses[i] for i in batch]
            srcs = [sources[i] for i in batch]
            single = tokenizer(hyps, return_tensors="pt", **arguments).to(self.device)
            pair = tokenizer(srcs, hyps, return_tensors="pt", **arguments).to(self.device)
            with torch.inference_mode():
                raw_g = models["g"](**single).logits.view(-1).tolist()
                raw_f = models["f"](**single).logits.view(-1).tolist()
                raw_m = models["m"](**pair).logits.view(-1).tolist()
            for i, g, f, m in zip(batch, raw_g, raw_f, raw_m, strict=True):
                scores[i] = (
                    config.weight_f * min_max_normalize(f)
                    + config.weight_g * min_max_normalize(g)
                    + config.weight_m * min_max_normalize(m)
                )
        return scores

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        self.check(sources, hypotheses, references)
        scores = self.sentence_scores(sources, hypotheses)
        return self.mean_result(scores)
