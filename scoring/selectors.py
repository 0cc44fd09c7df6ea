"""Read-only queries of the scoring app (leaderboards, system pages, annotator quality, pay)."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Count, QuerySet, Sum

from annotate.models import Assignment, Submission
from core.exceptions import NotFound
from core.models import User
from datasets.models import Dataset, DatasetVersion
from datasets.selectors import get_version
from review.models import ReviewStatus, ReviewTask
from scoring import metric
from scoring.annotator_metric import box_metric, pooled_counts

# The closest-gold contract system scoring reads (kept in its own module for size).
from scoring.closest_gold_selectors import closest_gold_coverage as closest_gold_coverage
from scoring.closest_gold_selectors import closest_golds as closest_golds
from scoring.highlighting import highlight_segments, source_tokens_and_joiner
from scoring.models import (
    AnnotatorSample,
    PayRates,
    ScoreStatus,
    SentenceResult,
    SystemOutput,
    SystemScore,
)


def get_release(dataset: Dataset, number: int | str | None = None) -> DatasetVersion:
    """Release `number` ("3", "v3", "name@v3") of `dataset`, or its newest when None."""
    version = get_version(dataset, number)
    if version is None:
        version = dataset.versions.order_by("-number").first()
    if version is None:
        raise NotFound(
            f"dataset {dataset.name!r} has no release yet; release it first", field="release"
        )
    return version


def releases() -> QuerySet[DatasetVersion]:
    return DatasetVersion.objects.select_related("dataset").order_by("dataset__name", "-number")


def get_system(system_id: int) -> SystemOutput:
    system = SystemOutput.objects.select_related("version__dataset").filter(pk=system_id).first()
    if system is None:
        raise NotFound(f"no system output {system_id}")
    return system


def score_of(system: SystemOutput) -> SystemScore | None:
    return SystemScore.objects.filter(system=system).first()


def scored_system_fields(system: SystemOutput) -> dict[str, Any]:
    """What names the scored system in every score's JSON (golden, closest-gold, pooled)."""
    return {
        "system": system.name,
        "system_id": system.pk,
        "release": system.version.label,
        "sentences": len(system.hypotheses),
    }


def score_payload(score: SystemScore) -> dict[str, Any]:
    """The JSON shape shared by this command and the API."""
    summary = score.summary or {}
    return {
        **scored_system_fields(score.system),
        "tp": score.tp,
        "fp": score.fp,
        "fn": score.fn,
        "p": score.p,
        "r": score.r,
        "f05": score.f05,
        "signature": score.signature,
        "ref_count_curve": summary.get("ref_count_curve", []),
        "ref_count_curve_by_k": summary.get("ref_count_curve_by_k", {}),
        "categories": summary.get("categories", {}),
        "detection": summary.get("detection", {}),
        "by_source": summary.get("by_source", {}),
        "extra": summary.get("extra", {}),
    }


@dataclass
class LeaderboardRow:
    system: SystemOutput
    score: SystemScore | None

    @property
    def scored(self) -> bool:
        return self.score is not None and self.score.status == ScoreStatus.DONE

    def judge(self, name: str) -> dict[str, Any] | None:
        entry = ((self.score.summary or {}).get("extra") or {}).get(name) if self.score else None
        return entry if isinstance(entry, dict) else None

    # The LLM judges' entries (scoring/services/judges.py); the keys' hyphens keep templates
    # from reading them directly.
    @property
    def llm_s(self) -> dict[str, Any] | None:
        return self.judge("llm-s")

    @property
    def llm_e(self) -> dict[str, Any] | None:
        return self.judge("llm-e")


def leaderboard(version: DatasetVersion) -> list[LeaderboardRow]:
    """Every output of the release: scored ones by F0.5 (then P), then the others by name."""
    systems = list(
        SystemOutput.objects.filter(version=version).select_related("score").order_by("name")
    )
    rows = [LeaderboardRow(system, getattr(system, "score", None)) for system in systems]
    scored = [(r, r.score) for r in rows if r.scored and r.score is not None]
    done = [
        r
        for r, s in sorted(scored, key=lambda pair: (-pair[1].f05, -pair[1].p, pair[0].system.name))
    ]
    rest = [r for r in rows if not r.scored]
    return done + rest


