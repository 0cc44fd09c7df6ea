"""ChERRANT (char-level Chinese edits) in the library's calling convention.

Text (hypotheses, references) goes through the char extractor (``parallel_to_m2``, as
ChERRANT's ``parallel_to_m2.py``); ``Gold`` M2 blocks (hypothesis or references) are used as
annotated. The comparison is :func:`gecscore.compare.compare_m2`, and the signature is the one
``compare`` prints (``input=m2``) when nothing was extracted, the one ``score`` prints (the
extraction's granularity, strategy and resources) otherwise.

Kept out of ``compare.py``: ``python -m gecscore compare`` loads that module and must not load
``dataclasses`` or the extractor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from gecscore.compare import CAT_LEVELS, MODES, compare_m2, result_fields
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    check_corpus,
)
from gecscore.options import check_beta, check_choice, check_count

if TYPE_CHECKING:
    from gecscore.m2 import M2Block
    from gecscore.resources import Resources
    from gecscore.signature import Field

__all__ = ["ChERRANT", "ChERRANTConfig", "char_blocks"]

GRANULARITIES = ("char", "word")
STRATEGIES = ("all", "first")


@dataclass(frozen=True)
class ChERRANTConfig(MetricConfig):
    """``compare`` / ``score``'s options; the defaults are ChERRANT's."""

    beta: float = 0.5
    mode: str = "cs"  # cs (span-based correction), cse, ds or dt
    max_refs: int | None = None  # keep reference annotators 0..k-1
    reference_num: int | None = None  # score only sentences with this many references
    cat: int | None = None  # 1/2/3: per-category table in details["categories"]
    # Extraction of text inputs (parallel_to_m2.py's options):
    granularity: str = "char"  # "word": jieba words
    strategy: str = "all"  # "first": the first cheapest alignment only
    simplified: bool = True
    resources: str | None = None  # ChERRANT's data folder; None: the default, "none": none
    workers: int = 1

    def __post_init__(self) -> None:
        check_beta(self.beta)
        check_choice(self.mode, "mode", MODES)
        check_choice(self.cat, "cat", (None, *CAT_LEVELS))
        check_count(self.max_refs, "max_refs", optional=True)
        check_count(self.reference_num, "reference_num", optional=True)
        check_choice(self.granularity, "granularity", GRANULARITIES)
        check_choice(self.strategy, "strategy", STRATEGIES)
        check_count(self.workers, "workers")


def char_blocks(
    sources: Sequence[str],
    texts: Sequence[Sequence[str]],
    *,
    resources: Resources,
    granularity: str = "char",
    strategy: str = "all",
    simplified: bool = True,
    workers: int = 1,
) -> list[M2Block]:
    """M2 blocks of ``sources`` with ``texts[i]`` (the corrections of sentence i) as
    ``parallel_to_m2.py`` writes them."""
    from gecscore.extract import parallel_to_m2
    from gecscore.mucgec import ParallelLine

    lines = [
        ParallelLine(str(i), source, tuple(corrections), i)
        for i, (source, corrections) in enumerate(zip(sources, texts, strict=True), start=1)
    ]
    blocks, _ = parallel_to_m2(
        lines,
        resources=resources,
        granularity=granularity,
        strategy=strategy,
        simplified=simplified,
        workers=workers,
    )
    return blocks


class ChERRANT(Metric):
    """ChERRANT F-beta; ``counts`` are (TP, FP, FN), P/R/F at full precision (ChERRANT prints
    them rounded to 4 decimals); ``sentences`` the counts of each sentence's chosen pair (score: its F);
    ``details``: ``mode``, ``categories`` (``{name: (tp, fp, fn, p, r, f)}`` when ``cat``),
    ``skipped`` (0-based sentences left out) and ``source_mismatches``."""

    name = "cherrant"
    Config = ChERRANTConfig

    @cached_property
    def resources(self) -> Resources:
        from gecscore.resources import load_resources

        assert isinstance(self.config, ChERRANTConfig)
        return load_resources(self.config.resources)

    def _blocks(self, sources: Sequence[str], texts: Sequence[Sequence[str]]) -> list[M2Block]:
        config = self.config
        assert isinstance(config, ChERRANTConfig)
        return char_blocks(
            sources,
            texts,
            resources=self.resources,
            granularity=config.granularity,
            strategy=config.strategy,
            simplified=config.simplified,
            workers=config.workers,
        )

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        check_corpus(sources, hypotheses, references)
        config = self.config
        assert isinstance(config, ChERRANTConfig)
        extracted = False
        if isinstance(hypotheses, Gold):
            hyp_blocks: Sequence[M2Block] = hypotheses
        else:
            hyp_blocks = self._blocks(sources, [[hypothesis] for hypothesis in hypotheses])
            extracted = True
        if isinstance(references, Gold):
            ref_blocks: Sequence[M2Block] = references
        else:
            per_sentence = [[refs[i] for refs in references] for i in range(len(sources))]
            ref_blocks = self._blocks(sources, per_sentence)
            extracted = True
        fields: tuple[Field, ...] = (("input", "m2"),)
        if extracted:
            fields = (
                (
                    "granularity",
                    config.granularity + ("-jieba" if config.granularity == "word" else ""),
                ),
                ("strategy", config.strategy),
                ("simplified", "yes" if config.simplified else "no"),
                ("resources", self.resources.signature),
            )
        result = compare_m2(
            hyp_blocks,
            ref_blocks,
            max_refs=config.max_refs,
            reference_num=config.reference_num,
            mode=config.mode,
            beta=config.beta,
            cat=config.cat,
            signature_fields=fields,
        )
        return Result.from_fields(**result_fields(result))
