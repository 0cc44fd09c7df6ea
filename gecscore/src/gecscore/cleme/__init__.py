"""CLEME and CLEME2.0 chunk-level metrics, chunk statistics and the chunk-aligned review grid.

See docs/metrics/cleme.md. Typical use::

    from scoring.gec.cleme import cleme, cleme2, chunk_statistics, read_sentences

    score = cleme(read_sentences("hyp.m2"), read_sentences("ref.m2"))
"""

from __future__ import annotations

import importlib

# Names are imported on first use, not with the package: `python -m scoring.gec cleme` on M2
# needs the scorer, not CLEME2.0, the review grid or the statistics (issue #17: start-up).
# Not `from typing import ...`: TYPE_CHECKING is the name type checkers look for.
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    "CORPUS_FACTORS": "scoring.gec.cleme.cleme2",
    "SENTENCE_FACTORS": "scoring.gec.cleme.cleme2",
    "Aspects": "scoring.gec.cleme.cleme2",
    "Cleme2Score": "scoring.gec.cleme.cleme2",
    "Factors": "scoring.gec.cleme.cleme2",
    "SentenceCleme2": "scoring.gec.cleme.cleme2",
    "cleme2": "scoring.gec.cleme.cleme2",
    "score_evaluation2": "scoring.gec.cleme.cleme2",
    "sentence_scores2": "scoring.gec.cleme.cleme2",
    "ChunkEvaluation": "scoring.gec.cleme.evaluate",
    "evaluate_chunks": "scoring.gec.cleme.evaluate",
    "ChunkGrid": "scoring.gec.cleme.grid",
    "GridCell": "scoring.gec.cleme.grid",
    "GridColumn": "scoring.gec.cleme.grid",
    "chunk_grid": "scoring.gec.cleme.grid",
    "chunk_grid_from_texts": "scoring.gec.cleme.grid",
    "read_m2_sentences": "scoring.gec.cleme.inputs",
    "read_sentences": "scoring.gec.cleme.inputs",
    "sentences_from_m2": "scoring.gec.cleme.inputs",
    "sentences_from_texts": "scoring.gec.cleme.inputs",
    "ClemeInputError": "scoring.gec.cleme.model",
    "Sentence": "scoring.gec.cleme.model",
    "SpanEdit": "scoring.gec.cleme.model",
    "make_sentence": "scoring.gec.cleme.model",
    "ChunkSpan": "scoring.gec.cleme.partition",
    "Partition": "scoring.gec.cleme.partition",
    "partition": "scoring.gec.cleme.partition",
    "ClemeScore": "scoring.gec.cleme.scorers",
    "SentenceCleme": "scoring.gec.cleme.scorers",
    "cleme": "scoring.gec.cleme.scorers",
    "score_evaluation": "scoring.gec.cleme.scorers",
    "sentence_scores": "scoring.gec.cleme.scorers",
    "ChunkStatistics": "scoring.gec.cleme.stats",
    "chunk_statistics": "scoring.gec.cleme.stats",
    "CORPUS_WEIGHTING": "scoring.gec.cleme.weighting",
    "NO_WEIGHTING": "scoring.gec.cleme.weighting",
    "SENTENCE_DEPENDENT_WEIGHTING": "scoring.gec.cleme.weighting",
    "SENTENCE_INDEPENDENT_WEIGHTING": "scoring.gec.cleme.weighting",
    "LengthWeight": "scoring.gec.cleme.weighting",
    "LengthWeighting": "scoring.gec.cleme.weighting",
}

# A literal list (not sorted(_EXPORTS)): type checkers read it as the re-exports.
__all__ = [
    "CORPUS_FACTORS",
    "CORPUS_WEIGHTING",
    "NO_WEIGHTING",
    "SENTENCE_DEPENDENT_WEIGHTING",
    "SENTENCE_FACTORS",
    "SENTENCE_INDEPENDENT_WEIGHTING",
    "Aspects",
    "ChunkEvaluation",
    "ChunkGrid",
    "ChunkSpan",
    "ChunkStatistics",
    "Cleme2Score",
    "ClemeInputError",
    "ClemeScore",
    "Factors",
    "GridCell",
    "GridColumn",
    "LengthWeight",
    "LengthWeighting",
    "Partition",
    "Sentence",
    "SentenceCleme",
    "SentenceCleme2",
    "SpanEdit",
    "chunk_grid",
    "chunk_grid_from_texts",
    "chunk_statistics",
    "cleme",
    "cleme2",
    "evaluate_chunks",
    "make_sentence",
    "partition",
    "read_m2_sentences",
    "read_sentences",
    "score_evaluation",
    "score_evaluation2",
    "sentence_scores",
    "sentence_scores2",
    "sentences_from_m2",
    "sentences_from_texts",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scoring.gec.cleme' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


if TYPE_CHECKING:
    from scoring.gec.cleme.cleme2 import (
        CORPUS_FACTORS,
        SENTENCE_FACTORS,
        Aspects,
        Cleme2Score,
        Factors,
        SentenceCleme2,
        cleme2,
        score_evaluation2,
        sentence_scores2,
    )
    from scoring.gec.cleme.evaluate import ChunkEvaluation, evaluate_chunks
    from scoring.gec.cleme.grid import (
        ChunkGrid,
        GridCell,
        GridColumn,
        chunk_grid,
        chunk_grid_from_texts,
    )
    from scoring.gec.cleme.inputs import (
        read_m2_sentences,
        read_sentences,
        sentences_from_m2,
        sentences_from_texts,
    )
    from scoring.gec.cleme.model import ClemeInputError, Sentence, SpanEdit, make_sentence
    from scoring.gec.cleme.partition import ChunkSpan, Partition, partition
    from scoring.gec.cleme.scorers import (
        ClemeScore,
        SentenceCleme,
        cleme,
        score_evaluation,
        sentence_scores,
    )
    from scoring.gec.cleme.stats import ChunkStatistics, chunk_statistics
    from scoring.gec.cleme.weighting import (
        CORPUS_WEIGHTING,
        NO_WEIGHTING,
        SENTENCE_DEPENDENT_WEIGHTING,
        SENTENCE_INDEPENDENT_WEIGHTING,
        LengthWeight,
        LengthWeighting,
    )