def leaderboard_signatures(rows: Sequence[LeaderboardRow]) -> list[str]:
    """Distinct metric signatures on a board: one is the norm; more means mixed settings."""
    return sorted({row.score.signature for row in rows if row.scored and row.score})  # type: ignore[union-attr]


def sentence_results(
    score: SystemScore, *, only: str = "", source_name: str = "", offset: int = 0, limit: int = 50
) -> tuple[list[dict[str, Any]], int]:
    """Per-sentence results with text, hypothesis and labelled edits, for the system page.

    `only`: "" (all), "errors" (some FP or FN), "fp", "fn", "tp".
    """
    results = SentenceResult.objects.filter(score=score)
    if only == "errors":
        results = results.exclude(fp=0, fn=0)
    elif only in ("fp", "fn", "tp"):
        results = results.filter(**{f"{only}__gt": 0})
    if source_name:
        results = results.filter(source_name="" if source_name == metric.NO_SOURCE else source_name)
    total = results.count()
    page = list(results.order_by("position")[offset : offset + limit])
    released = {
        row.position: row
        for row in score.system.version.sentences.filter(position__in=[r.position for r in page])
    }
    hypotheses = score.system.hypotheses
    out = []
    for result in page:
        row = released.get(result.position)
        source_text = row.text if row else ""
        index = _index_of_position(score.system.version, result.position)
        hypothesis = hypotheses[index] if index is not None and index < len(hypotheses) else ""
        tokens, joiner = source_tokens_and_joiner(score.system.version, source_text)
        out.append(
            {
                "result": result,
                "source": source_text,
                "hypothesis": hypothesis,
                "references": list(row.references) if row else [],
                "segments": highlight_segments(tokens, result.edits, joiner),
            }
        )
    return out, total


def _index_of_position(version: DatasetVersion, position: int) -> int | None:
    # Hypotheses are stored in release order; positions may have gaps (a subset release).
    positions = _release_positions(version)
    return positions.get(position)


_POSITIONS_CACHE: dict[int, dict[int, int]] = {}


def _release_positions(version: DatasetVersion) -> dict[int, int]:
    # A release never changes, so its position -> index map is cached for the process.
    cached = _POSITIONS_CACHE.get(version.pk)
    if cached is None:
        ordered = version.sentences.order_by("position").values_list("position", flat=True)
        cached = {position: index for index, position in enumerate(ordered)}
        _POSITIONS_CACHE[version.pk] = cached
    return cached


# --- annotator quality ----------------------------------------------------------------------


@dataclass
class AnnotatorQuality:
    annotator_id: int
    name: str
    sentences: int
    samples: int
    time_spent_seconds: int
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f05: float
    by_source: dict[str, dict[str, Any]] = field(default_factory=dict)


def _samples(dataset: Dataset, *, source_name: str = "") -> QuerySet[AnnotatorSample]:
    samples = AnnotatorSample.objects.filter(sentence__dataset=dataset)
    if source_name:
        samples = samples.filter(sentence__source__name=source_name)
    return samples.select_related("sentence__source", "sentence__dataset", "annotator").order_by(
        "sentence__position", "submission_id", "slot"
    )


class _BlockCache:
    """Parsed M2 blocks by text: all samples of a sentence share one reference block."""

    def __init__(self) -> None:
        self._blocks: dict[str, metric.M2Block] = {}

    def get(self, text: str) -> metric.M2Block:
        block = self._blocks.get(text)
        if block is None:
            block = metric.parse_m2(text, name="stored sample")[0]
            self._blocks[text] = block
        return block


def _counts(
    samples: Sequence[AnnotatorSample], cache: _BlockCache, *, max_refs: int | None = None
) -> dict[str, Any]:
    """Corpus counts of the samples with their dataset language's box metric (ChERRANT
    char-level, ERRANT); samples of both languages (a pay period) are counted apart and
    summed."""
    if not samples:
        return {"tp": 0, "fp": 0, "fn": 0, "p": 1.0, "r": 1.0, "f05": 0.0}
    by_language: dict[str, list[AnnotatorSample]] = defaultdict(list)
    for sample in samples:
        by_language[sample.sentence.dataset.language].append(sample)
    return pooled_counts(
        [
            box_metric(language).counts(
                [cache.get(s.hyp_m2) for s in group],
                [cache.get(s.ref_m2) for s in group],
                max_refs=max_refs,
            )
            for language, group in sorted(by_language.items())
        ]
    )


