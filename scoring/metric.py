"""The Django app's one doorway into the metric library `gecscore`.

Nothing here computes a metric: it calls the library's public API (``from gecscore import
...``: metrics by ``get_metric(name)(Config).score_corpus(...)`` -> ``Result``, and ChERRANT's
comparison ``compare_m2``, whose per-sentence chosen reference the highlighting needs) and
turns the results into the plain JSON the app stores (overall, M/R/S/W, detection modes,
reference-count curve, per source, per sentence with labelled edits). Kept free of Django so
the management command, the services and the benchmark share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gecscore import (
    NO_ERROR_TEXT,
    NOT_ANNOTATABLE_TEXT,
    CompareResult,
    Counts,
    Edit,
    Gold,
    M2Block,
    Resources,
    annotate_sentence,
    compare_m2,
    extract_edits,
    get_metric,
    load_resources,
    normalize_source,
    parse_m2,
    tokenize,
    write_m2,
)

__all__ = [
    "M2Block",
    "NOT_ANNOTATABLE_TEXT",
    "NO_ERROR_TEXT",
    "Resources",
    "ScoreReport",
    "blocks_to_text",
    "corpus_counts",
    "extract",
    "full_report",
    "green_metric",
    "load_resources",
    "parse_m2",
    "reference_columns",
    "sentence_block",
    "source_tokens",
]

GRANULARITY = "char"
CATEGORY_NAMES = ("M", "R", "S", "W")
DETECTION_MODES = ("ds", "dt")
# MuCGEC's Figure 3 plots the first 1, 2, 3 references and then all of them; the full
# k = 1 .. max curve is stored beside it (`ref_count_curve_by_k`).
CURVE_FIRST_K = 3


def sentence_block(source: str, targets: Sequence[str], *, resources: Resources) -> M2Block:
    """ChERRANT's M2 block of one sentence (strategy `all`, targets -> simplified)."""
    block, _ = annotate_sentence(
        source, list(targets), resources=resources, granularity=GRANULARITY
    )
    return block


def blocks_to_text(blocks: Sequence[M2Block]) -> str:
    return write_m2(blocks)


def source_tokens(text: str) -> list[str]:
    return tokenize(normalize_source(text), GRANULARITY)


def extract(source: str, target: str, *, resources: Resources) -> list[Edit]:
    return extract_edits(source, target, granularity=GRANULARITY, resources=resources)


def _as_dict(result: CompareResult) -> dict[str, Any]:
    return {
        "tp": result.tp,
        "fp": result.fp,
        "fn": result.fn,
        "p": result.p,
        "r": result.r,
        "f05": result.f,
    }


def corpus_counts(
    hyp_blocks: Sequence[M2Block], ref_blocks: Sequence[M2Block], *, max_refs: int | None = None
) -> dict[str, Any]:
    """tp/fp/fn/p/r/f05 of the library's default comparison (optionally first-k references)."""
    return _as_dict(compare_m2(hyp_blocks, ref_blocks, max_refs=max_refs))


@dataclass
class SentenceOutcome:
    tp: int
    fp: int
    fn: int
    chosen_reference: int  # reference annotator id chosen by the comparison; -1 when skipped
    edits: list[dict[str, Any]]


@dataclass
class ScoreReport:
    overall: dict[str, Any]
    categories: dict[str, dict[str, Any]]
    detection: dict[str, dict[str, Any]]
    ref_count_curve: list[float]
    ref_count_curve_by_k: dict[str, float]
    by_source: dict[str, dict[str, Any]]
    sentences: list[SentenceOutcome]
    signature: str
    max_references: int
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """What the app stores in SystemScore.summary (and `score_system --json` prints)."""
        return {
            "categories": self.categories,
            "detection": self.detection,
            "ref_count_curve": self.ref_count_curve,
            "ref_count_curve_by_k": self.ref_count_curve_by_k,
            "by_source": self.by_source,
            "max_references": self.max_references,
            "signature": self.signature,
            "extra": self.extra,
        }


def _keyed(block: M2Block, annotator: int | None) -> dict[tuple[int, int, str], tuple[str, str]]:
    """Edits of one annotator of a block (alternative alignments unioned), keyed as the
    default comparison keys them; value = (type, correction). Markers are left out."""
    keyed: dict[tuple[int, int, str], tuple[str, str]] = {}
    for edit in block.edits:
        if annotator is not None and edit.annotator != annotator:
            continue
        if edit.type in ("noop", "NA") or edit.start < 0:
            continue
        correction = "" if edit.correction == "-NONE-" else edit.correction.replace(" ", "")
        keyed.setdefault(
            (edit.start, edit.end, edit.correction.replace(" ", "")), (edit.type, correction)
        )
    return keyed


