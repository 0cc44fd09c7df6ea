"""The reference side of the weights tests: bert-score's own ``BERTScorer.score``, one
(candidate, reference) pair per call, as PT-M2's reference procedure does.

PT-M2 scores the unedited source against the same reference once per edit; those calls are
identical (same inputs, batch of one, CPU), so each distinct pair is scored once here and its F
reused. The numbers are those of calling again, for a fraction of the time."""

from __future__ import annotations

from typing import Any

__all__ = ["PairF"]


class PairF:
    """F of one candidate against one reference through ``scorer.score``, each pair once."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.cache: dict[tuple[str, str], float] = {}
        self.calls = 0

    def __call__(self, candidate: str, reference: str) -> float:
        key = (candidate, reference)
        if key not in self.cache:
            self.calls += 1
            self.cache[key] = float(self.scorer.score([candidate], [reference])[2][0].item())
        return self.cache[key]
