"""Appraise ranking XML in (all or nothing: parse -> check -> write) and out (edit verdicts
as <edit> elements inside each <translation>), WMT pairwise CSV out, and the edit verdicts as
CSV (one row per judged edit)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import settle_job
from core.models import User
from core.unique import create_unique
from core.uploads import judgments_xml_limits
from datasets.models import DatasetVersion, Language
from gecscore import (
    JudgmentFormatError,
    RankingItem,
    RankingResult,
    iter_judgments_xml,
    pairwise_comparisons,
    unexpanded_comparisons,
    write_judgments_xml,
    write_pairwise_csv,
)
from judgments import results
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignMode,
    CampaignSystem,
    Item,
    ItemOutput,
    Judgment,
)
from judgments.selectors import campaign_judgment_set, edit_verdict_rows
from judgments.services.campaigns import campaign_name_taken, release_sources


def _read_xml(
    source: str | Path | bytes, *, systems: Sequence[str] | None, label: str
) -> Iterator[RankingResult | RankingItem]:
    """The file read as a stream through the one bounded reader, within the Appraise XML
    limits (core/uploads.py: size, lines, nesting depth), one item at a time."""
    try:
        yield from iter_judgments_xml(
            source, systems=systems, limits=judgments_xml_limits(), name=label
        )
    except JudgmentFormatError as error:
        raise ServiceError(
            f"{error.path}, {error.place}: {error.message}", field=error.place
        ) from None
    except OSError as error:
        raise ServiceError(
            f"cannot read {label}: {error.strerror or error}", field="file"
        ) from None


@transaction.atomic
def import_judgments(
    *,
    campaign_name: str,
    source: str | Path | bytes,
    release: DatasetVersion | None = None,
    label: str | None = None,
    by: User | None = None,
    job_id: int | None = None,
) -> Campaign:
    """Load an Appraise ranking XML file into campaign `campaign_name` (created if new).

    All or nothing: malformed XML (line and column), a system the campaign does not have, a
    sentence id not in the release, an item id the same judge already has: a ServiceError
    naming the place, and no row written. Without a release the campaign stands alone, its
    systems and sentences named by the file. With `job_id` (judgments/jobs.py) the job is
    marked done in this same transaction.
    """
    label = label or (str(source) if not isinstance(source, bytes) else "upload.xml")
    campaign = Campaign.objects.select_for_update().filter(name=campaign_name).first()
    if campaign is not None and release is not None and campaign.release_id != release.pk:
        raise ServiceError(
            f"campaign {campaign_name!r} is on {campaign.release or 'no release'},"
            f" not {release.label}",
            field="release",
        )
    known = list(campaign.systems.values_list("name", flat=True)) if campaign else []
    target = campaign.release if campaign is not None else release
    sentences: dict[str, tuple[int, str]] = {}
    if target is not None:
        sentences = {
            ext: (index, text) for index, (ext, text) in enumerate(release_sources(target))
        }
    # Two passes over the file, each holding one item at a time: the first checks every
    # item and gathers the systems, the second writes (a 37 MB file read whole into a
    # JudgmentSet took 1.2 GB). All or nothing still: both run in this transaction.
    scanned = _scan(source, campaign, target, sentences, label=label, known=known)
    if campaign is None:
        campaign = _new_campaign(campaign_name, release=release, by=by, esa=scanned.esa)
    new_systems = [s for s in scanned.systems if s not in known]
    CampaignSystem.objects.bulk_create(
        CampaignSystem(campaign=campaign, name=name, position=len(known) + offset)
        for offset, name in enumerate(new_systems)
    )
    items = _write_items(campaign, _read_xml(source, systems=None, label=label), sentences)
    campaign.result_blocks = [*campaign.result_blocks, *scanned.blocks]
    campaign.save(update_fields=["result_blocks"])
    log_action(
        campaign,
        by,
        "judgments.import",
        {"file": label, "items": items, "systems": new_systems},
    )
    settle_job(
        job_id,
        result={"campaign": campaign.pk, "name": campaign.name, "items": items},
        message=f"imported {items} ranking items into campaign {campaign.name!r}",
    )
    # The default results are computed once the import is in (by a worker), so the first
    # view of the campaign's results is served from storage (judgments/results.py).
    campaign_id = campaign.pk
    transaction.on_commit(lambda: results.queue_default_results(campaign_id, user=by))
    return campaign


def _new_campaign(
    name: str, *, release: DatasetVersion | None, by: User | None, esa: bool = False
) -> Campaign:
    """A campaign that holds imported judgments only (one judge per item, no repeats); in ESA
    mode when the file carries ESA scores."""
    # Two imports into one new name both find no campaign; the second insert loses.
    campaign = create_unique(
        Campaign,
        lambda: Campaign.objects.create(
            name=name,
            mode=CampaignMode.ESA if esa else CampaignMode.RANKING,
            release=release,
            language=release.dataset.language if release is not None else Language.ENGLISH,
            judges_per_item=1,
            consistency_share=0.0,
            created_by=by,
        ),
        unique=["name"],
        values={"name": name},
        message=lambda existing: (
            f"{campaign_name_taken(existing)}: another import created it at the same time; "
            "nothing was imported, import the file again to add to it"
        ),
    )
    if by is not None:
        campaign.admins.add(by)
    return campaign


@dataclass
class _Scanned:
    systems: list[str] = field(default_factory=list)  # sorted, as JudgmentSet.systems
    blocks: list[list[list[str]]] = field(default_factory=list)  # each result's attributes
    esa: bool = False  # some entry carries an ESA score


def _scan(
    source: str | Path | bytes,
    campaign: Campaign | None,
    release: DatasetVersion | None,
    sentences: Mapping[str, tuple[int, str]],
    *,
    label: str,
    known: Sequence[str],
) -> _Scanned:
    """Read the whole file once, checking as it goes: well-formed, systems the campaign has
    (when it has some), every ranked sentence in the release (when there is one), and no
    judge given an item id twice; the systems named and each result's attributes."""
    existing = (
        set(Assignment.objects.filter(campaign=campaign).values_list("judge_name", "appraise_id"))
        if campaign is not None
        else set()
    )
    scanned = _Scanned()
    systems: set[str] = set()
    number = 0
    for read in _read_xml(source, systems=known or None, label=label):
        if isinstance(read, RankingResult):
            scanned.blocks.append([list(pair) for pair in read.attributes])
            continue
        number += 1
        place = f"<ranking-item> #{number} (id={read.item_id!r})"
        if release is not None and read.src_id not in sentences:
            raise ServiceError(
                f"{label}, {place}: sentence {read.src_id!r} is not in {release.label}",
                field=place,
            )
        if read.item_id and (read.user, read.item_id) in existing:
            raise ServiceError(
                f"{label}, {place}: duplicate item: user {read.user!r} already has id"
                f" {read.item_id!r} in campaign {campaign.name if campaign else ''!r}",
                field=place,
            )
        systems.update(read.systems)
        scanned.esa = scanned.esa or any(e.score is not None for e in read.entries)
    scanned.systems = sorted(systems)
    return scanned


