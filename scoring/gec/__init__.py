"""Pure-Python GEC metric library (no Django below this package).

Char-level ChERRANT-compatible extraction and scoring:

    from scoring.gec import extract_edits, load_resources, parallel_to_m2, compare_m2
"""

from scoring.gec.compare import (
    CompareError,
    CompareResult,
    Scores,
    SentenceResult,
    compare_m2,
    f_score,
    reference_count_curve,
)
from scoring.gec.extract import (
    Edit,
    ParallelFormatError,
    ParallelLine,
    TargetAnnotation,
    annotate_sentence,
    extract_edits,
    parallel_to_m2,
    parse_parallel,
    read_parallel,
)
from scoring.gec.m2 import M2Block, M2Edit, M2FormatError, M2Target, parse_m2, read_m2, write_m2
from scoring.gec.ptm2 import PTM2Result, score_ptm2
from scoring.gec.resources import (
    ResourceError,
    Resources,
    default_resources,
    load_resources,
    no_resources,
)

__all__ = [
    "CompareError",
    "CompareResult",
    "Edit",
    "M2Block",
    "M2Edit",
    "M2FormatError",
    "M2Target",
    "ParallelFormatError",
    "ParallelLine",
    "ResourceError",
    "Resources",
    "Scores",
    "SentenceResult",
    "TargetAnnotation",
    "annotate_sentence",
    "compare_m2",
    "default_resources",
    "f_score",
    "no_resources",
    "reference_count_curve",
    "extract_edits",
    "load_resources",
    "parallel_to_m2",
    "parse_m2",
    "parse_parallel",
    "read_m2",
    "read_parallel",
    "write_m2",
    # Weighted metrics (PT-M2 / PT-ERRANT); providers live in scoring.gec.weights.
    "PTM2Result",
    "score_ptm2",
]
