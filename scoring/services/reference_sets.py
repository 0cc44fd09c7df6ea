"""Scores under the three reference sets (docs/closest-gold.md): ``golden`` (the release's
references: the system's SystemScore, as always), ``closest-gold`` (each system against its
own verified closest-golds) and ``pooled`` (golden + every task system's verified
closest-golds of the sentence).

The references of a set are extracted by the same extractor as the golden ones (ChERRANT's
char level for Chinese, ERRANT for English: `scoring.metric.sentence_block`,
`gecscore.english.errant_edits.ragged_m2_blocks`) and scored by the same report
(`metric.full_report` / `metric_en.english_report`), so every metric a release supports is
there. A set whose references are not all verified is not scored unless ``partial`` is asked
for: then only the sentences with references count, and the row says so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, report_progress, settle_job
from core.models import BackgroundJob
from datasets.formats.markers import MARKERS
from datasets.models import DatasetVersion, Language, ReleasedSentence
from gecscore import EnglishModelMissing, ragged_m2_blocks
from scoring import metric, tasks
from scoring.closest_gold_selectors import closest_golds
from scoring.metric_en import english_report
from scoring.models import ReferenceSet, ReferenceSetScore, SystemOutput
from scoring.services.systems import released_rows, scoring_resources

REFERENCE_SET_NAMES = tuple(ReferenceSet.values)
# Extracted reference blocks by (resources signature, source, references): the pooled set is
# the same for every system of a release, so scoring them all extracts it once.
BlockCache = dict[tuple[str, str, tuple[str, ...]], metric.M2Block]
JOB_KIND_REFERENCE_SETS = "scoring.reference_sets"


@dataclass(frozen=True)
class SetReferences:
    """The references of one system under one set, per released sentence (release order):
    ``[]`` where none is verified yet. ``verified`` / ``total`` is the coverage the set
    depends on (for pooled: the items of every task system)."""

    reference_set: str
    references: list[list[str]]
    verified: int
    total: int

    @property
    def complete(self) -> bool:
        return self.verified == self.total

    def key(self, system: SystemOutput, *, partial: bool) -> str:
        """What a stored score was computed from: the hypotheses and the references."""
        blob = json.dumps(
            [system.checksum, self.reference_set, partial, self.references], ensure_ascii=False
        )
        return hashlib.sha256(blob.encode()).hexdigest()


def check_reference_set(name: str) -> str:
    if name not in REFERENCE_SET_NAMES:
        raise ServiceError(
            f"unknown reference set {name!r} (one of {', '.join(REFERENCE_SET_NAMES)})",
            field="refs",
        )
    return name


def task_systems(system: SystemOutput) -> list[SystemOutput]:
    """The release's systems with closest-gold items (any task), by name."""
    return list(
        SystemOutput.objects.filter(
            version=system.version, closest_gold_items__task__version=system.version
        )
        .distinct()
        .order_by("name")
    )


def set_references(system: SystemOutput, reference_set: str) -> SetReferences:
    """The references ``system`` is scored against under ``reference_set``."""
    check_reference_set(reference_set)
    rows = released_rows(system.version)
    golden = [list(row.references) for row in rows]
    if reference_set == ReferenceSet.GOLDEN:
        return SetReferences(reference_set, golden, len(rows), len(rows))
    if reference_set == ReferenceSet.CLOSEST_GOLD:
        own = closest_golds(system)
        return SetReferences(reference_set, own, sum(1 for t in own if t), len(own))
    pooled = [list(refs) for refs in golden]
    verified = total = 0
    for other in task_systems(system):
        texts = closest_golds(other)
        verified += sum(1 for t in texts if t)
        total += len(texts)
        for index, extra in enumerate(texts):
            pooled[index].extend(t for t in extra if t not in pooled[index])
    return SetReferences(reference_set, pooled, verified, total)