def _esa_answers(ranking: RankingItem, shown: Sequence[ItemOutput]) -> list[dict[str, Any]]:
    """The ranking's ESA scores and spans as Judgment.esa (empty outside ESA). A span past the
    end of its output's text is refused: the file and the texts do not belong together."""
    answers = []
    for position, (entry, output) in enumerate(zip(ranking.entries, shown, strict=True)):
        if entry.score is None:
            continue
        for span in entry.spans:
            if span.end > len(output.text):
                raise ServiceError(
                    f"<ranking-item> id={ranking.item_id!r} (user {ranking.user!r}): an ESA span"
                    f" ends at character {span.end} of an output of {len(output.text)}"
                    " characters; give the output text (text=) or import on its release",
                    field="file",
                )
        answers.append(
            {
                "output": position,
                "score": entry.score,
                "spans": [
                    {"start": s.start, "end": s.end, "severity": s.severity, "origin": s.origin}
                    for s in entry.spans
                    if s.origin != "dismissed"
                ],
                "dismissed": [
                    {"start": s.start, "end": s.end} for s in entry.spans if s.origin == "dismissed"
                ],
            }
        )
    return answers


WRITE_BATCH = 500  # items written at a time (with their outputs, assignments, judgments)


def _write_items(
    campaign: Campaign,
    reads: Iterable[RankingResult | RankingItem],
    sentences: Mapping[str, tuple[int, str]],
) -> int:
    """Write one item, its shown outputs, one assignment and (unless skipped) one judgment
    per ranked item of the file, numbered after the campaign's last item, WRITE_BATCH items
    at a time; the item count."""
    lines = {
        s.name: s.outputs for s in CampaignSystem.objects.filter(campaign=campaign) if s.outputs
    }
    block = len(campaign.result_blocks) - 1
    last_item = Item.objects.filter(campaign=campaign).order_by("-number").first()
    next_number = last_item.number + 1 if last_item else 0
    batch: list[tuple[Item, RankingItem]] = []
    written = 0
    for read in reads:
        if isinstance(read, RankingResult):
            block += 1
            continue
        index, text = sentences.get(read.src_id, (-1, ""))
        item = Item(
            campaign=campaign,
            number=next_number + written + len(batch),
            src_id=read.src_id,
            doc_id=read.doc_id,
            source=text,
            block=block,
            system_count=sum(len(entry.systems) for entry in read.entries),
        )
        batch.append((item, read))
        if len(batch) >= WRITE_BATCH:
            written += _write_batch(campaign, batch, lines, sentences)
            batch = []
    return written + _write_batch(campaign, batch, lines, sentences)


