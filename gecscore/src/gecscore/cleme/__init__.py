"""CLEME and CLEME2.0 chunk-level metrics, chunk statistics and the chunk-aligned review grid.

See docs/metrics/cleme.md. Typical use::

    from gecscore.cleme import cleme, cleme2, chunk_statistics, read_sentences

    score = cleme(read_sentences("hyp.m2"), read_sentences("ref.m2"))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Names are imported on first use, not with the package: `python -m gecscore cleme` on M2
# needs the scorer, not CLEME2.0, the review grid or the statistics (start-up).

_EXPORTS: dict[str, str] = {
    "CORPUS_FACTORS": "gecscore.cleme.v2",
    "SENTENCE_FACTORS": "gecscore.cleme.v2",
    "Aspects": "gecscore.cleme.v2",
    "Cleme2Score": "gecscore.cleme.v2",
    "Factors": "gecscore.cleme.v2",
    "SentenceCleme2": "gecscore.cleme.v2",
    "cleme2": "gecscore.cleme.v2",
    "score_cleme2": "gecscore.cleme.v2",
    "score_evaluation2": "gecscore.cleme.v2",
    "sentence_scores2": "gecscore.cleme.v2",
    "ChunkEvaluation": "gecscore.cleme.evaluate",
    "evaluate_chunks": "gecscore.cleme.evaluate",
    "ChunkGrid": "gecscore.cleme.grid",
    "GridCell": "gecscore.cleme.grid",
    "GridColumn": "gecscore.cleme.grid",
    "chunk_grid": "gecscore.cleme.grid",
    "chunk_grid_from_texts": "gecscore.cleme.grid",
    "read_m2_sentences": "gecscore.cleme.inputs",
    "read_sentences": "gecscore.cleme.inputs",
    "sentences_from_m2": "gecscore.cleme.inputs",
    "sentences_from_texts": "gecscore.cleme.inputs",
    "ClemeInputError": "gecscore.cleme.model",
    "Sentence": "gecscore.cleme.model",
    "SpanEdit": "gecscore.cleme.model",
    "make_sentence": "gecscore.cleme.model",
    "ChunkSpan": "gecscore.cleme.partition",
    "Partition": "gecscore.cleme.partition",
    "partition": "gecscore.cleme.partition",
    "ClemeScore": "gecscore.cleme.scorers",
    "SentenceCleme": "gecscore.cleme.scorers",
    "cleme": "gecscore.cleme.scorers",
    "score_cleme": "gecscore.cleme.scorers",
    "score_evaluation": "gecscore.cleme.scorers",
    "sentence_scores": "gecscore.cleme.scorers",
    "ChunkStatistics": "gecscore.cleme.stats",
    "chunk_statistics": "gecscore.cleme.stats",
    "CORPUS_WEIGHTING": "gecscore.cleme.weighting",
    "NO_WEIGHTING": "gecscore.cleme.weighting",
    "SENTENCE_DEPENDENT_WEIGHTING": "gecscore.cleme.weighting",
    "SENTENCE_INDEPENDENT_WEIGHTING": "gecscore.cleme.weighting",
    "LengthWeight": "gecscore.cleme.weighting",
    "LengthWeighting": "gecscore.cleme.weighting",
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
    "score_cleme",
    "score_cleme2",
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
        raise AttributeError(f"module 'gecscore.cleme' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


if TYPE_CHECKING:
    from gecscore.cleme.evaluate import ChunkEvaluation, evaluate_chunks
    from gecscore.cleme.grid import (
        ChunkGrid,
        GridCell,
        GridColumn,
        chunk_grid,
        chunk_grid_from_texts,
    )
    from gecscore.cleme.inputs import (
        read_m2_sentences,
        read_sentences,
        sentences_from_m2,
        sentences_from_texts,
    )
    from gecscore.cleme.model import ClemeInputError, Sentence, SpanEdit, make_sentence
    from gecscore.cleme.partition import ChunkSpan, Partition, partition
    from gecscore.cleme.scorers import (
        ClemeScore,
        SentenceCleme,
        cleme,
        score_cleme,
        score_evaluation,
        sentence_scores,
    )
    from gecscore.cleme.stats import ChunkStatistics, chunk_statistics
    from gecscore.cleme.v2 import (
        CORPUS_FACTORS,
        SENTENCE_FACTORS,
        Aspects,
        Cleme2Score,
        Factors,
        SentenceCleme2,
        cleme2,
        score_cleme2,
        score_evaluation2,
        sentence_scores2,
    )
    from gecscore.cleme.weighting import (
        CORPUS_WEIGHTING,
        NO_WEIGHTING,
        SENTENCE_DEPENDENT_WEIGHTING,
        SENTENCE_INDEPENDENT_WEIGHTING,
        LengthWeight,
        LengthWeighting,
    )
