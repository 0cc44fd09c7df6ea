"""PT-M2 / PT-ERRANT: edit-based P/R/F where every edit counts with a weight.

Counting follows the edit comparison of ChERRANT / errant_compare exactly (keys
(start, end, correction) per annotator, alternatives unioned with multiplicity, noop never
counts, UNK skipped, greedy best reference on the running corpus F rounded to 4 dp), except
that an edit contributes its weight instead of 1. With `SelfWeights` every weight is 1.0
and the sums are exact integers, so the numbers equal the unweighted comparison.

The weight of an edit depends on the reference it is compared with (PT-M2: w(e) =
|BERTScore(source + e, ref) - BERTScore(source, ref)| over the union of hypothesis and gold
edits of that reference), so requests are built per (sentence, reference annotator) and
sent to the provider in ONE call for the whole corpus: that is what makes batching pay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gecscore.counts import WEIGHTED_ZERO, Counts, f_key
from gecscore.edits import OverlappingEditsError
from gecscore.errors import GECError, OptionError
from gecscore.m2 import NA_TYPE, NONE_CORRECTION, NOOP_TYPE, M2Block, M2Edit, apply_m2_edits
from gecscore.signature import Signature
from gecscore.weights.base import EditWeightProvider, ProgressCallback, WeightRequest

__all__ = [
    "DEFAULT_CHUNK",
    "GRANULARITIES",
    "LEVELS",
    "METRIC_NAME",
    "PTM2InputError",
    "PTM2Result",
    "PTM2Sentence",
    "compute_weights",
    "prepare_sentences",
    "score_ptm2",
    "score_sentences",
    "signature",
]

Key = tuple[int, int, str]  # (start, end, correction) as ChERRANT / errant compare keys
GRANULARITIES = ("char", "word")
LEVELS = ("corpus", "sentence")
VERSION = "1"
# The registry name: a signature starts with it (the granularity field says char or word).
METRIC_NAME = "ptm2"
DEFAULT_CHUNK = 4096  # weight requests per provider call


class PTM2InputError(GECError, ValueError):
    """Hypothesis and reference files that cannot be compared (names the block)."""


@dataclass
class AnnotatorEdits:
    """One annotator's edits of one sentence: key -> edit types (one per occurrence)."""

    keys: dict[Key, list[str]] = field(default_factory=dict)
    text: str | None = None  # reference text (joined), for references only


@dataclass
class SentenceEdits:
    source_tokens: list[str]
    hypotheses: dict[int, AnnotatorEdits]
    references: dict[int, AnnotatorEdits]
    skipped: bool  # ChERRANT skips a sentence whose only reference is "not annotatable"
    line: int


@dataclass(frozen=True)
class PTM2Sentence:
    index: int  # 0-based block index
    hypothesis: int  # chosen hypothesis annotator
    reference: int  # chosen reference annotator (-1 for a skipped sentence)
    counts: Counts[float]
    p: float
    r: float
    f: float
    skipped: bool = False


@dataclass(frozen=True)
class PTM2Result:
    level: str
    tp: float
    fp: float
    fn: float
    p: float
    r: float
    f: float  # F-beta (F0.5 by default)
    beta: float
    signature: str
    sentences: list[PTM2Sentence]

    def sentence_f(self, count: int) -> list[float]:
        """One F per sentence of the ``count`` scored, in order (0 for a sentence the result
        has no entry for): the sentence scores TrueSkill / Expected Wins rank systems by."""
        values = [0.0] * count
        for item in self.sentences:
            values[item.index] = float(item.f)
        return values

    def as_dict(self) -> dict[str, object]:
        return {
            "level": self.level,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "p": round(self.p, 4),
            "r": round(self.r, 4),
            f_key(self.beta): round(self.f, 4),
            "signature": self.signature,
        }


# --------------------------------------------------------------------------- reading
def _correction_key(correction: str, granularity: str) -> str:
    # ChERRANT removes the spaces between characters; errant keeps the tokens as written.
    return correction.replace(" ", "") if granularity == "char" else correction


def _join(tokens: Sequence[str], granularity: str) -> str:
    return ("" if granularity == "char" else " ").join(tokens)


def _edited(tokens: Sequence[str], edits: Sequence[tuple[int, int, str]]) -> list[str]:
    try:
        return apply_m2_edits(tokens, edits)
    except OverlappingEditsError as error:
        raise PTM2InputError(str(error)) from None


def _annotator_map(
    edits: Sequence[M2Edit], granularity: str, max_refs: int | None
) -> dict[int, AnnotatorEdits]:
    chosen = [e for e in edits if max_refs is None or e.annotator < max_refs]
    if not chosen:
        chosen = [M2Edit(-1, -1, NOOP_TYPE, NONE_CORRECTION, 0)]
    annotators: dict[int, AnnotatorEdits] = {}
    for edit in chosen:
        entry = annotators.setdefault(edit.annotator, AnnotatorEdits())
        if edit.type == "UNK":  # only meaningful for detection
            continue
        key = (edit.start, edit.end, _correction_key(edit.correction, granularity))
        entry.keys.setdefault(key, []).append(edit.type)
    return annotators