def annotator_quality(dataset: Dataset, *, source_name: str = "") -> list[AnnotatorQuality]:
    """Per annotator: char F0.5 of every box they submitted against the golden references
    (corpus-level, ChERRANT's greedy best reference in sentence order), per source too;
    sentences annotated and time spent. Ordered by sentences annotated (Figure 2)."""
    cache = _BlockCache()
    by_annotator: dict[int, list[AnnotatorSample]] = defaultdict(list)
    for sample in _samples(dataset, source_name=source_name):
        by_annotator[sample.annotator_id].append(sample)
    assignments = Assignment.objects.filter(sentence__dataset=dataset, status="submitted")
    if source_name:
        assignments = assignments.filter(sentence__source__name=source_name)
    activity = {
        row["annotator"]: row
        for row in assignments.values("annotator").annotate(
            sentences=Count("sentence", distinct=True), seconds=Sum("time_spent_seconds")
        )
    }
    rows = []
    for annotator_id, samples in by_annotator.items():
        counts = _counts(samples, cache)
        per_source: dict[str, list[AnnotatorSample]] = defaultdict(list)
        for sample in samples:
            source = sample.sentence.source
            per_source[source.name if source else metric.NO_SOURCE].append(sample)
        user = samples[0].annotator
        act: dict[str, Any] = dict(activity.get(annotator_id, {}))
        rows.append(
            AnnotatorQuality(
                annotator_id=annotator_id,
                name=str(user),
                sentences=act.get("sentences") or len({s.sentence_id for s in samples}),
                samples=len(samples),
                time_spent_seconds=act.get("seconds") or 0,
                tp=counts["tp"],
                fp=counts["fp"],
                fn=counts["fn"],
                p=counts["p"],
                r=counts["r"],
                f05=counts["f05"],
                by_source={
                    name: _counts(group, cache) for name, group in sorted(per_source.items())
                },
            )
        )
    rows.sort(key=lambda q: (-q.sentences, q.name))
    return rows


def human_scores(dataset: Dataset) -> dict[str, Any]:
    """The "Human" row (all annotators' boxes pooled) and its reference-count curve."""
    cache = _BlockCache()
    samples = list(_samples(dataset))
    overall = _counts(samples, cache)
    max_refs = max((s.reference_count for s in samples), default=0)
    by_k = {str(k): _counts(samples, cache, max_refs=k)["f05"] for k in range(1, max_refs)}
    by_k["all"] = overall["f05"]
    # Same points as a system's curve (first 1, 2, 3 references, then all).
    curve = metric.curve_points(by_k) if samples else []
    per_source: dict[str, list[AnnotatorSample]] = defaultdict(list)
    for sample in samples:
        source = sample.sentence.source
        per_source[source.name if source else metric.NO_SOURCE].append(sample)
    return {
        **overall,
        "metric": box_metric(dataset.language).name,
        "samples": len(samples),
        "ref_count_curve": curve,
        "ref_count_curve_by_k": by_k if samples else {},
        "by_source": {name: _counts(group, cache) for name, group in sorted(per_source.items())},
    }


# --- reference-count chart ------------------------------------------------------------------


def reference_curves(
    version: DatasetVersion, system_ids: Iterable[int] | None = None
) -> list[dict[str, Any]]:
    """F0.5 with the first 1, 2, ... references then all, per scored system of the release."""
    scores = SystemScore.objects.filter(
        system__version=version, status=ScoreStatus.DONE
    ).select_related("system")
    if system_ids is not None:
        scores = scores.filter(system_id__in=list(system_ids))
    return [
        {
            "name": s.system.name,
            "system_id": s.system_id,
            "curve": s.summary.get("ref_count_curve", []),
        }
        for s in scores.order_by("-f05")
    ]