def set_report(
    system: SystemOutput,
    refs: SetReferences,
    *,
    resources_dir: str | None = None,
    block_cache: BlockCache | None = None,
) -> tuple[list[int], metric.ScoreReport]:
    """(indices of the sentences scored, the report) of ``system`` against ``refs``: the
    sentences that have references (all of them when the set is complete)."""
    rows = released_rows(system.version)
    indices = [i for i, texts in enumerate(refs.references) if texts]
    if not indices:
        raise Conflict(
            f"{system.name} has no verified {refs.reference_set} references yet", field="refs"
        )
    chosen_rows = [rows[i] for i in indices]
    hypotheses = [system.hypotheses[i] for i in indices]
    references = [refs.references[i] for i in indices]
    if system.version.dataset.language == Language.ENGLISH:
        report = _english(chosen_rows, hypotheses, references)
    else:
        report = _chinese(chosen_rows, hypotheses, references, resources_dir, block_cache)
    return indices, report


def _chinese(
    rows: Sequence[ReleasedSentence],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    resources_dir: str | None,
    block_cache: BlockCache | None,
) -> metric.ScoreReport:
    resources = scoring_resources(resources_dir)
    cache: BlockCache = {} if block_cache is None else block_cache

    def block(source: str, texts: Sequence[str]) -> metric.M2Block:
        # A hypothesis block is the same extraction as a one-reference block of its text.
        key = (resources.signature, source, tuple(texts))
        if key not in cache:
            cache[key] = metric.sentence_block(source, texts, resources=resources)
        return cache[key]

    ref_blocks = [block(row.text, texts) for row, texts in zip(rows, references, strict=True)]
    hyp_blocks = [block(row.text, [hyp]) for row, hyp in zip(rows, hypotheses, strict=True)]
    report = metric.full_report(
        hyp_blocks,
        ref_blocks,
        source_names=[row.source_name for row in rows],
        resources=resources,
        first_k_curve=False,
    )
    report.extra.update(
        metric.green_metric(
            sources=[row.text for row in rows],
            hypotheses=hypotheses,
            references=references,
            unit="char",
        )
    )
    return report


def _english(
    rows: Sequence[ReleasedSentence],
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
) -> metric.ScoreReport:
    sources = [row.text for row in rows]
    # As the release's own ERRANT M2 writes them: a marker reads as the source.
    written = [
        [source if text in MARKERS else text for text in texts] or [source]
        for source, texts in zip(sources, references, strict=True)
    ]
    try:
        ref_blocks = ragged_m2_blocks(sources, written)
    except EnglishModelMissing as missing:
        raise ServiceError(str(missing), field="language", status=503) from None
    return english_report(
        sources=sources,
        hypotheses=hypotheses,
        references=references,
        ref_blocks=ref_blocks,
        source_names=[row.source_name for row in rows],
        first_k_curve=False,
    )


def named_signature(signature: str, reference_set: str, *, coverage: str = "") -> str:
    """A metric signature naming the reference set (and a partial score's coverage)."""
    # `refs:` (which reference set) beside the library's own `refs=` (which or how many
    # references a metric used), so the two never read as one key given twice
    named = f"{signature}|refs:{reference_set}"
    return f"{named}|coverage={coverage}" if coverage else named


def _name_extra_signatures(extra: dict[str, Any], reference_set: str, coverage: str) -> None:
    for entry in extra.values():
        if isinstance(entry, dict) and isinstance(entry.get("signature"), str):
            entry["signature"] = named_signature(
                entry["signature"], reference_set, coverage=coverage
            )


