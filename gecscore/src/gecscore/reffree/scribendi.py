"""The Scribendi score (Islam & Magnani 2021), as gec-metrics 0.1.1 ``Scribendi`` computes it.

Per sentence: 0 when the hypothesis equals the source; otherwise -1 unless the language
model's perplexity of the hypothesis is lower than that of the source AND
``max(token sort ratio, Levenshtein distance ratio) >= threshold`` (0.8), then 1. The corpus
score is the SUM of the sentence scores (as in the paper and gec-metrics), not the mean.

* Perplexity: ``exp`` of the mean token cross-entropy of ``bos_token + sentence`` under the
  causal LM (GPT-2 in the paper), the first token not predicted; batches are right-padded
  with the EOS token and the padding is masked out.
* Token sort ratio: fuzzywuzzy 0.18's ``token_sort_ratio / 100`` with python-Levenshtein
  (what gec-metrics installs): each sentence has the characters U+0080-U+00FF removed, every
  non-word character (``\\W``) replaced by a space, is lower-cased, split on whitespace and
  its tokens sorted and joined by single spaces; the ratio of the two results is
  ``round(100 * 2 * LCS / (len1 + len2))`` (100 when they are equal, 0 when one is empty).
* Levenshtein distance ratio: ``1 - d / (len(src) + len(hyp))`` with d the character edit
  distance where a substitution costs 2, i.e. ``2 * LCS / (len(src) + len(hyp))``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscore.devices import resolve_device
from gecscore.errors import Unavailable
from gecscore.metric import MetricConfig, References, Result, SentenceScore
from gecscore.options import check_count, check_device, check_probability
from gecscore.reffree.base import ReferenceFreeMetric, cache_key, length_batches
from gecscore.reffree.models import load_model, load_tokenizer, model_setting
from gecscore.signature import Signature

__all__ = [
    "METRIC_VERSION",
    "Scribendi",
    "ScribendiConfig",
    "lcs_length",
    "lcs_ratio",
    "levenshtein_distance_ratio",
    "token_sort_ratio",
]


METRIC_VERSION = "gec-metrics-0.1.1"

_LATIN1_HIGH = {code: None for code in range(128, 256)}
_NON_WORD = re.compile(r"\W", re.UNICODE | re.IGNORECASE)


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of two strings (bit-parallel, Hyyrö 2004)."""
    if not a or not b:
        return 0
    if len(b) > len(a):
        a, b = b, a
    masks: dict[str, int] = {}
    for i, char in enumerate(a):
        masks[char] = masks.get(char, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for char in b:
        matches = row & masks.get(char, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(a) - row.bit_count()


def lcs_ratio(a: str, b: str) -> float:
    """``2 * LCS / (len(a) + len(b))``: python-Levenshtein's ``ratio`` (indel similarity)."""
    total = len(a) + len(b)
    return 2 * lcs_length(a, b) / total if total else 1.0


def _process_and_sort(text: str) -> str:
    processed = _NON_WORD.sub(" ", text.translate(_LATIN1_HIGH)).lower().strip()
    return " ".join(sorted(processed.split())).strip()


def token_sort_ratio(source: str, hypothesis: str) -> float:
    """fuzzywuzzy 0.18's ``token_sort_ratio(source, hypothesis) / 100``."""
    a, b = _process_and_sort(source), _process_and_sort(hypothesis)
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return int(round(100 * lcs_ratio(a, b))) / 100


def levenshtein_distance_ratio(source: str, hypothesis: str) -> float:
    """``1 - distance / (len(source) + len(hypothesis))``, substitutions costing 2."""
    total = len(source) + len(hypothesis)
    distance = total - 2 * lcs_length(source, hypothesis)
    return 1 - distance / total


@dataclass(frozen=True)
class ScribendiConfig(MetricConfig):
    """Scribendi's options (defaults: gec-metrics 0.1.1). ``model``: a local causal LM folder
    (GPT-2 in the paper), else ``$GEC_SCRIBENDI_MODEL``."""

    model: str | None = None
    threshold: float = 0.8
    batch_size: int = 32
    device: str = "auto"
    cache_dir: str | None = None  # on-disk cache of perplexities per sentence

    def __post_init__(self) -> None:
        check_probability(self.threshold, "threshold")
        check_count(self.batch_size, "batch_size")
        check_device(self.device)


class Scribendi(ReferenceFreeMetric):
    """The Scribendi score: sentence scores -1, 0 or 1 and their sum; ``details`` has each
    changed sentence's perplexities and ratios."""

    name = "scribendi"
    Config = ScribendiConfig

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        config = self.config
        assert isinstance(config, ScribendiConfig)
        self.model = model_setting(
            config.model,
            setting="Scribendi model (--model)",
            env="GEC_SCRIBENDI_MODEL",
            what="Scribendi's language model",
        )
        self.device = resolve_device(config.device)
        self._loaded: tuple[Any, Any] | None = None

    @property
    def signature(self) -> str:
        config = self.config
        assert isinstance(config, ScribendiConfig)
        return Signature(
            "scribendi",
            METRIC_VERSION,
            (("lm", self.model.id), ("threshold", f"{config.threshold:g}"), ("corpus", "sum")),
        ).text

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            tokenizer = load_tokenizer(self.model)
            if tokenizer.bos_token is None or tokenizer.eos_token is None:
                raise Unavailable(
                    f"Scribendi's language model {self.model.path} has no BOS/EOS token "
                    "(the score reads bos_token + sentence and pads with eos_token)"
                )
            tokenizer.pad_token = tokenizer.eos_token
            tokenizer.padding_side = "right"
            self._loaded = (tokenizer, load_model(self.model, "causal-lm", self.device))
        return self._loaded

    def perplexities(self, sentences: Sequence[str]) -> list[float]:
        """Per sentence, ``exp`` of the mean cross-entropy of its tokens after the BOS (from
        the cache where it is there)."""
        self.hash_models((self.model,), self._load)
        prefix = f"scribendi-ppl|{self.model.id}"
        keys = [cache_key(prefix, sentence) for sentence in sentences]

        def compute(indices: list[int]) -> list[float]:
            return self._perplexities([sentences[i] for i in indices])

        return [float(value) for value in self.cached(keys, compute)]

    def _perplexities(self, sentences: Sequence[str]) -> list[float]:
        config = self.config
        assert isinstance(config, ScribendiConfig)
        import torch

        tokenizer, model = self._load()
        texts = [tokenizer.bos_token + sentence for sentence in sentences]
        values = [0.0] * len(texts)
        for batch in length_batches(texts, config.batch_size):
            inputs = tokenizer([texts[i] for i in batch], return_tensors="pt", padding=True).to(
                self.device
            )
            with torch.inference_mode():
                logits = model(
                    input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
                ).logits
            shift_logits = logits[:, :-1, :].float()
            labels = inputs["input_ids"][:, 1:]
            mask = inputs["attention_mask"][:, 1:].to(shift_logits.dtype)
            loss = torch.nn.functional.cross_entropy(
                shift_logits.reshape(-1, shift_logits.size(-1)),
                labels.reshape(-1),
                reduction="none",
            ).view(labels.shape)
            mean_loss = (loss * mask).sum(dim=1) / mask.sum(dim=1)
            for i, value in zip(batch, torch.exp(mean_loss).tolist(), strict=True):
                values[i] = value
        return values

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        self.check(sources, hypotheses, references)
        config = self.config
        assert isinstance(config, ScribendiConfig)
        changed = [i for i, (s, h) in enumerate(zip(sources, hypotheses, strict=True)) if s != h]
        ppl = self.perplexities([sources[i] for i in changed] + [hypotheses[i] for i in changed])
        scores = [0] * len(sources)
        per_sentence: dict[int, dict[str, float]] = {}
        for k, i in enumerate(changed):
            ppl_source, ppl_hypothesis = ppl[k], ppl[len(changed) + k]
            tsr = token_sort_ratio(sources[i], hypotheses[i])
            ldr = levenshtein_distance_ratio(sources[i], hypotheses[i])
            # ``not <=`` rather than ``>``: an empty sentence has a NaN perplexity (no token
            # after the BOS), which gec-metrics sends on to the ratio test.
            better = not (ppl_source <= ppl_hypothesis) and max(tsr, ldr) >= config.threshold
            scores[i] = 1 if better else -1
            per_sentence[i] = {
                "ppl_source": ppl_source,
                "ppl_hypothesis": ppl_hypothesis,
                "token_sort_ratio": tsr,
                "levenshtein_ratio": ldr,
            }
        return Result(
            metric=self.name,
            score=float(sum(scores)),
            signature=self.signature,
            sentences=tuple(SentenceScore(float(score)) for score in scores),
            details={"changed": per_sentence},
        )
