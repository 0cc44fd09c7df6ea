"""IMPARA (Maeda et al. 2022), as gec-metrics 0.1.1 ``IMPARA`` computes it.

Per sentence: the quality estimator (a BERT regressor with one output) reads the hypothesis;
its score is ``sigmoid(logit)``. The similarity estimator (a plain BERT encoder,
``bert-base-cased`` in the paper) encodes source and hypothesis, mean-pools the last hidden
states over the real tokens and takes their cosine; when the cosine is below ``threshold``
(0.9) the sentence scores 0 (the correction changed the meaning too much). The corpus score
is the mean. Each model reads its input through its own tokenizer, truncated to
``max_length`` tokens.

As for SOME, batches are padded to their longest input instead of ``max_length`` (same
numbers to float rounding, checked in the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscore.devices import resolve_device
from gecscore.metric import MetricConfig, References, Result
from gecscore.options import check_count, check_device, check_probability
from gecscore.reffree.base import ReferenceFreeMetric, cache_key, length_batches
from gecscore.reffree.models import load_model, load_tokenizer, model_setting
from gecscore.signature import Signature

__all__ = [
    "IMPARA",
    "IMPARAConfig",
    "METRIC_VERSION",
    "mean_pool",
]


METRIC_VERSION = "gec-metrics-0.1.1"


@dataclass(frozen=True)
class IMPARAConfig(MetricConfig):
    """IMPARA's options (defaults: gec-metrics 0.1.1). Models: local folders, else
    ``$GEC_IMPARA_MODEL_QE`` / ``$GEC_IMPARA_MODEL_SE``."""

    model_qe: str | None = None  # quality estimator (gotutiyan/IMPARA-QE)
    model_se: str | None = None  # similarity estimator (bert-base-cased)
    threshold: float = 0.9
    batch_size: int = 32
    max_length: int = 128
    device: str = "auto"
    cache_dir: str | None = None  # on-disk cache of quality and similarity per pair

    def __post_init__(self) -> None:
        check_probability(self.threshold, "threshold")
        check_count(self.batch_size, "batch_size")
        check_count(self.max_length, "max_length", 2)
        check_device(self.device)


def mean_pool(states: Any, mask: Any) -> Any:
    """Mean of the hidden states over the positions whose mask is 1."""
    weights = mask.unsqueeze(-1).to(states.dtype)
    return (states * weights).sum(dim=1) / mask.sum(dim=-1, keepdim=True).to(states.dtype)


class IMPARA(ReferenceFreeMetric):
    """IMPARA: ``score_corpus(sources, hypotheses)``; ``details['similarity']`` has each
    sentence's source/hypothesis cosine."""

    name = "impara"
    Config = IMPARAConfig

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        config = self.config
        assert isinstance(config, IMPARAConfig)
        self.model_qe = model_setting(
            config.model_qe,
            setting="IMPARA model_qe (--model-qe)",
            env="GEC_IMPARA_MODEL_QE",
            what="IMPARA's quality estimator",
        )
        self.model_se = model_setting(
            config.model_se,
            setting="IMPARA model_se (--model-se)",
            env="GEC_IMPARA_MODEL_SE",
            what="IMPARA's similarity encoder",
        )
        self.device = resolve_device(config.device)
        self._loaded: tuple[Any, Any, Any, Any] | None = None

    @property
    def signature(self) -> str:
        config = self.config
        assert isinstance(config, IMPARAConfig)
        return Signature(
            "impara",
            METRIC_VERSION,
            (
                ("qe", self.model_qe.id),
                ("se", self.model_se.id),
                ("threshold", f"{config.threshold:g}"),
                ("max_length", str(config.max_length)),
            ),
        ).text

    def _load(self) -> tuple[Any, Any, Any, Any]:
        if self._loaded is None:
            self._loaded = (
                load_tokenizer(self.model_qe),
                load_model(self.model_qe, "sequence-classification", self.device),
                load_tokenizer(self.model_se),
                load_model(self.model_se, "base", self.device),
            )
        return self._loaded

    def scores_and_similarities(
        self, sources: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[list[float], list[float]]:
        """Each pair's score and source/hypothesis cosine; the quality and the cosine come
        from the cache where they are there (the threshold is applied here)."""
        config = self.config
        assert isinstance(config, IMPARAConfig)
        self.hash_models((self.model_qe, self.model_se), self._load)
        prefix = f"impara|{self.model_qe.id}|{self.model_se.id}|{config.max_length}"
        keys = [cache_key(prefix, s, h) for s, h in zip(sources, hypotheses, strict=True)]

        def compute(indices: list[int]) -> list[list[float]]:
            quality, similarity = self._compute(
                [sources[i] for i in indices], [hypotheses[i] for i in indices]
            )
            return [[q, s] for q, s in zip(quality, similarity, strict=True)]

        values = self.cached(keys, compute)
        scores = [0.0 if s < config.threshold else q for q, s in values]
        return scores, [s for _, s in values]

    def _compute(
        self, sources: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[list[float], list[float]]:
        """Quality (sigmoid of the estimator) and cosine per pair."""
        config = self.config
        assert isinstance(config, IMPARAConfig)
        import torch

        tokenizer_qe, model_qe, tokenizer_se, model_se = self._load()
        qualities = [0.0] * len(sources)
        similarities = [0.0] * len(sources)
        arguments = {
            "max_length": config.max_length,
            "truncation": True,
            "padding": True,
            "return_tensors": "pt",
        }
        for batch in length_batches(hypotheses, config.batch_size, sources):
            hyps = [hypotheses[i] for i in batch]
            srcs = [sources[i] for i in batch]
            qe = tokenizer_qe(hyps, **arguments).to(self.device)
            src = tokenizer_se(srcs, **arguments).to(self.device)
            hyp = tokenizer_se(hyps, **arguments).to(self.device)
            with torch.inference_mode():
                quality = torch.sigmoid(
                    model_qe(qe["input_ids"], qe["attention_mask"]).logits.view(-1)
                )
                src_vec = mean_pool(
                    model_se(src["input_ids"], src["attention_mask"]).last_hidden_state,
                    src["attention_mask"],
                )
                hyp_vec = mean_pool(
                    model_se(hyp["input_ids"], hyp["attention_mask"]).last_hidden_state,
                    hyp["attention_mask"],
                )
                similarity = torch.nn.functional.cosine_similarity(src_vec, hyp_vec)
            for i, q, s in zip(batch, quality.tolist(), similarity.tolist(), strict=True):
                similarities[i] = s
                qualities[i] = q
        return qualities, similarities

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        self.check(sources, hypotheses, references)
        scores, similarities = self.scores_and_similarities(sources, hypotheses)
        return self.mean_result(scores, similarity=similarities)
