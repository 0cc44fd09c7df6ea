"""Pure-Python GEC metric library (no Django below this package).

Char-level ChERRANT-compatible extraction and scoring:

    from scoring.gec import extract_edits, load_resources, parallel_to_m2, compare_m2
"""

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
from scoring.gec.resources import ResourceError, Resources, default_resources, load_resources

__all__ = [
    "Edit",
    "M2Block",
    "M2Edit",
    "M2FormatError",
    "M2Target",
    "ParallelFormatError",
    "ParallelLine",
    "ResourceError",
    "Resources",
    "TargetAnnotation",
    "annotate_sentence",
    "default_resources",
    "extract_edits",
    "load_resources",
    "parallel_to_m2",
    "parse_m2",
    "parse_parallel",
    "read_m2",
    "read_parallel",
    "write_m2",
]