def _reference_text(block: M2Block, annotator: int, granularity: str) -> str:
    tokens = block.source_tokens
    for target in block.targets:
        if target.annotator != annotator:
            continue
        if target.is_special:  # 没有错误 / 无法标注: the reference is the source
            return _join(tokens, granularity)
        if target.text is not None:
            return _join(target.text.split(), granularity)
    # Plain M2 (no T lines): the reference is the source with this annotator's edits.
    own = [
        (e.start, e.end, e.correction)
        for e in block.edits
        if e.annotator == annotator and e.type not in (NOOP_TYPE, NA_TYPE)
    ]
    try:
        return _join(_edited(tokens, own), granularity)
    except PTM2InputError as error:
        raise PTM2InputError(f"reference block at line {block.line}: {error}") from None


def prepare_sentences(
    hypothesis: Sequence[M2Block],
    references: Sequence[M2Block],
    *,
    granularity: str = "char",
    max_refs: int | None = None,
) -> list[SentenceEdits]:
    """Pair hypothesis and reference blocks and key their edits like the comparison does."""
    if granularity not in GRANULARITIES:
        raise OptionError(f"granularity must be one of {GRANULARITIES}, got {granularity!r}")
    if len(hypothesis) != len(references):
        raise PTM2InputError(
            f"the hypothesis has {len(hypothesis)} blocks but the reference has "
            f"{len(references)}: both must describe the same sentences in the same order"
        )
    sentences = []
    for hyp, ref in zip(hypothesis, references, strict=True):
        # ChERRANT does not compare the two S lines (its demo files differ in one
        # punctuation mark), so neither do we; weights are computed on the reference's source.
        # ChERRANT filters hypothesis annotators by max_refs too (max_answer_num).
        hyp_map = _annotator_map(hyp.edits, granularity, max_refs)
        ref_map = _annotator_map(ref.edits, granularity, max_refs)
        for annotator, entry in ref_map.items():
            entry.text = _reference_text(ref, annotator, granularity)
        skipped = False
        if len(ref_map) == 1:
            only = next(iter(ref_map.values())).keys
            skipped = len(only) == 1 and next(iter(only.values()))[0] == NA_TYPE
        sentences.append(SentenceEdits(ref.source_tokens, hyp_map, ref_map, skipped, ref.line))
    return sentences


# --------------------------------------------------------------------------- weights
def _counted(types: list[str]) -> bool:
    return types[0] != NOOP_TYPE


def weight_requests(
    sentences: Sequence[SentenceEdits], *, granularity: str = "char"
) -> tuple[list[WeightRequest], list[tuple[int, int, Key]]]:
    """One request per (sentence, reference annotator, key of the hyp/gold union)."""
    requests: list[WeightRequest] = []
    slots: list[tuple[int, int, Key]] = []
    for index, sentence in enumerate(sentences):
        if sentence.skipped:
            continue
        source = _join(sentence.source_tokens, granularity)
        hyp_keys = {
            k for h in sentence.hypotheses.values() for k, t in h.keys.items() if _counted(t)
        }
        for annotator, reference in sentence.references.items():
            gold = {k for k, t in reference.keys.items() if _counted(t)}
            text = source if reference.text is None else reference.text
            for key in sorted(hyp_keys | gold):
                edited = _join(_edited(sentence.source_tokens, [key]), granularity)
                requests.append(WeightRequest(source, edited, text))
                slots.append((index, annotator, key))
    return requests, slots


