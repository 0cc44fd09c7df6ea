"""I-measure (Felice & Briscoe 2015), as ``mfelice/imeasure`` @fc79fdf run with ``-nomix``.

The published CoNLL-2014 scores (Chollampatt & Ng 2018, nusnlp/gecmetrics) were made with that
commit: the gold M2 converted by its ``m2_to_ixml.py``, then ``ieval.py -nomix`` with the other
options at their defaults (maximise correction WAcc, optimise per sentence, WAcc weight 2,
F beta 1). ``-nomix`` is what reproduces them: the default (mixing annotators) builds the
cartesian product of every error's alternatives, 3.5e13 candidate references for sentence 333
of CoNLL-2014, and never finishes; the published INPUT sentence scores also agree with
``-nomix`` on all 1,312 sentences and with mixing on only 1,210.

What one sentence gets (all reproduced here):

* Candidate references: one per annotator who has edits (that annotator's corrections applied
  to the source, from the last span to the first; an edit that would empty the sentence is
  skipped), plus the source itself when the block has no ``A`` line at all or an annotator has
  only a ``noop`` line. Identical texts are one candidate. Candidates are tried in the order of
  a Python 2 dict keyed by their text, because the first of equally good ones is kept.
* Corrections are tokenised as ``m2_to_ixml.py`` does with NLTK's ``word_tokenize``; only the
  rules of it that can change an already tokenised M2 correction are applied (a ``,`` or ``:``
  before a non-digit, a final ``.``, ``...``, ``;@#$%&?!``, brackets and ``--`` are split off).
* Alignment: the exact three-way sum-of-pairs alignment of source, hypothesis and reference
  (match 0, mismatch 3, gap 2 per pair), or the two-way one when two of the three are equal
  (source = hypothesis or source = reference; hypothesis = reference still takes the three-way
  path, as in the reference code), with its back-trace preferences, so ties between alignments
  are broken the same way.
* Each column counts for detection and correction: TP, TN, FP, FN and FPN (a changed token that
  the reference changes differently is an FP, an FN and an FPN for correction, a TP for
  detection). ``WAcc = (w TP + TN) / (w (TP + FP) + TN + FN - (w + 1) FPN / 2)``;
  the baseline is the same with the source as hypothesis; ``I`` is the relative improvement of
  the system's WAcc over the baseline's, in [-1, 1] (``floor(WAcc)`` when they are equal).
* The reference kept is the one with the highest correction WAcc (ties: I, accuracy, then the
  same for detection), per sentence (``optimise="sentence"``, default) or for the running corpus
  totals (``optimise="corpus"``). Corpus scores come from the summed counts.

The alignment is computed with numpy, one anti-diagonal of (source, hypothesis) positions at a
time, for batches of similar tables; big tables only where an optimal alignment can pass
(Carrillo-Lipman bound). A suffix shared by the three texts is matched directly (an optimal
alignment always matches it, and the back-trace prefers that), and so is a shared prefix (the
counts checked equal, see ``aligner._split``). docs/metrics/imeasure.md has the details.

Modules: ``counts`` (token counts and scores), ``references`` (candidate references of a gold
block), ``aligner`` (the alignment and its counts), ``scorer`` (configuration, results, scoring).
"""

from gecscore.english.imeasure.aligner import (
    Triple,
    align_counts,
    align_counts_many,
    alignment_columns,
)
from gecscore.english.imeasure.counts import (
    ZERO,
    AspectCounts,
    AspectScores,
    SentenceCounts,
    improvement,
)
from gecscore.english.imeasure.references import (
    GoldSentence,
    candidate_references,
    gold_sentences,
    python2_order,
    tokenise_correction,
)
from gecscore.english.imeasure.scorer import (
    METRIC_VERSION,
    OPTIMISE,
    Cache,
    IMeasureConfig,
    IMeasureResult,
    IMeasureSentence,
    Optimise,
    score_corpus,
    score_systems,
)

__all__ = [
    "METRIC_VERSION",
    "OPTIMISE",
    "ZERO",
    "AspectCounts",
    "AspectScores",
    "Cache",
    "GoldSentence",
    "IMeasureConfig",
    "IMeasureResult",
    "IMeasureSentence",
    "Optimise",
    "SentenceCounts",
    "Triple",
    "align_counts",
    "align_counts_many",
    "alignment_columns",
    "candidate_references",
    "gold_sentences",
    "improvement",
    "python2_order",
    "score_corpus",
    "score_systems",
    "tokenise_correction",
]
