"""English system scores: the Django app's doorway into the library's English metrics.

The hypotheses get ERRANT edits from the same extractor as the release's reference M2
(`gecscore.parallel_to_m2_blocks`); the report's main numbers are ERRANT's span-based
correction scores (errant_compare's default), with M/R/U categories (`-cat 1`) and the
detection modes beside them, and under ``extra`` the classic metrics a paper reports: M2
(MaxMatch, m2scorer 3.2 semantics, against the release's ERRANT M2 as gold), SentM2, GLEU
(Python-2-compatible draw), GREEN (word units) and CLEME / CLEME2.0 on the same M2 blocks. Kept free of Django,
like scoring/metric.py, whose ScoreReport it fills.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gecscore import (
    CompareOptions,
    ErrantResult,
    Gold,
    M2Block,
    compare_blocks,
    get_metric,
    parallel_to_m2_blocks,
)

if TYPE_CHECKING:
    # Types only: the edit-weight provider the gpu queue builds (gecscore.make_provider).
    from gecscore.weights.base import EditWeightProvider, ProgressCallback

from scoring.metric import (
    NO_SOURCE,
    ScoreReport,
    SentenceOutcome,
    chunk_metrics,
    curve_points,
    green_metric,
    label_keyed_edits,
    reference_columns,
)

DETECTION_MODES = ("ds", "dt")


def _as_dict(result: ErrantResult) -> dict[str, Any]:
    return {
        "tp": result.tp,
        "fp": result.fp,
        "fn": result.fn,
        "p": result.p,
        "r": result.r,
        "f05": result.f,
    }


def source_tokens(text: str) -> list[str]:
    """The words ERRANT's spans index: the source split on whitespace (errant_parallel and
    `parallel_to_m2_blocks` tokenise the stripped line the same way)."""
    return text.split()


def hypothesis_blocks(sources: Sequence[str], hypotheses: Sequence[str]) -> list[M2Block]:
    """ERRANT M2 blocks of one system's hypotheses (one annotator)."""
    return parallel_to_m2_blocks(sources, [hypotheses])


def labelled_edits(
    hyp_block: M2Block, ref_block: M2Block, ref_annotator: int | None
) -> list[dict[str, Any]]:
    """Hypothesis edits labelled TP/FP and the chosen reference's missed edits (FN)."""

    def keyed(block: M2Block, annotator: int | None) -> dict[tuple[int, int, str], tuple[str, str]]:
        return {
            (edit.start, edit.end, edit.correction): (
                edit.type,
                "" if edit.correction == "-NONE-" else edit.correction,
            )
            for edit in block.edits
            if edit.start >= 0
            and edit.type not in ("noop", "UNK")
            and (annotator is None or edit.annotator == annotator)
        }

    hyp = keyed(hyp_block, None)
    ref = keyed(ref_block, ref_annotator) if ref_annotator is not None else {}
    return label_keyed_edits(hyp, ref, hyp_block.source_tokens, joiner=" ")


def _by_category(
    hyp_blocks: Sequence[M2Block], ref_blocks: Sequence[M2Block], *, cat: int
) -> dict[str, dict[str, Any]]:
    """errant_compare -cat N counts per category, sorted by name."""
    result = compare_blocks(hyp_blocks, ref_blocks, CompareOptions(cat=cat))
    return {
        name: {"tp": s.tp, "fp": s.fp, "fn": s.fn, "p": s.p, "r": s.r, "f05": s.f}
        for name, s in sorted(result.categories.items())
    }


def first_k_scores(
    hyp_blocks: Sequence[M2Block], ref_blocks: Sequence[M2Block], max_refs: int, *, all_f: float
) -> dict[str, float]:
    """ERRANT F0.5 against the first k references of each sentence (annotators 0..k-1), k = 1
    .. max_refs - 1, and "all" (English pages used to show only the "All" bar)."""
    by_k: dict[str, float] = {}
    for k in range(1, max_refs):
        firsts = [
            M2Block(block.source, [t for t in block.targets if t.annotator < k], block.line)
            for block in ref_blocks
        ]
        by_k[str(k)] = compare_blocks(hyp_blocks, firsts, CompareOptions()).f
    by_k["all"] = all_f
    return by_k