def _write_batch(
    campaign: Campaign,
    batch: Sequence[tuple[Item, RankingItem]],
    lines: Mapping[str, list[str]],
    sentences: Mapping[str, tuple[int, str]],
) -> int:
    Item.objects.bulk_create([item for item, _ in batch])
    outputs: list[ItemOutput] = []
    assignments: list[Assignment] = []
    judgments: list[Judgment] = []
    for item, ranking in batch:
        index = sentences.get(ranking.src_id, (-1, ""))[0]
        for position, entry in enumerate(ranking.entries):
            shown = lines.get(entry.systems[0], [])
            outputs.append(
                ItemOutput(
                    item_id=item.pk,
                    position=position,
                    text=entry.text
                    if entry.text is not None
                    else (shown[index] if 0 <= index < len(shown) else ""),
                    systems=list(entry.systems),
                )
            )
        assignment = Assignment(
            campaign=campaign,
            item_id=item.pk,
            judge_name=ranking.user,
            order=item.number,
            status=AssignmentStatus.SKIPPED if not ranking.entries else AssignmentStatus.DONE,
            appraise_id=ranking.item_id,
            duration=ranking.duration,
            extra=[list(pair) for pair in ranking.extra],
        )
        assignments.append(assignment)
        if ranking.entries:
            judgments.append(
                Judgment(
                    assignment=assignment,
                    ranks=[e.rank for e in ranking.entries],
                    esa=_esa_answers(ranking, outputs[-len(ranking.entries) :]),
                    edit_verdicts=[
                        {
                            "output": position,
                            "edit": verdict.edit,
                            "correct": verdict.correct,
                            "source": verdict.source,
                            "target": verdict.target,
                        }
                        for position, entry in enumerate(ranking.entries)
                        for verdict in entry.edits
                    ],
                )
            )
    ItemOutput.objects.bulk_create(outputs)
    Assignment.objects.bulk_create(assignments)
    for judgment in judgments:
        judgment.assignment_id = judgment.assignment.pk
    Judgment.objects.bulk_create(judgments)
    return len(batch)


def export_judgments(*, campaign: Campaign, by: User | None = None) -> str:
    """The campaign's judgments as Appraise ranking XML (judges' user names, system names)."""
    text = write_judgments_xml(campaign_judgment_set(campaign))
    log_action(campaign, by, "judgments.export", {"format": "appraise-xml"})
    return text


def export_pairwise_csv(
    *, campaign: Campaign, by: User | None = None, expanded: bool = True
) -> str:
    """WMT pairwise CSV: ``expanded`` (one row per pair of systems, collapsed outputs split)
    or ``unexpanded`` (one row per pair of outputs shown, a collapsed output named by one of
    its systems)."""
    items = campaign_judgment_set(campaign).items
    pairs = pairwise_comparisons(items) if expanded else unexpanded_comparisons(items)
    layout = "expanded" if expanded else "unexpanded"
    log_action(campaign, by, "judgments.export", {"format": f"pairwise-csv-{layout}"})
    return write_pairwise_csv(pairs, testset=campaign.name.replace(".", "_"))


EDIT_CSV_COLUMNS = (
    "item",
    "src_id",
    "judge",
    "systems",
    "rank",
    "edit",
    "source",
    "target",
    "correct",
)


def export_edit_verdicts_csv(*, campaign: Campaign, by: User | None = None) -> str:
    """One row per judged edit: the item, the sentence, the judge, the systems of the shown
    output (space-separated), its rank, the edit's index and two sides, and the verdict."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EDIT_CSV_COLUMNS)
    for row in edit_verdict_rows(campaign):
        writer.writerow(
            [
                *(row[name] for name in EDIT_CSV_COLUMNS[:3]),
                " ".join(row["systems"]),
                row["rank"],
                row["edit"],
                row["source"],
                row["target"],
                "correct" if row["correct"] else "incorrect",
            ]
        )
    log_action(campaign, by, "judgments.export", {"format": "edit-verdicts-csv"})
    return out.getvalue()