def labelled_edits(
    hyp_block: M2Block, ref_block: M2Block, ref_annotator: int | None
) -> list[dict[str, Any]]:
    """Hypothesis edits labelled TP/FP and the chosen reference's missed edits (FN), for
    highlighting. The labels follow the comparison's keys; the counts shown beside them are
    the comparison's own (alternative alignments can count an edit more than once)."""
    hyp = _keyed(hyp_block, None)
    ref = _keyed(ref_block, ref_annotator) if ref_annotator is not None else {}
    return label_keyed_edits(
        hyp, ref, hyp_block.source_tokens, joiner="", skipped=ref_annotator is None
    )


def label_keyed_edits(
    hyp: dict[tuple[int, int, str], tuple[str, str]],
    ref: dict[tuple[int, int, str], tuple[str, str]],
    tokens: Sequence[str],
    *,
    joiner: str,
    skipped: bool = False,
) -> list[dict[str, Any]]:
    """The highlighting rows of a sentence from its keyed edits ({(start, end, key):
    (type, target)}, as each language's comparison keys them): hypothesis edits TP or FP
    (``skipped`` when no reference was chosen), then the reference's missed edits FN; the
    source span's tokens joined with ``joiner``."""
    out: list[dict[str, Any]] = []
    for key, (edit_type, correction) in sorted(hyp.items()):
        start, end, _ = key
        out.append(
            {
                "start": start,
                "end": end,
                "source": joiner.join(tokens[start:end]),
                "target": correction,
                "type": edit_type,
                "label": "skipped" if skipped else "TP" if key in ref else "FP",
            }
        )
    for key, (edit_type, correction) in sorted(ref.items()):
        if key not in hyp:
            start, end, _ = key
            out.append(
                {
                    "start": start,
                    "end": end,
                    "source": joiner.join(tokens[start:end]),
                    "target": correction,
                    "type": edit_type,
                    "label": "FN",
                }
            )
    return out


def curve_points(by_k: dict[str, float], first_k: int = CURVE_FIRST_K) -> list[float]:
    """F0.5 for the first 1 .. first_k references (those that exist), then all."""
    points = [by_k[str(k)] for k in range(1, first_k + 1) if str(k) in by_k]
    points.append(by_k["all"])
    return points


def _annotators(block: M2Block) -> int:
    return len({target.annotator for target in block.targets})


CHUNK_METRICS = ("cleme", "cleme2")
# by_source key of sentences imported without a source name.
NO_SOURCE = "(none)"


def chunk_metrics(hyp_blocks: Sequence[M2Block], ref_blocks: Sequence[M2Block]) -> dict[str, Any]:
    """CLEME (v1.0, corpus, dependent, length-weighted) and CLEME2.0 (corpus, unweighted,
    dependent: the four aspects and the score) from the same M2 blocks, by the library's
    defaults, each with its sentence-level scores (``sentences``: what TrueSkill / Expected
    Wins rank on the meta-evaluation page). Model-weighted CLEME2.0-sim is gpu-queue work
    and is not computed here."""
    hyps, refs = Gold(hyp_blocks), Gold(ref_blocks)
    v1 = get_metric("cleme")().score_corpus(refs.sources, hyps, refs)
    v2 = get_metric("cleme2")().score_corpus(refs.sources, hyps, refs)
    return {
        "cleme": {
            # CLEME's P/R are 4-decimal (v1.0 rounds them); rounding keeps the stored value.
            "p": round(v1.precision or 0.0, 4),
            "r": round(v1.recall or 0.0, 4),
            "f05": round(v1.score, 4),
            "signature": v1.signature,
            "sentences": [float(s.score) for s in v1.sentences],
        },
        "cleme2": {
            **{
                aspect: round(v2.details[aspect], 4) for aspect in ("hit", "wrong", "under", "over")
            },
            "score": round(v2.score, 4),
            "signature": v2.signature,
            "sentences": [float(s.score) for s in v2.sentences],
        },
    }


