"""The metric an annotator's corrections are scored with: the dataset language's own, the
one its systems are scored with (char-level ChERRANT for Chinese, ERRANT for English).

Each submitted box is an M2 block of one hypothesis, each sentence's golden references one
block of all of them; corpus counts pick each sentence's best reference as the language's
comparison does. The quality page, the pay report's factor, the leaderboard's "Human" row and
a published card's agreement line all read these, so an English annotator is never scored
on characters. Kept free of Django, like scoring/metric.py and scoring/metric_en.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecscore import (
    NO_ERROR_TEXT,
    NOT_ANNOTATABLE_TEXT,
    CompareOptions,
    M2Block,
    compare_blocks,
    parallel_to_m2_blocks,
)
from scoring import metric

ENGLISH = "en"
MARKERS = (NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT)


@dataclass(frozen=True)
class BoxMetric:
    """How one language scores boxes; ``name`` is what pages and the card call it."""

    language: str
    name: str

    @property
    def english(self) -> bool:
        return self.language == ENGLISH

    def reference_block(self, source: str, targets: Sequence[str], *, resources: Any) -> M2Block:
        """One block of all the sentence's references (markers as each language reads them:
        ChERRANT's own, the source itself for ERRANT)."""
        if not self.english:
            return metric.sentence_block(source, targets, resources=resources)
        return parallel_to_m2_blocks([source], [[_plain(source, t)] for t in targets])[0]

    def box_block(self, source: str, hypothesis: str, *, resources: Any) -> M2Block:
        return self.reference_block(source, [hypothesis], resources=resources)

    def counts(
        self,
        hyp_blocks: Sequence[M2Block],
        ref_blocks: Sequence[M2Block],
        *,
        max_refs: int | None = None,
    ) -> dict[str, Any]:
        """tp/fp/fn/p/r/f05 of the corpus, against the first ``max_refs`` references when given."""
        if not self.english:
            return metric.corpus_counts(hyp_blocks, ref_blocks, max_refs=max_refs)
        if max_refs is not None:
            ref_blocks = [
                M2Block(b.source, [t for t in b.targets if t.annotator < max_refs], b.line)
                for b in ref_blocks
            ]
        result = compare_blocks(hyp_blocks, ref_blocks, CompareOptions())
        return {
            "tp": result.tp,
            "fp": result.fp,
            "fn": result.fn,
            "p": result.p,
            "r": result.r,
            "f05": result.f,
        }


CHINESE_BOXES = BoxMetric("zh", "ChERRANT char-level")
ENGLISH_BOXES = BoxMetric(ENGLISH, "ERRANT")


def box_metric(language: str) -> BoxMetric:
    return ENGLISH_BOXES if language == ENGLISH else CHINESE_BOXES


def pooled_counts(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts of corpora scored apart (one per language), summed; P, R and F0.5 of the sums
    as both comparisons compute them. One part is returned as it is."""
    if len(parts) == 1:
        return parts[0]
    tp, fp, fn = (sum(part[key] for part in parts) for key in ("tp", "fp", "fn"))
    p = tp / (tp + fp) if fp else 1.0
    r = tp / (tp + fn) if fn else 1.0
    f05 = (1.25 * p * r) / (0.25 * p + r) if p + r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "p": p, "r": r, "f05": f05}


def _plain(source: str, text: str) -> str:
    return source if text in MARKERS else text