def english_report(
    *,
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    ref_blocks: Sequence[M2Block],
    source_names: Sequence[str],
    first_k_curve: bool = True,
) -> ScoreReport:
    """Everything the system page shows for an English release (``first_k_curve`` False: the
    curve only has "all", for reference sets without an order)."""
    hyp_blocks = hypothesis_blocks(sources, hypotheses)
    main = compare_blocks(hyp_blocks, ref_blocks, CompareOptions())
    categories = _by_category(hyp_blocks, ref_blocks, cat=1)
    # ERRANT's main types (`-cat 2`: VERB:TENSE -> VERB, ...) as the exported M2 carries them.
    errant_types = _by_category(hyp_blocks, ref_blocks, cat=2)
    detection = {
        mode: _as_dict(compare_blocks(hyp_blocks, ref_blocks, CompareOptions(mode=mode)))
        for mode in DETECTION_MODES
    }
    groups: dict[str, list[int]] = {}
    for index, name in enumerate(source_names):
        groups.setdefault(name or NO_SOURCE, []).append(index)
    by_source = {
        name: {
            **_as_dict(
                compare_blocks([hyp_blocks[i] for i in indices], [ref_blocks[i] for i in indices])
            ),
            "sentences": len(indices),
        }
        for name, indices in sorted(groups.items())
    }
    sentences = [
        SentenceOutcome(
            tp=item.tp,
            fp=item.fp,
            fn=item.fn,
            chosen_reference=item.ref_annotator,
            edits=labelled_edits(
                hyp_blocks[item.index], ref_blocks[item.index], item.ref_annotator
            ),
        )
        for item in main.sentences
    ]
    extra: dict[str, Any] = {
        **_m2_and_gleu(sources, hypotheses, references, ref_blocks),
        "errant_types": errant_types,
        **green_metric(sources=sources, hypotheses=hypotheses, references=references, unit="word"),
        **chunk_metrics(hyp_blocks, ref_blocks),
    }
    max_refs = max((len({t.annotator for t in block.targets}) for block in ref_blocks), default=1)
    by_k = first_k_scores(hyp_blocks, ref_blocks, max_refs if first_k_curve else 0, all_f=main.f)
    return ScoreReport(
        overall=_as_dict(main),
        categories=categories,
        detection=detection,
        ref_count_curve=curve_points(by_k),
        ref_count_curve_by_k=by_k,
        by_source=by_source,
        sentences=sentences,
        signature=main.signature + "|language=en",
        max_references=max_refs,
        extra=extra,
    )


def _m2_and_gleu(
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    ref_blocks: Sequence[M2Block],
) -> dict[str, Any]:
    """``summary["extra"]["m2"]`` and ``["gleu"]`` of an English score."""
    gold = Gold(ref_blocks)
    m2 = get_metric("m2")().score_corpus(sources, hypotheses, gold)
    gleu = get_metric("gleu")().score_corpus(
        sources, hypotheses, reference_columns(sources, references)
    )
    assert m2.counts is not None and m2.precision is not None and m2.recall is not None
    sentence_f = [s.score for s in m2.sentences]
    tp, fp, fn = m2.counts
    return {
        "m2": {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "p": round(m2.precision, 4),
            "r": round(m2.recall, 4),
            "f05": round(m2.score, 4),
            # SentM2: the mean of the sentences' best F (the library's sentm2, same order).
            "sent_f05": round(sum(sentence_f) / len(sentence_f) if sentence_f else 0.0, 4),
            "exact": not m2.details["bounded_sentences"],
            "signature": m2.signature,
            # Each sentence's best F0.5 (SentM2's inputs): what TrueSkill / Expected Wins
            # rank systems by in meta-evaluation, for m2 and sentm2 alike (the library's
            # `meta system --aggregation`).
            "sentences": [float(f) for f in sentence_f],
        },
        "gleu": {
            "score": round(gleu.score, 4),
            "signature": gleu.signature,
            "sentences": [float(s.score) for s in gleu.sentences],
        },
    }


def english_ptm2(
    *,
    hypotheses: Sequence[str],
    ref_blocks: Sequence[M2Block],
    provider: EditWeightProvider,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """PT-M2 on the MaxMatch lattice for ``summary["extra"]["ptm2"]`` of an English score.

    Against the same gold as the report's M2 (the release's ERRANT M2), with one set of edit
    weights: ``f05`` is the corpus level (PT-M2's ``--base m2``), ``sent_f05`` the sentence
    level the PT-M2 paper recommends (``--base sentm2``). It needs a weight model, so it is
    not part of `english_report`: the weighted-scores task on the `gpu` queue calls it, and
    only when a model is configured (GEC_BERT_MODEL), as for the Chinese PT-M2.
    """
    # Not get_metric("ptm2-m2"): one weighted lattice pass gives both levels (the class would
    # ask the model twice); lazy, only the gpu queue needs it.
    from gecscore.ptm2_m2 import score_ptm2_m2_levels

    results, bounded = score_ptm2_m2_levels(hypotheses, ref_blocks, provider, progress=progress)
    corpus, sentence = results["corpus"], results["sentence"]
    return {
        **corpus.as_dict(),
        "sent_f05": round(sentence.f, 4),
        "base": "m2",
        "exact": not bounded,
        # Per-sentence F (each sentence's best annotators): what TrueSkill / Expected Wins rank.
        "sentences": sentence.sentence_f(len(hypotheses)),
    }