def chunked_weights(
    requests: Sequence[WeightRequest],
    provider: EditWeightProvider,
    *,
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> list[float]:
    """The provider's weight of each request, asked in chunks of `chunk_size` (large enough
    to batch well, small enough that a provider with a disk cache has committed most of the
    work when a worker dies); `progress(done, total)` counts requests."""
    prepare = getattr(provider, "prepare", None)
    if callable(prepare):
        prepare(requests)  # e.g. corpus-wide IDF before the chunks arrive
    values: list[float] = []
    step = max(1, chunk_size)
    for start in range(0, len(requests), step):
        values.extend(provider.weights(requests[start : start + step]))
        if progress is not None:
            progress(len(values), len(requests))
    if progress is not None and not requests:
        progress(0, 0)
    return values


def compute_weights(
    sentences: Sequence[SentenceEdits],
    provider: EditWeightProvider,
    *,
    granularity: str = "char",
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> list[dict[int, dict[Key, float]]]:
    """Per sentence, per reference annotator: the weight of every hypothesis or gold key.

    Requests go to the provider in chunks of `chunk_size`: large enough to batch well,
    small enough that a provider with a disk cache has committed most of the work when a
    worker dies (the re-run starts from the cache). `progress(done, total)` counts requests.
    """
    requests, slots = weight_requests(sentences, granularity=granularity)
    values = chunked_weights(requests, provider, progress=progress, chunk_size=chunk_size)
    table: list[dict[int, dict[Key, float]]] = [
        {} if sentence.skipped else {annotator: {} for annotator in sentence.references}
        for sentence in sentences
    ]
    for (index, annotator, key), value in zip(slots, values, strict=True):
        table[index][annotator][key] = value
    return table


# -------------------------------------------------------------------------- counting
def compare_weighted(
    hyp: AnnotatorEdits, ref: AnnotatorEdits, weights: dict[Key, float]
) -> Counts[float]:
    """TP/FP/FN of one hypothesis annotator against one reference annotator."""
    tp = fp = fn = 0.0
    for key, types in hyp.keys.items():
        if not _counted(types):
            continue
        if key in ref.keys:
            tp += len(ref.keys[key]) * weights.get(key, 1.0)
        else:
            fp += len(types) * weights.get(key, 1.0)
    for key, types in ref.keys.items():
        if _counted(types) and key not in hyp.keys:
            fn += len(types) * weights.get(key, 1.0)
    return Counts(tp, fp, fn)


def _better(candidate: Counts[float], f: float, best: Counts[float], best_f: float) -> bool:
    if f != best_f:
        return f > best_f
    if candidate.tp != best.tp:
        return candidate.tp > best.tp
    if candidate.fp != best.fp:
        return candidate.fp < best.fp
    return candidate.fn < best.fn


def _sentence_weights(weights: dict[Key, float], level: str) -> dict[Key, float]:
    # PT-M2's sentence level: if every edit of the union weighs 0, they share weight equally.
    if level == "sentence" and weights and sum(weights.values()) == 0:
        return {key: 1.0 / len(weights) for key in weights}
    return weights


def score_sentences(
    sentences: Sequence[SentenceEdits],
    weights: Sequence[dict[int, dict[Key, float]]] | None,
    *,
    level: str = "corpus",
    beta: float = 0.5,
) -> tuple[Counts[float], list[PTM2Sentence]]:
    if level not in LEVELS:
        raise OptionError(f"level must be one of {LEVELS}, got {level!r}")
    total = WEIGHTED_ZERO
    scores: list[PTM2Sentence] = []
    for index, sentence in enumerate(sentences):
        if sentence.skipped:
            scores.append(PTM2Sentence(index, 0, -1, WEIGHTED_ZERO, 1.0, 1.0, 1.0, skipped=True))
            continue
        best = WEIGHTED_ZERO
        best_f = -1.0
        best_ids = (0, 0)
        for hyp_id, hyp in sentence.hypotheses.items():
            for ref_id, ref in sentence.references.items():
                table = weights[index].get(ref_id, {}) if weights is not None else {}
                counts = compare_weighted(hyp, ref, _sentence_weights(table, level))
                if level == "corpus":
                    # ChERRANT / errant: the running corpus F, rounded to 4 decimals.
                    f = (total + counts).f_score(beta, digits=4)
                else:
                    f = counts.f_score(beta)
                if _better(counts, f, best, best_f):
                    best, best_f, best_ids = counts, f, (hyp_id, ref_id)
        total = total + best
        p, r, f = best.prf(beta)
        scores.append(PTM2Sentence(index, best_ids[0], best_ids[1], best, p, r, f))
    return total, scores


def signature(
    provider: EditWeightProvider, *, level: str, granularity: str, beta: float, max_refs: int | None
) -> Signature:
    return Signature(
        METRIC_NAME,
        VERSION,
        (
            ("level", level),
            ("granularity", granularity),
            ("beta", f"{beta:g}"),
            ("selection", "greedy-running-f4dp" if level == "corpus" else "best-f-per-sentence"),
            ("refs", "all" if max_refs is None else f"first{max_refs}"),
            (provider.signature, None),
        ),
    )


def score_ptm2(
    hypothesis: Sequence[M2Block],
    references: Sequence[M2Block],
    provider: EditWeightProvider,
    *,
    level: str = "corpus",
    granularity: str = "char",
    beta: float = 0.5,
    max_refs: int | None = None,
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> PTM2Result:
    """PT-M2 (char edits) / PT-ERRANT (word edits) of a hypothesis M2 against references.

    corpus: weighted TP/FP/FN summed over sentences (best reference chosen greedily).
    sentence: per sentence the best reference by F, then the mean of P, R, F over the
    sentences that are not skipped; tp/fp/fn are the sums of the chosen counts.
    """
    sentences = prepare_sentences(
        hypothesis, references, granularity=granularity, max_refs=max_refs
    )
    weights = compute_weights(
        sentences, provider, granularity=granularity, progress=progress, chunk_size=chunk_size
    )
    total, scores = score_sentences(sentences, weights, level=level, beta=beta)
    if level == "corpus":
        p, r, f = total.prf(beta)
    else:
        counted = [s for s in scores if not s.skipped]
        n = max(1, len(counted))
        p = sum(s.p for s in counted) / n
        r = sum(s.r for s in counted) / n
        f = sum(s.f for s in counted) / n
    return PTM2Result(
        level=level,
        tp=total.tp,
        fp=total.fp,
        fn=total.fn,
        p=p,
        r=r,
        f=f,
        beta=beta,
        signature=signature(
            provider, level=level, granularity=granularity, beta=beta, max_refs=max_refs
        ).text,
        sentences=scores,
    )
