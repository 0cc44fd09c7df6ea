"""M2 (MaxMatch) scores, corpus and sentence level, with m2scorer 3.2's counts.

* Gold: per block, one gold edit list per annotator id present in the block (an annotator
  whose only ``A`` line is ``noop`` or another ``-1 -1`` line is present with no edit); a block
  without ``A`` lines has one empty annotator 0. Annotators are tried in increasing id order
  (m2scorer iterates a Python 2 dict of small int keys, which is that order).
* Per sentence the annotator maximising the F of (running corpus counts + this sentence) is
  chosen; F is ``(1+b^2)c / (b^2 g + e)`` on the cumulative counts (1.0 when the denominator is
  0 and c is 0); ties: more correct, then smaller ``proposed + b^2 gold``; then the first.
* Corpus P = c/e (1.0 when e = 0), R = c/g (1.0 when g = 0), F from P and R (0 when 0/0):
  ``gecscore.counts`` with its ``m2scorer`` convention. The choosing F above is not a P/R/F
  but m2scorer's ``comp_f1`` on counts, kept here as ``_cumulative_f``.
* SentM2: per sentence the best F over annotators of that sentence's counts alone, averaged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from gecscore.counts import ZERO, Counts
from gecscore.errors import InputError, Unavailable
from gecscore.m2 import NONE_CORRECTION, NOOP_TYPE, M2Block
from gecscore.maxmatch.lattice import build_lattice
from gecscore.maxmatch.matching import (
    GoldEdit,
    ProposedEdit,
    annotator_weights,
    best_edit_sequence,
    count_matches,
    prepare,
)
from gecscore.metric import (
    Gold,
    Hypotheses,
    Metric,
    MetricConfig,
    References,
    Result,
    SentenceScore,
    check_corpus,
    counted_result,
)
from gecscore.options import check_beta, check_count
from gecscore.signature import COLON, Signature

__all__ = [
    "DEFAULT_MAX_ARCS",
    "M2",
    "AnnotatorOrder",
    "M2Config",
    "M2Result",
    "SentM2",
    "SentenceM2",
    "format_m2scorer",
    "gold_edits_by_annotator",
    "gold_from_references",
    "m2_result",
    "score",
    "score_systems",
    "sentence_counts",
    "sentence_sequences",
]

AnnotatorOrder = Literal["id", "appearance"]

METRIC_NAME = "m2score"
METRIC_VERSION = "m2scorer-3.2"
# Transitive arcs per sentence before the closure stops (about 1 s of work). The 13 CoNLL-14
# systems need at most a few thousand; see docs/metrics/m2score.md.
DEFAULT_MAX_ARCS = 300_000


def _cumulative_f(tp: int, proposed: int, gold: int, beta: float) -> float:
    # m2scorer's comp_f1: computed from counts, not from P and R.
    denominator = beta * beta * gold + proposed
    if denominator == 0:
        return 1.0 if tp == 0 else 0.0
    return (1 + beta * beta) * tp / denominator


@dataclass(frozen=True)
class SentenceM2:
    """One sentence: the counts of every annotator (in id order) and the corpus choice."""

    annotators: tuple[int, ...]
    counts: tuple[Counts[int], ...]
    chosen: int  # index into annotators / counts
    bounded: bool = False  # the lattice hit the arc budget: counts may differ from m2scorer


@dataclass(frozen=True)
class M2Result:
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f: float
    beta: float
    sentence_f: list[float]  # per sentence, best F over annotators (SentM2 inputs)
    sentences: list[SentenceM2] = field(repr=False)
    max_unchanged_words: int = 2
    ignore_whitespace_casing: bool = False

    @property
    def bounded_sentences(self) -> list[int]:
        """0-based indices of sentences scored on a bounded lattice (empty: all exact)."""
        return [i for i, sentence in enumerate(self.sentences) if sentence.bounded]

    @property
    def exact(self) -> bool:
        return not any(sentence.bounded for sentence in self.sentences)

    @property
    def counts(self) -> Counts[int]:
        return Counts(self.tp, self.fp, self.fn)

    @property
    def sent_f(self) -> float:
        """SentM2: the mean of ``sentence_f`` (0.0 for no sentence)."""
        return sum(self.sentence_f) / len(self.sentence_f) if self.sentence_f else 0.0

    @property
    def signature(self) -> str:
        return self.signature_named(METRIC_NAME)

    def signature_named(self, metric: str) -> str:
        """The signature with ``metric`` as its name: ``m2score`` (M2, the ``m2score``
        command) or ``sentm2`` (SentM2's, so that its number has a signature of its own)."""
        return Signature(
            metric,
            METRIC_VERSION,
            (
                ("beta", str(self.beta)),
                ("max_unchanged_words", str(self.max_unchanged_words)),
                (
                    "case",
                    "whitespace-case-ignored" if self.ignore_whitespace_casing else "sensitive",
                ),
            ),
            style=COLON,
        ).text


def gold_edits_by_annotator(
    block: M2Block, *, order: AnnotatorOrder = "id"
) -> dict[int, list[GoldEdit]]:
    """The gold edits of one block per annotator id, as m2scorer reads them.

    As m2scorer 3.2's ``load_annotation``: an edit whose span lies beyond the sentence
    (``read_m2(..., beyond_source=[...])`` keeps such edits) is left out, and its annotator
    stays, with no edit if it had no other (so it asks for the source unchanged); a ``noop``
    or ``-1 -1`` line makes its annotator present with no edit; a block with no ``A`` line has
    one empty annotator 0. ``order``: annotators by increasing id (m2scorer 3.2, whose Python 2
    dict of small ints iterates that way), or ``"appearance"``, in the order they first appear
    in the block (PT-M2, a Python 3 dict). The first of equally good annotators is chosen, so
    the order is part of each metric.
    """
    tokens = block.source.split()
    n_tokens = len(tokens)
    annotators: dict[int, list[GoldEdit]] = {}
    for edit in block.edits:
        edits = annotators.setdefault(edit.annotator, [])
        if edit.type == NOOP_TYPE or edit.start < 0 or edit.end < 0 or edit.end > n_tokens:
            continue
        corrections = tuple(
            "" if c == NONE_CORRECTION else c.strip() for c in edit.correction.split("||")
        )
        edits.append((edit.start, edit.end, " ".join(tokens[edit.start : edit.end]), corrections))
    if not annotators:
        annotators[0] = []
    return annotators if order == "appearance" else dict(sorted(annotators.items()))


def _changes_more_than_whitespace_case(edit: ProposedEdit) -> bool:
    # m2scorer's equals_ignore_whitespace_casing, negated: only spaces and case are ignored.
    return edit[2].replace(" ", "").lower() != edit[3].replace(" ", "").lower()


def sentence_sequences(
    source: str,
    hypothesis: str,
    gold: dict[int, list[GoldEdit]],
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
    ignore_whitespace_casing: bool = False,
) -> tuple[dict[int, list[ProposedEdit]], bool]:
    """The edits proposed against each annotator (m2scorer's ``editSeq``: last edit first),
    and whether the lattice was bounded. ``ignore_whitespace_casing`` drops the edits that
    change only spaces or case (m2scorer's ``--ignore_whitespace_casing``)."""
    source_tokens = source.split()
    hypothesis_tokens = hypothesis.split()
    if source_tokens == hypothesis_tokens:
        # Every lattice edge is an unchanged token: no edit is ever proposed.
        return {a: [] for a in gold}, False
    lattice = build_lattice(source_tokens, hypothesis_tokens, max_unchanged_words, max_arcs)
    weighted = prepare(lattice)
    result: dict[int, list[ProposedEdit]] = {}
    for annotator, edits in gold.items():
        sequence = best_edit_sequence(lattice, annotator_weights(weighted, edits))
        if ignore_whitespace_casing:
            sequence = [e for e in sequence if _changes_more_than_whitespace_case(e)]
        result[annotator] = sequence
    return result, lattice.bounded


def sentence_counts(
    source: str,
    hypothesis: str,
    gold: dict[int, list[GoldEdit]],
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
    ignore_whitespace_casing: bool = False,
) -> tuple[dict[int, Counts[int]], bool]:
    """Counts of one sentence against each annotator, and whether the lattice was bounded."""
    sequences, bounded = sentence_sequences(
        source, hypothesis, gold, max_unchanged_words, max_arcs, ignore_whitespace_casing
    )
    return {
        annotator: Counts.from_totals(
            count_matches(sequence, gold[annotator]), len(sequence), len(gold[annotator])
        )
        for annotator, sequence in sequences.items()
    }, bounded


# Called per sentence by ``score(observer=...)``: the sentence index, its gold block, the
# stripped hypothesis, the annotator ids, their edit sequences and counts (in id order), the
# corpus counts before the sentence and the index of the chosen annotator.
if TYPE_CHECKING:
    SentenceObserver = Callable[
        [
            int,
            M2Block,
            str,
            tuple[int, ...],
            list[list[ProposedEdit]],
            tuple[Counts[int], ...],
            Counts[int],
            int,
        ],
        None,
    ]


def _sentence_f(counts: Counts[int], beta: float) -> float:
    return counts.f_score(beta, convention="m2scorer")


def _best_annotator(total: Counts[int], counts: Sequence[Counts[int]], beta: float) -> int:
    """m2scorer's choice of annotator for a sentence: the highest cumulative F, then the most
    TP, then the fewest proposed + beta^2 gold edits; the first on a full tie."""
    sq_beta = beta * beta
    best_index = -1
    best_f = -1.0
    best_tp = -1
    best_size = float("inf")
    for index, c in enumerate(counts):
        tp, proposed, n_gold = total.tp + c.tp, total.proposed + c.proposed, total.gold + c.gold
        f = _cumulative_f(tp, proposed, n_gold, beta)
        size = proposed + sq_beta * n_gold
        if (
            best_f < f
            or (best_f == f and best_tp < tp)
            or (best_f == f and best_tp == tp and best_size > size)
        ):
            best_index, best_f, best_tp, best_size = index, f, tp, size
    return best_index


def score(
    hypotheses: Sequence[str],
    gold_blocks: Sequence[M2Block],
    *,
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
    gold: Sequence[dict[int, list[GoldEdit]]] | None = None,
    ignore_whitespace_casing: bool = False,
    observer: SentenceObserver | None = None,
) -> M2Result:
    """Score one system: one hypothesis line per gold block (surrounding spaces ignored).

    ``gold`` may pass ``gold_edits_by_annotator`` of every block, computed once for many systems.
    ``ignore_whitespace_casing``: m2scorer's flag (see ``sentence_sequences``); ``observer``
    sees every sentence's sequences and choice (m2scorer's ``-v``, ``SentenceObserver``).
    """
    if gold is None:
        gold = [gold_edits_by_annotator(block) for block in gold_blocks]
    if len(hypotheses) != len(gold_blocks):
        raise InputError(
            f"{len(hypotheses)} hypothesis lines for {len(gold_blocks)} gold sentences"
        )
    total = ZERO
    sentences: list[SentenceM2] = []
    sentence_f: list[float] = []
    for hypothesis, block, block_gold in zip(hypotheses, gold_blocks, gold, strict=True):
        hypothesis = hypothesis.strip()
        sequences, bounded = sentence_sequences(
            block.source,
            hypothesis,
            block_gold,
            max_unchanged_words,
            max_arcs,
            ignore_whitespace_casing,
        )
        annotators = tuple(sequences)
        counts = tuple(
            Counts.from_totals(count_matches(seq, block_gold[a]), len(seq), len(block_gold[a]))
            for a, seq in sequences.items()
        )
        best_index = _best_annotator(total, counts, beta)
        if observer is not None:
            observer(
                len(sentences),
                block,
                hypothesis,
                annotators,
                list(sequences.values()),
                counts,
                total,
                best_index,
            )
        total = total + counts[best_index]
        sentences.append(SentenceM2(annotators, counts, best_index, bounded))
        sentence_f.append(max(_sentence_f(c, beta) for c in counts))
    p, r, f = total.prf(beta, convention="m2scorer")
    return M2Result(
        total.tp,
        total.fp,
        total.fn,
        p,
        r,
        f,
        beta,
        sentence_f,
        sentences,
        max_unchanged_words,
        ignore_whitespace_casing,
    )


def score_systems(
    hyp_lines_by_system: dict[str, list[str]],
    gold_blocks: Sequence[M2Block],
    *,
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    max_arcs: int | None = DEFAULT_MAX_ARCS,
) -> dict[str, M2Result]:
    """Score several systems against the same gold blocks (one result per system name)."""
    gold = [gold_edits_by_annotator(block) for block in gold_blocks]
    return {
        name: score(
            lines,
            gold_blocks,
            beta=beta,
            max_unchanged_words=max_unchanged_words,
            max_arcs=max_arcs,
            gold=gold,
        )
        for name, lines in hyp_lines_by_system.items()
    }


def format_m2scorer(result: M2Result) -> str:
    """m2scorer 3.2's output for the result, byte for byte."""
    return (
        f"Precision   : {result.p:.4f}\n"
        f"Recall      : {result.r:.4f}\n"
        f"F_{result.beta:.1f}       : {result.f:.4f}\n"
    )


@dataclass(frozen=True)
class M2Config(MetricConfig):
    """m2scorer 3.2's options (its defaults) and the lattice budget."""

    beta: float = 0.5
    max_unchanged_words: int = 2
    max_arcs: int | None = DEFAULT_MAX_ARCS  # None: no limit (see docs/metrics/m2score.md)

    def __post_init__(self) -> None:
        check_beta(self.beta)
        check_count(self.max_unchanged_words, "max_unchanged_words", 0)
        check_count(self.max_arcs, "max_arcs", 0, optional=True)


def gold_from_references(sources: Sequence[str], references: References) -> Sequence[M2Block]:
    """Gold M2 blocks of ``references``: a ``Gold`` as it is, text through ERRANT's extractor."""
    if isinstance(references, Gold):
        return references
    # Text references become edits the way errant_parallel finds them (the English extractor).
    from gecscore.english.errant_edits import EnglishModelMissing, parallel_to_m2_blocks

    for i, source in enumerate(sources):
        if not source.strip():
            raise InputError(f"sentence {i + 1}: empty source")
    try:
        return parallel_to_m2_blocks(sources, references)
    except EnglishModelMissing as exc:
        raise Unavailable(
            "M2 scores against gold edits: pass references=Gold(read_m2(GOLD.m2)), or install "
            f"the English extractor to turn text references into edits ({exc})"
        ) from None


class M2(Metric):
    """M2 (MaxMatch, m2scorer 3.2): corpus F-beta from the summed counts of the annotator
    chosen per sentence. Hypotheses are text (one tokenised line each); references ``Gold``,
    or text when the English extractor is installed. ``sentences``: each sentence's best F
    over its annotators (SentM2's terms) with the chosen annotator's (TP, FP, FN);
    ``details``: ``bounded_sentences`` (lattice budget hit) and ``max_unchanged_words``."""

    name = "m2"
    Config = M2Config

    def _score(
        self, sources: Sequence[str], hypotheses: Hypotheses, references: References
    ) -> M2Result:
        check_corpus(sources, hypotheses, references)
        if isinstance(hypotheses, Gold):
            raise InputError("M2 takes the system's corrected text, not its M2 edits")
        config = self.config
        assert isinstance(config, M2Config)
        return score(
            hypotheses,
            gold_from_references(sources, references),
            beta=config.beta,
            max_unchanged_words=config.max_unchanged_words,
            max_arcs=config.max_arcs,
        )

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        return m2_result(self._score(sources, hypotheses, references))


def m2_result(result: M2Result, *, sentence_level: bool = False) -> Result:
    """The ``m2`` Result of an M2 score, or (``sentence_level``) the ``sentm2`` one: what
    ``M2``/``SentM2`` and ``m2score [--sentence] --json`` return. ``sentences``: each
    sentence's best F over its annotators with the chosen annotator's (TP, FP, FN)."""
    sentences = tuple(
        SentenceScore(f, _counts_tuple(sentence.counts[sentence.chosen]))
        for f, sentence in zip(result.sentence_f, result.sentences, strict=True)
    )
    details = {
        "bounded_sentences": result.bounded_sentences,
        "exact": result.exact,
        "max_unchanged_words": result.max_unchanged_words,
    }
    if not sentence_level:
        return counted_result("m2", result, beta=result.beta, sentences=sentences, details=details)
    # SentM2: the mean of the sentence F's; P/R/counts are not what it is made of.
    return Result(
        metric="sentm2",
        score=result.sent_f,
        signature=result.signature_named("sentm2"),
        beta=result.beta,
        f=result.sent_f,
        sentences=sentences,
        details={"m2": result.f, **details},
    )


def _counts_tuple(counts: Counts[int]) -> tuple[float, float, float]:
    return (counts.tp, counts.fp, counts.fn)


class SentM2(M2):
    """SentM2: the mean over sentences of each sentence's best F (m2scorer's counts); the
    signature is M2's named ``sentm2`` (the same computation, another number).
    ``precision``/``recall``/``counts`` are left out (the score is not made from them);
    ``details`` adds the corpus M2 F as ``m2``."""

    name = "sentm2"

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        return m2_result(self._score(sources, hypotheses, references), sentence_level=True)
