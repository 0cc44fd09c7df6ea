"""M2 (MaxMatch) scorer with m2scorer 3.2's counts, corpus level and sentence level (SentM2).

    from gecscore import Gold, get_metric, read_m2

    gold = Gold(read_m2("conll14st-test.m2"))
    M2 = get_metric("m2")
    result = M2(M2.Config(beta=0.5)).score_corpus(gold.sources, hypothesis_lines, gold)

or, for several systems against one gold file (the gold edits prepared once)::

    from gecscore.maxmatch import score_systems
    results = score_systems({"AMU": hypothesis_lines}, read_m2("conll14st-test.m2"))

See ``docs/metrics/m2score.md`` for the semantics kept and how it stays fast.
"""

from gecscore.maxmatch.lattice import Lattice, build_lattice
from gecscore.maxmatch.scorer import (
    M2,
    M2Config,
    M2Result,
    SentenceM2,
    SentM2,
    format_m2scorer,
    gold_edits_by_annotator,
    score,
    score_systems,
    sentence_counts,
)

__all__ = [
    "M2",
    "Lattice",
    "M2Config",
    "M2Result",
    "SentM2",
    "SentenceM2",
    "build_lattice",
    "format_m2scorer",
    "gold_edits_by_annotator",
    "score",
    "score_systems",
    "sentence_counts",
]
