"""CLEME and CLEME2.0 chunk-level metrics, chunk statistics and the chunk-aligned review grid.

See docs/metrics/cleme.md. Typical use::

    from scoring.gec.cleme import cleme, cleme2, chunk_statistics, read_sentences

    score = cleme(read_sentences("hyp.m2"), read_sentences("ref.m2"))
"""

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