# --- pay ------------------------------------------------------------------------------------


def current_pay_rates() -> PayRates:
    return PayRates.objects.order_by("-created_at", "-id").first() or PayRates()


@dataclass
class PayRow:
    annotator_id: int
    name: str
    submissions: int
    reviews: int
    f05: float | None
    quality_factor: float
    submission_pay: Decimal
    review_pay: Decimal
    total: Decimal


def quality_factor(f05: float | None, rates: PayRates) -> float:
    """F0.5 / target clamped to [min, max]; no quality measured yet -> factor 1.0."""
    if f05 is None:
        return 1.0
    return max(rates.min_factor, min(rates.max_factor, f05 / rates.target_f05))


def _money(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def pay_report(
    *, start: datetime, end: datetime, dataset: Dataset | None = None, rates: PayRates | None = None
) -> list[PayRow]:
    """Pay per person for submissions (revision 1) and reviews submitted in [start, end).

    The quality factor uses the person's F0.5 over the boxes they submitted in the period
    (against current golden references)."""
    rates = rates or current_pay_rates()
    submissions = Submission.objects.filter(revision=1, created_at__gte=start, created_at__lt=end)
    reviews = ReviewTask.objects.filter(
        status=ReviewStatus.DONE, submitted_at__gte=start, submitted_at__lt=end
    )
    samples = AnnotatorSample.objects.filter(
        submission__created_at__gte=start, submission__created_at__lt=end
    )
    if dataset is not None:
        submissions = submissions.filter(assignment__sentence__dataset=dataset)
        reviews = reviews.filter(sentence__dataset=dataset)
        samples = samples.filter(sentence__dataset=dataset)
    sub_counts = dict(
        submissions.values("assignment__annotator")
        .annotate(n=Count("id"))
        .values_list("assignment__annotator", "n")
    )
    review_counts: dict[int, int] = defaultdict(int)
    for task in reviews.values("submitted_by", "reviewer"):
        review_counts[task["submitted_by"] or task["reviewer"]] += 1
    by_person: dict[int, list[AnnotatorSample]] = defaultdict(list)
    for sample in samples.select_related("sentence__dataset").order_by(
        "sentence__position", "submission_id", "slot"
    ):
        by_person[sample.annotator_id].append(sample)
    cache = _BlockCache()
    people = set(sub_counts) | set(review_counts)
    names = {u.pk: str(u) for u in User.objects.filter(pk__in=people)}
    rows = []
    for person in people:
        f05 = _counts(by_person[person], cache)["f05"] if by_person.get(person) else None
        factor = quality_factor(f05, rates)
        submission_pay = _money(
            Decimal(sub_counts.get(person, 0)) * rates.per_submission * Decimal(str(factor))
        )
        review_pay = _money(Decimal(review_counts.get(person, 0)) * rates.per_review)
        rows.append(
            PayRow(
                annotator_id=person,
                name=names.get(person, str(person)),
                submissions=sub_counts.get(person, 0),
                reviews=review_counts.get(person, 0),
                f05=f05,
                quality_factor=round(factor, 4),
                submission_pay=submission_pay,
                review_pay=review_pay,
                total=submission_pay + review_pay,
            )
        )
    rows.sort(key=lambda r: r.name)
    return rows


def pay_report_csv(
    rows: Sequence[PayRow], *, rates: PayRates, start: datetime, end: datetime
) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "# period",
            start.isoformat(),
            end.isoformat(),
            "currency",
            rates.currency,
            "per_submission",
            rates.per_submission,
            "per_review",
            rates.per_review,
            "target_f05",
            rates.target_f05,
        ]
    )
    writer.writerow(
        [
            "user_id",
            "name",
            "submissions",
            "reviews",
            "f05",
            "quality_factor",
            "submission_pay",
            "review_pay",
            "total",
        ]
    )
    for row in rows:
        writer.writerow(
            [
                row.annotator_id,
                row.name,
                row.submissions,
                row.reviews,
                "" if row.f05 is None else f"{row.f05:.4f}",
                row.quality_factor,
                row.submission_pay,
                row.review_pay,
                row.total,
            ]
        )
    return out.getvalue()
