"""Publishing a release: its metadata, its report (the checks of publishing.checks), the
reference files it is checked against, and the folder that goes online (every export
format, Parquet per split, the dataset card, Croissant, the report and SHA256SUMS)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.jobs import report_progress
from core.unique import create_unique
from core.uploads import read_upload
from datasets.models import DatasetVersion, Sentence
from datasets.reference_m2 import setting_int
from datasets.selectors import DatasetRow, export_rows
from datasets.services.exports import ExportFormat, export_dataset, export_filename
from gecscore import decode_utf8
from publishing import card, charts, checks, formats, staging
from publishing import facts as facts_of
from publishing.closest_gold import write_closest_gold_parquet
from publishing.facts import metadata_of
from publishing.models import ReferenceFile, ReferenceStyle, ReleaseMetadata, ReleaseReport

SPDX_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+-]{0,63}$")
MAX_REFERENCE_FILE_SENTENCES = 1_000_000
METADATA_TEXT_LIMITS = {"description": 20_000, "citation": 20_000, "contact": 200}


def update_metadata(*, version: DatasetVersion, user: Any, data: dict[str, Any]) -> ReleaseMetadata:
    """Set the fields given in ``data`` (others unchanged), each checked; every change is in
    the audit log with its old and new values."""
    with transaction.atomic():
        metadata = metadata_of(version)
        ReleaseMetadata.objects.select_for_update().filter(pk=metadata.pk).first()
        metadata.refresh_from_db()
        changes: dict[str, Any] = {}
        for name, value in data.items():
            checked = _checked_field(name, value)
            if getattr(metadata, name) != checked:
                changes[name] = {"before": getattr(metadata, name), "after": checked}
                setattr(metadata, name, checked)
        if changes:
            metadata.updated_by = user if getattr(user, "is_authenticated", False) else None
            metadata.save()
            log_action(version, user, "release.metadata", changes)
    return metadata


def _checked_field(name: str, value: Any) -> Any:
    if name in METADATA_TEXT_LIMITS:
        text = str(value or "")
        if len(text) > METADATA_TEXT_LIMITS[name]:
            raise ServiceError(
                f"{name} has {len(text)} characters; at most {METADATA_TEXT_LIMITS[name]}",
                field=name,
            )
        return text
    if name == "license":
        text = str(value or "").strip()
        if text and not SPDX_ID.match(text):
            raise ServiceError(
                f"licence {text!r} is not an SPDX identifier (e.g. CC-BY-4.0, Apache-2.0)",
                field="license",
            )
        return text
    if name == "homepage":
        text = str(value or "").strip()
        if text and not re.match(r"^https?://[^\s]+$", text):
            raise ServiceError("the homepage must be an http(s) URL", field="homepage")
        return text
    if name == "upstream_licenses":
        return _checked_upstream(value)
    if name == "reference_styles":
        return _checked_styles(value)
    if name == "blocking_checks":
        if not isinstance(value, list) or any(v not in checks.CHECKS for v in value):
            raise ServiceError(
                f"blocking checks must be a list of: {', '.join(checks.CHECKS)}",
                field="blocking_checks",
            )
        return sorted(set(value), key=list(checks.CHECKS).index)
    raise ServiceError(f"unknown metadata field {name!r}", field=name)


def _checked_upstream(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise ServiceError(
            "upstream licences must be a list of {name, license, url}", field="upstream_licenses"
        )
    out = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, dict) or not str(item.get("name", "")).strip():
            raise ServiceError(f"upstream licence {number} needs a name", field="upstream_licenses")
        license_id = str(item.get("license", "")).strip()
        if license_id and not SPDX_ID.match(license_id):
            raise ServiceError(
                f"upstream licence {number}: {license_id!r} is not an SPDX identifier",
                field="upstream_licenses",
            )
        out.append(
            {
                "name": str(item["name"]).strip()[:200],
                "license": license_id,
                "url": str(item.get("url", "")).strip()[:500],
            }
        )
    return out


def _checked_styles(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ServiceError(
            'reference styles map reference numbers to styles, e.g. {"1": "minimal"}',
            field="reference_styles",
        )
    allowed = {choice.value for choice in ReferenceStyle}
    out = {}
    for key, style in value.items():
        if not str(key).isdigit() or int(key) < 1:
            raise ServiceError(
                f"reference number {key!r} is not 1, 2, ...", field="reference_styles"
            )
        if style not in allowed:
            raise ServiceError(
                f"reference {key}: style {style!r} is not minimal, fluency or empty",
                field="reference_styles",
            )
        out[str(int(key))] = style
    return out


# --- reference files ------------------------------------------------------------------------


def sentences_of_file(data: bytes, *, name: str) -> list[str]:
    """The sentences of an uploaded reference file: the ``S`` lines of an M2 file, the
    second column of a MuCGEC file (id, source, references...), else one sentence a line."""
    text = decode_utf8(data, name=name)
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if any(line.startswith("S ") for line in lines[:50]):
        return [line[2:] for line in lines if line.startswith("S ")]
    if lines and all(line.count("\t") >= 1 for line in lines if line.strip()):
        return [line.split("\t")[1] for line in lines if line.strip()]
    return [line for line in lines if line.strip()]


def add_reference_file(*, name: str, upload: Any, file_name: str, user: Any) -> ReferenceFile:
    name = name.strip()
    if not re.match(r"^[-a-zA-Z0-9_]{1,100}$", name):
        raise ServiceError(
            "name the file with letters, digits, - and _ (at most 100)", field="name"
        )
    try:
        sentences = sentences_of_file(read_upload(upload, name=file_name), name=file_name)
    except ValueError as exc:
        raise ServiceError(str(exc), field="file") from None
    if not sentences:
        raise ServiceError(f"{file_name} has no sentence", field="file")
    if len(sentences) > MAX_REFERENCE_FILE_SENTENCES:
        raise ServiceError(
            f"{file_name} has {len(sentences)} sentences; at most {MAX_REFERENCE_FILE_SENTENCES}",
            field="file",
        )
    with transaction.atomic():
        reference = create_unique(
            ReferenceFile,
            lambda: ReferenceFile.objects.create(
                name=name,
                sentences=sentences,
                uploaded_by=user if getattr(user, "is_authenticated", False) else None,
            ),
            unique=["name"],
            values={"name": name},
            message=lambda existing: f"a reference file named {existing.name!r} exists",
        )
        log_action(reference, user, "release.reference_file", {"sentences": len(sentences)})
    return reference


# --- the report -----------------------------------------------------------------------------


def _release_rows(version: DatasetVersion) -> list[checks.ReleaseRow]:
    return [
        checks.ReleaseRow(position, row.external_id, row.text, row.split, tuple(row.references))
        for position, row in enumerate(export_rows(dataset=version.dataset, version=version))
    ]


def _other_texts(version: DatasetVersion, reference_files: list[ReferenceFile]) -> list[Any]:
    others: list[checks.OtherText] = []
    sentences = (
        Sentence.objects.exclude(dataset=version.dataset)
        .order_by("dataset__name", "position")
        .values_list("dataset__name", "external_id", "text")
    )
    for dataset_name, external_id, text in sentences.iterator(chunk_size=5000):
        others.append(checks.OtherText(f"dataset {dataset_name}", external_id, text))
    for reference in reference_files:
        for number, text in enumerate(reference.sentences, start=1):
            others.append(checks.OtherText(f"file {reference.name}", str(number), text))
    return others


def compute_report(
    *, version: DatasetVersion, user: Any = None, job_id: int | None = None
) -> ReleaseReport:
    """Run every check on the release, against the platform's other datasets and every
    uploaded reference file; the report is stored (the newest is the release's)."""
    report_progress(job_id, 0, total=3, message=f"reading {version.label}")
    rows = _release_rows(version)
    reference_files = list(ReferenceFile.objects.all())
    others = _other_texts(version, reference_files)
    report_progress(job_id, 1, total=3, message="checking")
    findings = checks.release_findings(
        rows, others, skipped=int(version.counts.get("skipped_without_references", 0))
    )
    report_progress(job_id, 2, total=3, message="saving")
    compared_with = {
        "datasets": sorted(
            {o.corpus[len("dataset ") :] for o in others if o.corpus.startswith("dataset ")}
        ),
        "reference_files": [reference.name for reference in reference_files],
    }
    with transaction.atomic():
        report = ReleaseReport.objects.create(
            version=version,
            findings=[finding.as_dict() for finding in findings],
            compared_with=compared_with,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        log_action(version, user, "release.report", report.counts())
    report_progress(job_id, 3, total=3)
    return report


def latest_report(version: DatasetVersion) -> ReleaseReport | None:
    return version.reports.order_by("-created_at", "-pk").first()


def blocking_findings(version: DatasetVersion, report: ReleaseReport) -> list[dict[str, Any]]:
    """The findings of the release's blocking checks that are not empty."""
    blocking = set(metadata_of(version).blocking_checks)
    return [f for f in report.findings if f["check"] in blocking and f["count"]]


# --- the card and the folder ----------------------------------------------------------------


def publish_release(
    *,
    version: DatasetVersion,
    out: str | Path,
    user: Any = None,
    allow_blocked: bool = False,
    job_id: int | None = None,
) -> dict[str, Any]:
    """Write the release's publishable folder to ``out`` (which must not exist or be empty):
    every export format, ``data/<split>.parquet``, ``README.md`` (the card, with its figure),
    ``croissant.json``, ``report.json`` and ``SHA256SUMS``. The report is computed first
    when the release has none; a finding of a blocking check refuses (409) unless
    ``allow_blocked``.

    All or nothing, even when the process is killed: the files are written into a hidden
    staging folder beside ``out`` (``.<name>.partial-<random>``) that is renamed to ``out``
    only once ``SHA256SUMS`` is written, so ``out`` either does not exist or is complete. A
    failure removes the staging folder; one left by a killed publish is removed by the next
    publish to the same place (publishing.staging)."""
    folder = Path(out)
    target = staging.target_of(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ServiceError(f"{folder} exists and is not an empty folder", field="out")
    timings: dict[str, float] = {}
    report = latest_report(version)
    if report is None:
        with _timed(timings, "report"):
            report = compute_report(version=version, user=user, job_id=job_id)
    blocked = blocking_findings(version, report)
    if blocked and not allow_blocked:
        raise Conflict(
            "the release report has findings of blocking checks: "
            + "; ".join(f"{f['title']} ({f['count']})" for f in blocked),
            field="report",
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging.discard_abandoned_publishes(target)
    with staging.staging_folder(target) as partial:
        written = _write_folder(version, partial, report, user=user, job_id=job_id, timings=timings)
        staging.move_into_place(partial, target, shown_as=folder)
    log_action(
        version,
        user,
        "release.publish",
        {
            "folder": str(folder),
            "files": written["files"],
            "splits": written["splits"],
            "report": report.pk,
        },
    )
    return {"folder": str(folder), **written, "report": report.pk, "timings": timings}


@contextmanager
def _timed(timings: dict[str, float], phase: str) -> Iterator[None]:
    """Add the phase's wall time to ``timings`` (publish_release reports them; the scale
    benchmark prints them)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[phase] = round(timings.get(phase, 0.0) + time.perf_counter() - started, 3)


def _write_folder(
    version: DatasetVersion,
    folder: Path,
    report: ReleaseReport,
    *,
    user: Any,
    job_id: int | None,
    timings: dict[str, float],
) -> dict[str, Any]:
    dataset = version.dataset
    exports = folder / "formats"
    exports.mkdir()
    with _timed(timings, "reading the release"):
        rows = _rows_once(version)
    for done, fmt in enumerate(ExportFormat):
        _step(job_id, done, f"format {fmt.value}")
        with _timed(timings, f"format {fmt.value}"):
            export_dataset(
                dataset=dataset,
                fmt=fmt.value,
                out=exports / export_filename(dataset, version, fmt.value),
                version=version,
                user=user,
                rows=rows,
            )
    m2_path = exports / export_filename(dataset, version, ExportFormat.M2.value)
    _step(job_id, len(ExportFormat), "Parquet")
    with _timed(timings, "parquet"):
        counts, style_counts, annotators = _write_parquet(version, folder, m2_path, rows)
    with _timed(timings, "closest-gold"):
        closest_gold_counts = write_closest_gold_parquet(version, folder)
    _step(job_id, len(ExportFormat) + 1, "the card")
    with _timed(timings, "card"):
        facts = facts_of.card_facts(version, report, style_counts=style_counts, rows=rows)
        facts["annotation"]["pseudonymised_annotators"] = annotators
        facts["closest_gold"] = closest_gold_counts
        (folder / "figures").mkdir()
        (folder / "figures" / "reference_counts.svg").write_text(
            charts.reference_count_svg(facts["statistics"].get("refs_per_sentence_histogram", {})),
            encoding="utf-8",
        )
        (folder / "README.md").write_text(card.render_card(facts), encoding="utf-8")
    formats.write_json(
        folder / "report.json",
        {
            "release": version.label,
            "created_at": report.created_at.isoformat(timespec="seconds"),
            "compared_with": report.compared_with,
            "findings": report.findings,
        },
    )
    _step(job_id, len(ExportFormat) + 2, "Croissant")
    with _timed(timings, "croissant"):
        _write_croissant(
            version,
            folder,
            facts,
            {split: folder / "data" / f"{split}.parquet" for split in counts},
        )
    _step(job_id, len(ExportFormat) + 3, "checksums")
    with _timed(timings, "checksums"):
        formats.write_checksums(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    return {"files": files, "splits": counts, "closest_gold": closest_gold_counts}


# Each export format, Parquet, the card, Croissant, the checksums.
PUBLISH_STEPS = len(ExportFormat) + 4


def _step(job_id: int | None, done: int, what: str) -> None:
    """Progress of a page publish, and where a cancelled one stops (JobCancelled): the
    staging folder is then removed like on any other failure."""
    report_progress(job_id, done, total=PUBLISH_STEPS, message=f"publishing: {what}")


def _rows_once(version: DatasetVersion) -> list[DatasetRow] | None:
    """The release's rows, read once for the four formats, the Parquet files and the card's
    statistics (each read of 100k rows costs ~6 s), when the release has at most
    GEC_PUBLISH_READ_ONCE_SENTENCES sentences (default 250,000; ~1 KB of memory a sentence);
    None above that: each file then streams them from the database."""
    limit = setting_int("GEC_PUBLISH_READ_ONCE_SENTENCES", 250_000)
    if int(version.counts.get("sentences", limit + 1)) > limit:
        return None
    return list(export_rows(dataset=version.dataset, version=version))


def _write_parquet(
    version: DatasetVersion, folder: Path, m2_path: Path, rows: list[DatasetRow] | None
) -> tuple[dict[str, int], dict[str, int], int]:
    """The Parquet files; records per split, references per published style, and how many
    annotators were pseudonymised (counted while the records stream past)."""
    style_counts: dict[str, int] = {}
    pseudonyms = formats.Pseudonyms()

    def tallied(records: Any) -> Any:
        for record in records:
            for style in record.reference_styles:
                style_counts[style] = style_counts.get(style, 0) + 1
            yield record

    counts = formats.write_parquet(
        tallied(
            formats.records(
                rows if rows is not None else export_rows(dataset=version.dataset, version=version),
                m2_path.read_text(encoding="utf-8"),
                metadata_of(version).reference_styles,
                pseudonyms,
            )
        ),
        folder,
    )
    return counts, style_counts, len(pseudonyms)


def _write_croissant(
    version: DatasetVersion, folder: Path, facts: dict[str, Any], parquet_files: dict[str, Path]
) -> None:
    metadata = metadata_of(version)
    formats.write_json(
        folder / "croissant.json",
        formats.croissant(
            name=version.label,
            description=facts["metadata"]["description"],
            version=f"{version.number}.0.0",
            license_id=metadata.license,
            citation=metadata.citation,
            url=metadata.homepage,
            date_published=facts["released_at"],
            language=version.dataset.language,
            parquet_files=parquet_files,
            folder=folder,
            rai=facts_of.rai_fields(facts),
        ),
    )


def published_at() -> str:
    return timezone.now().isoformat(timespec="seconds")
