"""Pure-Python GEC metric library (no Django below this package).

Char-level ChERRANT-compatible extraction and scoring:

    from scoring.gec import extract_edits, load_resources, parallel_to_m2, compare_m2

The names below are imported on first use, not with the package: a command that needs
one metric (``python -m scoring.gec cleme``) should not pay for loading all of them.
"""

from __future__ import annotations

import importlib

# Not `from typing import ...`: importing typing costs a command that needs none of it (the
# name TYPE_CHECKING is what type checkers look for).
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    "CompareError": "scoring.gec.compare",
    "CompareResult": "scoring.gec.compare",
    "Scores": "scoring.gec.compare",
    "SentenceResult": "scoring.gec.compare",
    "compare_m2": "scoring.gec.compare",
    "reference_count_curve": "scoring.gec.compare",
    "Counts": "scoring.gec.counts",
    "precision_recall_f": "scoring.gec.counts",
    "Edit": "scoring.gec.extract",
    "ParallelFormatError": "scoring.gec.extract",
    "ParallelLine": "scoring.gec.mucgec",
    "TargetAnnotation": "scoring.gec.extract",
    "annotate_sentence": "scoring.gec.extract",
    "extract_edits": "scoring.gec.extract",
    "parallel_to_m2": "scoring.gec.extract",
    "parse_parallel": "scoring.gec.extract",
    "read_parallel": "scoring.gec.extract",
    "M2Block": "scoring.gec.m2",
    "M2Edit": "scoring.gec.m2",
    "M2FormatError": "scoring.gec.m2",
    "M2Target": "scoring.gec.m2",
    "parse_m2": "scoring.gec.m2",
    "read_m2": "scoring.gec.m2",
    "write_m2": "scoring.gec.m2",
    # Weighted metrics (PT-M2 / PT-ERRANT); providers live in scoring.gec.weights.
    "PTM2Result": "scoring.gec.ptm2",
    "score_ptm2": "scoring.gec.ptm2",
    "ResourceError": "scoring.gec.resources",
    "Resources": "scoring.gec.resources",
    "default_resources": "scoring.gec.resources",
    "load_resources": "scoring.gec.resources",
    "no_resources": "scoring.gec.resources",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scoring.gec' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


if TYPE_CHECKING:
    from scoring.gec.compare import (
        CompareError,
        CompareResult,
        Scores,
        SentenceResult,
        compare_m2,
        reference_count_curve,
    )
    from scoring.gec.counts import Counts, precision_recall_f
    from scoring.gec.extract import (
        Edit,
        ParallelFormatError,
        TargetAnnotation,
        annotate_sentence,
        extract_edits,
        parallel_to_m2,
        parse_parallel,
        read_parallel,
    )
    from scoring.gec.m2 import (
        M2Block,
        M2Edit,
        M2FormatError,
        M2Target,
        parse_m2,
        read_m2,
        write_m2,
    )
    from scoring.gec.mucgec import ParallelLine
    from scoring.gec.ptm2 import PTM2Result, score_ptm2
    from scoring.gec.resources import (
        ResourceError,
        Resources,
        default_resources,
        load_resources,
        no_resources,
    )
