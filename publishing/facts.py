"""What a release's card and Croissant file state, gathered from the platform's records
(annotation, review, scoring and the release report)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Sum

from annotate.models import Assignment, GuidelineTask, Submission
from annotate.selectors import guideline_for
from annotate.suggestions import BLIND
from datasets.models import DatasetVersion, ReferenceEntry, ReleasedSentence
from datasets.selectors import DatasetRow, export_rows
from datasets.statistics import dataset_statistics
from publishing import formats
from publishing.models import ReleaseMetadata, ReleaseReport
from scoring.services import refresh_stale_samples, release_human_scores


def metadata_of(version: DatasetVersion) -> ReleaseMetadata:
    metadata, _ = ReleaseMetadata.objects.get_or_create(version=version)
    return metadata


def reference_style_counts(version: DatasetVersion) -> dict[str, int]:
    """References of the release by published style (``formats.reference_style``), with
    "" for unspecified; the card's "Reference styles" line."""
    defaults = metadata_of(version).reference_styles
    counts: dict[str, int] = {}
    for row in export_rows(dataset=version.dataset, version=version):
        stored = row.reference_styles or ("",) * len(row.references)
        for number, style in enumerate(stored, start=1):
            published = formats.reference_style(style, number, defaults)
            counts[published] = counts.get(published, 0) + 1
    return counts


def reference_provenance(
    version: DatasetVersion, rows: Iterable[DatasetRow] | None = None
) -> dict[str, Any]:
    """How the release's references came to be, counted from what the release froze
    (typed / post-edited / accepted-unchanged, and by suggestion source), and the items of
    its sentences that opened with a suggestion or blind (first submissions): the card's
    "Provenance of the references" lines."""
    entries = {entry.value: 0 for entry in ReferenceEntry}
    suggestion_sources: dict[str, int] = {}
    for row in rows if rows is not None else export_rows(dataset=version.dataset, version=version):
        for entry, source in zip(*row.provenance(), strict=True):
            entries[entry] = entries.get(entry, 0) + 1
            if source:
                suggestion_sources[source] = suggestion_sources.get(source, 0) + 1
    items = {"prefilled": 0, "blind": 0, "without_suggestion": 0}
    released = ReleasedSentence.objects.filter(version=version).values("sentence_id")
    for source, count in (
        Submission.objects.filter(assignment__sentence_id__in=released, revision=1)
        .values("suggestion_source")
        .annotate(n=Count("id"))
        .values_list("suggestion_source", "n")
    ):
        arm = "prefilled" if source and source != BLIND else "blind" if source else ""
        items[arm or "without_suggestion"] += count
    with_suggestion_mode = items["prefilled"] + items["blind"]
    return {
        "entries": entries,
        "suggestion_sources": dict(sorted(suggestion_sources.items())),
        "items": items,
        "blind_share": items["blind"] / with_suggestion_mode if with_suggestion_mode else None,
    }


def card_facts(
    version: DatasetVersion,
    report: ReleaseReport | None,
    *,
    style_counts: dict[str, int] | None = None,
    rows: Iterable[DatasetRow] | None = None,
) -> dict[str, Any]:
    """What the card states; ``style_counts`` when the caller has counted them already
    (publishing tallies them while writing the Parquet files), ``rows`` when it has read the
    release's rows."""
    dataset = version.dataset
    metadata = metadata_of(version)
    statistics = dataset_statistics(dataset=dataset, version=version, rows=rows)
    splits: dict[str, int] = {}
    for split in version.sentences.values_list("split", flat=True):
        key = split or formats.NO_SPLIT
        splits[key] = splits.get(key, 0) + 1
    assignments = Assignment.objects.filter(sentence__dataset=dataset)
    seconds = assignments.aggregate(s=Sum("time_spent_seconds"))["s"] or 0
    # The guideline is the annotators'; an imported dataset's references followed none of ours.
    guideline = (
        guideline_for(GuidelineTask.ANNOTATION, dataset.language) if assignments.exists() else None
    )
    creator = dataset.created_by
    return {
        "release": version.label,
        "checksum": version.checksum,
        "released_at": version.created_at.date().isoformat(),
        "language": dataset.language,
        "curated_by": (creator.get_full_name() or creator.get_username()) if creator else "",
        "metadata": {
            "description": metadata.description or dataset.description,
            "license": metadata.license,
            "upstream_licenses": metadata.upstream_licenses,
            "citation": metadata.citation,
            "contact": metadata.contact,
            "reference_styles": metadata.reference_styles,
        },
        "provenance": reference_provenance(version, rows),
        "reference_style_counts": style_counts
        if style_counts is not None
        else reference_style_counts(version),
        "statistics": statistics,
        "splits": splits,
        "by_source": version.counts.get("by_source", {}),
        "annotation": {
            "k": dataset.annotators_per_sentence,
            "annotators": dataset.annotators.count(),
            "reviewers": dataset.reviewers.count(),
            "guideline": {"title": guideline.title, "version": guideline.version}
            if guideline
            else None,
            "time_spent_seconds": seconds,
            "human": _release_agreement(version),
        },
        "report": {
            "created_at": report.created_at.isoformat(timespec="seconds"),
            "findings": report.findings,
        }
        if report
        else None,
    }


def _release_agreement(version: DatasetVersion) -> dict[str, Any]:
    """The annotators' boxes scored against the references this release froze, with the
    release language's metric. The samples are brought up to date first: they are otherwise
    scored when someone opens the annotator or leaderboard pages, and the card must not
    depend on which pages were opened before publishing."""
    refresh_stale_samples(dataset_id=version.dataset_id)
    return release_human_scores(version)


def rai_fields(facts: dict[str, Any]) -> dict[str, Any]:
    """The Croissant Responsible-AI fields the platform can state from its own records."""
    annotation = facts["annotation"]
    human = annotation.get("human") or {}
    items = (facts.get("provenance") or {}).get("items") or {}
    how = "direct rewriting"
    if items.get("prefilled"):
        how = (
            "post-editing a suggested correction (a blind control share of items opened "
            "with the source only)"
        )
    protocol = (
        f"Each sentence was corrected by up to {annotation['k']} annotators by {how}, "
        "then a reviewer accepted, edited or added references."
    )
    if annotation.get("guideline"):
        protocol += (
            f" Guideline: {annotation['guideline']['title']} (version "
            f"{annotation['guideline']['version']})."
        )
    fields: dict[str, Any] = {
        "dataAnnotationProtocol": protocol,
        "annotationsPerItem": str(annotation["k"]),
        "dataAnnotationPlatform": "this GEC dataset platform (browser annotation and review)",
        "dataReleaseMaintenancePlan": "",
    }
    if human.get("samples"):
        fields["dataAnnotationAnalysis"] = (
            f"Annotators' corrections against the final references: F0.5 {human['f05']:.4f} "
            f"over {human['samples']} corrections."
        )
    if facts.get("report"):
        found = [f for f in facts["report"]["findings"] if f["count"]]
        fields["dataLimitations"] = (
            "Release report: "
            + ("; ".join(f"{f['title']}: {f['count']}" for f in found) or "no findings")
            + "."
        )
    return fields