def score_reference_set(
    *,
    system: SystemOutput,
    reference_set: str,
    partial: bool = False,
    user: Any = None,
    resources_dir: str | None = None,
    block_cache: BlockCache | None = None,
) -> ReferenceSetScore:
    """Score ``system`` against closest-gold or pooled references and store it (the golden
    score is the system's SystemScore: `services.score_now`). Nothing new is computed when
    the stored row was made from the same hypotheses and references. An incomplete set is a
    Conflict naming its coverage unless ``partial``."""
    check_reference_set(reference_set)
    if reference_set == ReferenceSet.GOLDEN:
        raise ServiceError(
            "the golden score is the system's own score (score_system without --refs)",
            field="refs",
        )
    refs = set_references(system, reference_set)
    if not refs.complete and not partial:
        raise Conflict(
            f"{system.name}: {refs.verified} of {refs.total} closest-gold items verified for "
            f"{reference_set}; no score until all are (ask for a partial score to see one)",
            field="refs",
        )
    partial = partial and not refs.complete
    key = refs.key(system, partial=partial)
    stored = ReferenceSetScore.objects.filter(
        system=system, reference_set=reference_set, partial=partial
    ).first()
    if stored is not None and stored.references_key == key:
        return stored
    indices, report = set_report(system, refs, resources_dir=resources_dir, block_cache=block_cache)
    coverage = f"{refs.verified}/{refs.total}" if partial else ""
    summary = report.summary()
    _name_extra_signatures(summary["extra"], reference_set, coverage)
    overall = report.overall
    with transaction.atomic():
        score, _ = ReferenceSetScore.objects.update_or_create(
            system=system,
            reference_set=reference_set,
            partial=partial,
            defaults={
                "references_key": key,
                "verified": refs.verified,
                "total": refs.total,
                "sentences_scored": len(indices),
                "signature": named_signature(report.signature, reference_set, coverage=coverage),
                "tp": overall["tp"],
                "fp": overall["fp"],
                "fn": overall["fn"],
                "p": overall["p"],
                "r": overall["r"],
                "f05": overall["f05"],
                "summary": {**summary, "positions": indices},
            },
        )
        log_action(
            system,
            user,
            "scoring.reference_set",
            {"refs": reference_set, "partial": partial, "f05": score.f05},
        )
    return score


def request_reference_set_scoring(*, version: DatasetVersion, user: Any) -> BackgroundJob:
    """Queue the closest-gold and pooled scores of every system of the release (the
    leaderboard's button): a job with progress per system, on the default queue."""
    total = SystemOutput.objects.filter(version=version).count()
    if not total:
        raise ServiceError(f"{version.label} has no system outputs to score", field="release")
    return enqueue_job(
        kind=JOB_KIND_REFERENCE_SETS,
        user=user,
        task=tasks.score_reference_sets,
        task_args=lambda job_id: (version.pk, job_id),
        params={"release": version.pk},
        message=f"closest-gold and pooled scores of {version.label}",
        total=total,
        audit=(version, "scoring.reference_sets.request", {}),
    )


def run_reference_set_scoring(*, version_id: int, job_id: int | None = None) -> dict[str, Any]:
    """The job's body: every system's complete sets scored (stored rows reused when their
    references did not change); ``{system: {set: F0.5 or "verified/total"}}``."""
    version = DatasetVersion.objects.filter(pk=version_id).first()
    if version is None:
        raise NotFound(f"no release {version_id}")
    systems = list(SystemOutput.objects.filter(version=version).order_by("name"))
    result: dict[str, Any] = {}
    block_cache: BlockCache = {}
    try:
        for index, system in enumerate(systems):
            report_progress(job_id, index, message=f"scoring {system.name}")
            done = score_release_reference_sets(systems=[system], block_cache=block_cache)
            result[system.name] = {
                name: value.f05
                if isinstance(value, ReferenceSetScore)
                else f"{value.verified}/{value.total}"
                for (_, name), value in done.items()
            }
        with transaction.atomic():  # settle_job locks the job row
            settle_job(job_id, result=result, message=f"{len(systems)} systems")
    except JobCancelled:
        return {}
    return result


def score_release_reference_sets(
    *,
    systems: Sequence[SystemOutput],
    user: Any = None,
    resources_dir: str | None = None,
    block_cache: BlockCache | None = None,
) -> dict[tuple[int, str], ReferenceSetScore | SetReferences]:
    """Closest-gold and pooled scores of every given system whose set is complete; for the
    others their references (coverage) instead of a score."""
    out: dict[tuple[int, str], ReferenceSetScore | SetReferences] = {}
    block_cache = {} if block_cache is None else block_cache
    for system in systems:
        for name in (ReferenceSet.CLOSEST_GOLD, ReferenceSet.POOLED):
            refs = set_references(system, name)
            if not refs.complete:
                out[(system.pk, name)] = refs
                continue
            out[(system.pk, name)] = score_reference_set(
                system=system,
                reference_set=name,
                user=user,
                resources_dir=resources_dir,
                block_cache=block_cache,
            )
    return out
