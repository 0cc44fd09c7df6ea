"""English PT-M2 on the MaxMatch lattice (PT-M2's ``--base m2`` / ``--base sentm2``).

Raw system text against a gold M2, as the PT-M2 reference (pygongnlp/PT-M2,
``m2score/levenshtein.py``: ``batch_multi_pre_rec_f1`` and ``..._sent``) computes it:

* Per sentence and gold annotator, the hypothesis edits are m2scorer 3.2's: the MaxMatch
  lattice, weighted for that annotator so the path through it matches as many gold edits as
  possible (``gecscore.maxmatch``: the same lattice, weights and Bellman-Ford path as our
  M2). The edit weights do NOT steer the path: the reference picks the path unweighted and
  weighs its edits afterwards, and so do we.
* Every edit of the union of that path and the annotator's gold edits gets a weight,
  w(e) = |BERTScore-F(source + e, reference) - BERTScore-F(source, reference)|, where the
  reference is the source with the annotator's gold edits applied (first alternative of each
  ``||`` list) and ``source + e`` the source with that one edit applied. Edits are keys
  (start, end, original, correction): gold edits use their first alternative, so a path edit
  that matches a later alternative is a different key with a weight of its own.
* Counts: correct = sum of w over the matched path edits (m2scorer's ``matchSeq``, an edit
  equal to two duplicate gold edits counts twice), proposed = over the path edits, gold =
  over the gold edits. The annotator is chosen per sentence like m2scorer (the best F of the
  running corpus counts plus this sentence; ties: more correct, then less proposed +
  beta^2 gold, then the first annotator in file order), except that F is computed from P and
  R of the weighted sums (P = 1 when nothing weighs anything, R likewise).
* Sentence level (``sentm2``, the setting the PT-M2 paper recommends): the same choice with
  the running counts at 0, except that when all the edit weights of a (sentence, annotator)
  sum to 0 each weighs 1/n; the score is the mean F over all sentences.

All weight requests of a corpus go to the provider in one batched call (in chunks), so a
BERTScore provider encodes each distinct sentence once and can serve them from its cache.
With `SelfWeights` every weight is 1 and the corpus counts are m2scorer's (see the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gecscore.counts import Counts, precision_recall_f
from gecscore.errors import OptionError
from gecscore.m2 import M2Block
from gecscore.maxmatch.lattice import build_lattice
from gecscore.maxmatch.matching import (
    ProposedEdit,
    annotator_weights,
    best_edit_sequence,
    matched_edits,
    prepare,
)
from gecscore.maxmatch.scorer import DEFAULT_MAX_ARCS, gold_edits_by_annotator
from gecscore.ptm2 import (
    DEFAULT_CHUNK,
    LEVELS,
    PTM2InputError,
    PTM2Result,
    PTM2Sentence,
    chunked_weights,
)
from gecscore.signature import Signature
from gecscore.weights.base import EditWeightProvider, ProgressCallback, WeightRequest

__all__ = [
    "AnnotatorPath",
    "BASES",
    "LatticeSentence",
    "METRIC_NAME",
    "VERSION",
    "apply_ptm2_edits",
    "compute_weights",
    "lattice_sentences",
    "score_lattice_sentences",
    "score_ptm2_m2",
    "score_ptm2_m2_levels",
    "signature",
    "weight_requests",
]

VERSION = "1"
# The registry name: a signature starts with it.
METRIC_NAME = "ptm2-m2"
BASES = ("m2", "sentm2")


@dataclass(frozen=True)
class AnnotatorPath:
    """One gold annotator of one sentence: the lattice path chosen for it and its gold edits."""

    annotator: int
    proposed: list[ProposedEdit]  # path edits, last to first (m2scorer's order)
    correct: list[ProposedEdit]  # matched path edits, once per match
    gold: list[ProposedEdit]  # (start, end, original, first correction), file order
    reference: str  # the source with the gold edits applied


@dataclass(frozen=True)
class LatticeSentence:
    source: str
    annotators: list[AnnotatorPath]  # in the order annotators first appear in the block
    bounded: bool  # the lattice hit the arc budget (the path may differ from m2scorer's)


def apply_ptm2_edits(tokens: Sequence[str], edits: Sequence[ProposedEdit]) -> str:
    """The tokens with (start, end, original, correction) edits applied, joined by spaces.

    Not ``m2.apply_m2_edits`` (M2 ``A``-line edits, a token list): PT-M2's reading of an edit: an insertion (empty original) goes in at ``start`` whatever
    its end says, and later offsets shift by the token counts of correction and original.
    Gold edits and the lattice path are non-overlapping, so this is the corrected text; it is
    also how a single edit is applied for its weight.
    """
    out = list(tokens)
    shift = 0
    for start, end, original, correction in sorted(edits, key=lambda e: (e[0], e[1])):
        if original == "":
            end = start
        replacement = correction.split()
        out[shift + start : shift + end] = replacement
        shift += len(replacement) - len(original.split())
    return " ".join(out)


def lattice_sentences(
    hypotheses: Sequence[str],
    gold_blocks: Sequence[M2Block],
    *,
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
) -> list[LatticeSentence]:
    """Per sentence and annotator: m2scorer's path edits, the matched ones and the gold."""
    if len(hypotheses) != len(gold_blocks):
        raise PTM2InputError(
            f"{len(hypotheses)} hypothesis lines for {len(gold_blocks)} gold sentences: the "
            "system output must have one line per sentence of the gold M2"
        )
    sentences: list[LatticeSentence] = []
    for hypothesis, block in zip(hypotheses, gold_blocks, strict=True):
        source_tokens = block.source_tokens
        hypothesis_tokens = hypothesis.split()
        gold = gold_edits_by_annotator(block, order="appearance")
        weighted = None
        bounded = False
        if source_tokens != hypothesis_tokens:
            lattice = build_lattice(source_tokens, hypothesis_tokens, max_unchanged_words, max_arcs)
            weighted = prepare(lattice)
            bounded = lattice.bounded
        paths: list[AnnotatorPath] = []
        for annotator, edits in gold.items():
            proposed: list[ProposedEdit] = []
            if weighted is not None:
                proposed = best_edit_sequence(weighted.lattice, annotator_weights(weighted, edits))
            first = [(s, e, original, corrections[0]) for s, e, original, corrections in edits]
            reference = apply_ptm2_edits(source_tokens, first)
            paths.append(
                AnnotatorPath(annotator, proposed, matched_edits(proposed, edits), first, reference)
            )
        sentences.append(LatticeSentence(" ".join(source_tokens), paths, bounded))
    return sentences


