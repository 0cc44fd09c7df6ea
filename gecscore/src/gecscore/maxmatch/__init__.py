"""M2 (MaxMatch) scorer with m2scorer 3.2's counts, corpus level and sentence level (SentM2).

    from gecscore.maxmatch import score_systems, read_hypotheses
    results = score_systems({"AMU": lines}, read_m2("conll14st-test.m2"))

See ``docs/metrics/m2score.md`` for the semantics kept and how it stays fast.
"""

from gecscore.maxmatch.lattice import Lattice, build_lattice
from gecscore.maxmatch.scorer import (
    M2Result,
    SentenceM2,
    format_m2scorer,
    gold_edits_by_annotator,
    score,
    score_systems,
    sentence_counts,
)

__all__ = [
    "Lattice",
    "M2Result",
    "SentenceM2",
    "build_lattice",
    "format_m2scorer",
    "gold_edits_by_annotator",
    "score",
    "score_systems",
    "sentence_counts",
]