def reference_columns(
    sources: Sequence[str], references: Sequence[Sequence[str]]
) -> list[list[str]]:
    """Reference sets (``columns[k][i]``) for the metrics that score against text (GLEU,
    GREEN): every sentence needs one text per column, so a sentence with fewer references
    repeats its first (as the CoNLL-14 reference files do); markers count as the source
    unchanged."""
    width = max((len(refs) for refs in references), default=1) or 1
    columns: list[list[str]] = [[] for _ in range(width)]
    for source, refs in zip(sources, references, strict=True):
        texts = [
            source if text in (NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT) else text for text in refs
        ] or [source]
        for k in range(width):
            columns[k].append(texts[k] if k < len(texts) else texts[0])
    return columns


def green_metric(
    *,
    sources: Sequence[str],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    unit: str,
) -> dict[str, Any]:
    """``summary["extra"]["green"]``: GREEN (gec-metrics' defaults: n 4, beta 2) in ``unit``
    units (words for English, characters for Chinese) against the release's references. A
    repeated reference changes nothing (each sentence takes its first best one)."""
    green = get_metric("green")
    config = green.Config(unit=unit)  # type: ignore[call-arg]
    result = green(config).score_corpus(sources, hypotheses, reference_columns(sources, references))
    return {
        "green": {
            "score": round(result.score, 4),
            "signature": result.signature,
            # For TrueSkill / Expected Wins over sentence scores in meta-evaluation.
            "sentences": [float(sentence.score) for sentence in result.sentences],
        }
    }


def full_report(
    hyp_blocks: Sequence[M2Block],
    ref_blocks: Sequence[M2Block],
    *,
    source_names: Sequence[str],
    resources: Resources,
    with_chunk_metrics: bool = True,
    first_k_curve: bool = True,
) -> ScoreReport:
    """Everything the system page shows, from the library's comparison:
    overall (correction mode), M/R/S/W (cat 1), detection (ds, dt), first-k curve
    (k = 1 .. max references - 1, then all), per source (each source compared as its own
    corpus, like scoring that subset's files), per sentence with labelled edits."""
    extraction = (
        ("granularity", GRANULARITY),
        ("simplified", "1"),
        ("resources", resources.signature),
    )
    main = compare_m2(hyp_blocks, ref_blocks, cat=1, signature_fields=extraction)
    categories = {
        name: {"tp": s.tp, "fp": s.fp, "fn": s.fn, "p": s.p, "r": s.r, "f05": s.f}
        for name, s in main.categories.items()
    }
    for name in CATEGORY_NAMES:
        # A type nobody edited gets the library's own numbers for 0/0/0 (ChERRANT's formula).
        p, r, f = Counts(0, 0, 0).prf(0.5, digits=4)
        categories.setdefault(name, {"tp": 0, "fp": 0, "fn": 0, "p": p, "r": r, "f05": f})
    detection = {
        mode: _as_dict(compare_m2(hyp_blocks, ref_blocks, mode=mode)) for mode in DETECTION_MODES
    }
    max_refs = max((_annotators(block) for block in ref_blocks), default=1)
    # The first-k curve (MuCGEC's Figure 3) is about the golden references' order; a set
    # without one (closest-gold, pooled) skips it: it is most of a report's comparisons.
    curve_ks = range(1, max_refs) if first_k_curve else range(0)
    by_k = {str(k): compare_m2(hyp_blocks, ref_blocks, max_refs=k).f for k in curve_ks}
    by_k["all"] = main.f
    curve = curve_points(by_k)
    groups: dict[str, list[int]] = {}
    for index, name in enumerate(source_names):
        groups.setdefault(name or NO_SOURCE, []).append(index)
    by_source = {}
    for name, indices in sorted(groups.items()):
        result = compare_m2([hyp_blocks[i] for i in indices], [ref_blocks[i] for i in indices])
        by_source[name] = {**_as_dict(result), "sentences": len(indices)}
    sentences = []
    for item, hyp_block, ref_block in zip(main.sentences, hyp_blocks, ref_blocks, strict=True):
        sentences.append(
            SentenceOutcome(
                tp=item.tp,
                fp=item.fp,
                fn=item.fn,
                chosen_reference=-1 if item.ref_annotator is None else item.ref_annotator,
                edits=labelled_edits(hyp_block, ref_block, item.ref_annotator),
            )
        )
    return ScoreReport(
        overall=_as_dict(main),
        categories=categories,
        detection=detection,
        ref_count_curve=curve,
        ref_count_curve_by_k=by_k,
        by_source=by_source,
        sentences=sentences,
        signature=main.signature,
        max_references=max_refs,
        extra=chunk_metrics(hyp_blocks, ref_blocks) if with_chunk_metrics else {},
    )