# --------------------------------------------------------------------------- weights
def _union(path: AnnotatorPath) -> list[ProposedEdit]:
    return sorted(set(path.proposed) | set(path.gold), key=lambda e: (e[0], e[1], e[2], e[3]))


def weight_requests(
    sentences: Sequence[LatticeSentence],
) -> tuple[list[WeightRequest], list[tuple[int, int, ProposedEdit]]]:
    """One request per (sentence, annotator, edit of the path/gold union)."""
    requests: list[WeightRequest] = []
    slots: list[tuple[int, int, ProposedEdit]] = []
    for index, sentence in enumerate(sentences):
        tokens = sentence.source.split()
        for position, path in enumerate(sentence.annotators):
            for edit in _union(path):
                edited = apply_ptm2_edits(tokens, [edit])
                requests.append(WeightRequest(sentence.source, edited, path.reference))
                slots.append((index, position, edit))
    return requests, slots


def compute_weights(
    sentences: Sequence[LatticeSentence],
    provider: EditWeightProvider,
    *,
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> list[list[dict[ProposedEdit, float]]]:
    """Per sentence, per annotator (in order): the weight of every edit of the union.

    Asked through `gecscore.ptm2.chunked_weights`, as the char-edit PT-M2 asks them;
    `progress(done, total)` counts requests.
    """
    requests, slots = weight_requests(sentences)
    values = chunked_weights(requests, provider, progress=progress, chunk_size=chunk_size)
    table: list[list[dict[ProposedEdit, float]]] = [
        [{} for _ in sentence.annotators] for sentence in sentences
    ]
    for (index, position, edit), value in zip(slots, values, strict=True):
        table[index][position][edit] = value
    return table


# -------------------------------------------------------------------------- counting
def _sentence_level(weights: dict[ProposedEdit, float]) -> dict[ProposedEdit, float]:
    # PT-M2's sentence level: a union whose weights sum to 0 shares weight equally.
    if weights and sum(weights.values()) == 0:
        return {edit: 1 / len(weights) for edit in weights}
    return weights


@dataclass(frozen=True)
class _Sums:
    # Not ``Counts``: the reference sums the proposed and gold weights on their own, and
    # ``tp + fp`` would not always round to the same float.
    correct: float
    proposed: float
    gold: float


def _sums(path: AnnotatorPath, weights: dict[ProposedEdit, float]) -> _Sums:
    # Summed in the reference's orders (matched left to right, path right to left, gold in
    # file order), so that ties between annotators break on the same floats.
    return _Sums(
        sum(weights[e] for e in path.correct),
        sum(weights[e] for e in path.proposed),
        sum(weights[e] for e in path.gold),
    )


def _choose(
    sentence: LatticeSentence,
    weights: list[dict[ProposedEdit, float]],
    running: _Sums,
    beta: float,
) -> tuple[int, _Sums]:
    """Index of the annotator PT-M2 chooses and its own weighted sums."""
    sq_beta = beta * beta
    best_f = float("-inf")
    best_correct = float("-inf")
    best_size = float("inf")
    chosen = -1
    chosen_sums = _Sums(0.0, 0.0, 0.0)
    for position, path in enumerate(sentence.annotators):
        own = _sums(path, weights[position])
        correct = running.correct + own.correct
        proposed = running.proposed + own.proposed
        gold = running.gold + own.gold
        f = precision_recall_f(correct, proposed, gold, beta, convention="m2scorer")[2]
        size = proposed + sq_beta * gold
        if (
            best_f < f
            or (best_f == f and best_correct < correct)
            or (best_f == f and best_correct == correct and best_size > size)
        ):
            best_f, best_correct, best_size = f, correct, size
            chosen = position
            chosen_sums = own
    return chosen, chosen_sums


def score_lattice_sentences(
    sentences: Sequence[LatticeSentence],
    weights: Sequence[list[dict[ProposedEdit, float]]],
    *,
    level: str = "corpus",
    beta: float = 0.5,
) -> tuple[_Sums, list[PTM2Sentence]]:
    if level not in LEVELS:
        raise OptionError(f"level must be one of {LEVELS}, got {level!r}")
    total = _Sums(0.0, 0.0, 0.0)
    scores: list[PTM2Sentence] = []
    for index, sentence in enumerate(sentences):
        if level == "sentence":
            table = [_sentence_level(w) for w in weights[index]]
            chosen, own = _choose(sentence, table, _Sums(0.0, 0.0, 0.0), beta)
        else:
            chosen, own = _choose(sentence, list(weights[index]), total, beta)
        total = _Sums(
            total.correct + own.correct, total.proposed + own.proposed, total.gold + own.gold
        )
        p, r, f = precision_recall_f(
            own.correct, own.proposed, own.gold, beta, convention="m2scorer"
        )
        scores.append(
            PTM2Sentence(
                index,
                0,
                sentence.annotators[chosen].annotator,
                Counts(own.correct, own.proposed - own.correct, own.gold - own.correct),
                p,
                r,
                f,
            )
        )
    return total, scores


def signature(
    provider: EditWeightProvider, *, level: str, beta: float, max_unchanged_words: int
) -> Signature:
    return Signature(
        METRIC_NAME,
        VERSION,
        (
            ("base", "m2" if level == "corpus" else "sentm2"),
            ("level", level),
            ("beta", f"{beta:g}"),
            ("max_unchanged_words", str(max_unchanged_words)),
            ("edits", "maxmatch-lattice(m2scorer-3.2)"),
            ("selection", "greedy-running-f" if level == "corpus" else "best-f-per-sentence"),
            (provider.signature, None),
        ),
    )


def _result(
    sentences: Sequence[LatticeSentence],
    weights: Sequence[list[dict[ProposedEdit, float]]],
    provider: EditWeightProvider,
    *,
    level: str,
    beta: float,
    max_unchanged_words: int,
) -> PTM2Result:
    total, scores = score_lattice_sentences(sentences, weights, level=level, beta=beta)
    if level == "corpus":
        p, r, f = precision_recall_f(
            total.correct, total.proposed, total.gold, beta, convention="m2scorer"
        )
    else:
        n = len(scores)
        p = sum(s.p for s in scores) / n if n else 0.0
        r = sum(s.r for s in scores) / n if n else 0.0
        f = sum(s.f for s in scores) / n if n else 0.0
    return PTM2Result(
        level=level,
        tp=total.correct,
        fp=total.proposed - total.correct,
        fn=total.gold - total.correct,
        p=p,
        r=r,
        f=f,
        beta=beta,
        signature=signature(
            provider, level=level, beta=beta, max_unchanged_words=max_unchanged_words
        ).text,
        sentences=scores,
    )


def score_ptm2_m2_levels(
    hypotheses: Sequence[str],
    gold_blocks: Sequence[M2Block],
    provider: EditWeightProvider,
    *,
    levels: Sequence[str] = LEVELS,
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> tuple[dict[str, PTM2Result], list[int]]:
    """PT-M2 of raw hypothesis lines against a gold M2 at each level, from ONE set of
    weights; also the 0-based indices of the sentences whose lattice was bounded (empty: the
    edits are exactly m2scorer's).

    corpus (``--base m2``): P, R, F of the weighted sums over the chosen annotators.
    sentence (``--base sentm2``): the mean F over every sentence (P and R likewise);
    tp/fp/fn are the sums of the chosen weighted counts in both cases.
    """
    for level in levels:
        if level not in LEVELS:
            raise OptionError(f"level must be one of {LEVELS}, got {level!r}")
    sentences = lattice_sentences(
        hypotheses, gold_blocks, max_unchanged_words=max_unchanged_words, max_arcs=max_arcs
    )
    weights = compute_weights(sentences, provider, progress=progress, chunk_size=chunk_size)
    results = {
        level: _result(
            sentences,
            weights,
            provider,
            level=level,
            beta=beta,
            max_unchanged_words=max_unchanged_words,
        )
        for level in levels
    }
    return results, [i for i, sentence in enumerate(sentences) if sentence.bounded]


def score_ptm2_m2(
    hypotheses: Sequence[str],
    gold_blocks: Sequence[M2Block],
    provider: EditWeightProvider,
    *,
    level: str = "corpus",
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
    progress: ProgressCallback | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> tuple[PTM2Result, list[int]]:
    """One level of `score_ptm2_m2_levels`: PT-M2 and the bounded sentences."""
    results, bounded = score_ptm2_m2_levels(
        hypotheses,
        gold_blocks,
        provider,
        levels=(level,),
        beta=beta,
        max_unchanged_words=max_unchanged_words,
        max_arcs=max_arcs,
        progress=progress,
        chunk_size=chunk_size,
    )
    return results[level], bounded
