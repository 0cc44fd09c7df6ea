"""Appraise ranking XML in (all or nothing: parse -> check -> write) and out (edit verdicts
as <edit> elements inside each <translation>), WMT pairwise CSV out, and the edit verdicts as
CSV (one row per judged edit)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from django.db import transaction
from gecscore.meta.judgments import (
    JudgmentFormatError,
    JudgmentSet,
    read_judgments_xml,
    unexpanded_comparisons,
    write_judgments_xml,
    write_pairwise_csv,
)
from gecscore.meta.judgments import pairwise as pairwise_comparisons

from core.audit import log_action
from core.exceptions import ServiceError
from core.jobs import settle_job
from core.models import User
from core.unique import create_unique
from core.uploads import judgments_xml_limits
from datasets.models import DatasetVersion, Language
from judgments import results
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignSystem,
    Item,
    ItemOutput,
    Judgment,
)
from judgments.selectors import campaign_judgment_set, edit_verdict_rows
from judgments.services.campaigns import campaign_name_taken, release_sources


def _read_xml(
    source: str | Path | bytes, *, systems: Sequence[str] | None, label: str
) -> JudgmentSet:
    """The file read as a stream through the one bounded reader, within the Appraise XML
    limits (core/uploads.py: size, lines, nesting depth)."""
    try:
        return read_judgments_xml(
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
    judgments = _read_xml(source, systems=known or None, label=label)
    if campaign is None:
        campaign = _new_campaign(campaign_name, release=release, by=by)
    sentences: dict[str, tuple[int, str]] = {}
    if campaign.release is not None:
        sentences = {
            ext: (index, text)
            for index, (ext, text) in enumerate(release_sources(campaign.release))
        }
    _check_items(campaign, judgments, sentences, label=label)
    new_systems = [s for s in judgments.systems if s not in known]
    CampaignSystem.objects.bulk_create(
        CampaignSystem(campaign=campaign, name=name, position=len(known) + offset)
        for offset, name in enumerate(new_systems)
    )
    items = _write_items(campaign, judgments, sentences)
    campaign.result_blocks = [
        *campaign.result_blocks,
        *([list(pair) for pair in result.attributes] for result in judgments.results),
    ]
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


def _new_campaign(name: str, *, release: DatasetVersion | None, by: User | None) -> Campaign:
    """A campaign that holds imported judgments only (one judge per item, no repeats)."""
    # Two imports into one new name both find no campaign; the second insert loses.
    campaign = create_unique(
        Campaign,
        lambda: Campaign.objects.create(
            name=name,
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


def _check_items(
    campaign: Campaign,
    judgments: JudgmentSet,
    sentences: Mapping[str, tuple[int, str]],
    *,
    label: str,
) -> None:
    """Every ranked sentence is in the campaign's release (when it has one), and no judge
    gets an item id twice."""
    release = campaign.release
    existing = set(
        Assignment.objects.filter(campaign=campaign).values_list("judge_name", "appraise_id")
    )
    number = 0
    for result in judgments.results:
        for item in result.items:
            number += 1
            place = f"<ranking-item> #{number} (id={item.item_id!r})"
            if release is not None and item.src_id not in sentences:
                raise ServiceError(
                    f"{label}, {place}: sentence {item.src_id!r} is not in {release.label}",
                    field=place,
                )
            if item.item_id and (item.user, item.item_id) in existing:
                raise ServiceError(
                    f"{label}, {place}: duplicate item: user {item.user!r} already has id"
                    f" {item.item_id!r} in campaign {campaign.name!r}",
                    field=place,
                )


def _write_items(
    campaign: Campaign, judgments: JudgmentSet, sentences: Mapping[str, tuple[int, str]]
) -> int:
    """Write one item, its shown outputs, one assignment and (unless skipped) one judgment
    per ranked item of the file, numbered after the campaign's last item; the item count."""
    lines = {
        s.name: s.outputs for s in CampaignSystem.objects.filter(campaign=campaign) if s.outputs
    }
    first_block = len(campaign.result_blocks)
    last_item = Item.objects.filter(campaign=campaign).order_by("-number").first()
    next_number = last_item.number + 1 if last_item else 0
    items: list[Item] = []
    outputs: list[ItemOutput] = []
    assignments: list[Assignment] = []
    judgment_ranks: list[tuple[Assignment, list[int]]] = []
    judgment_verdicts: list[list[dict[str, object]]] = []
    for block, result in enumerate(judgments.results, start=first_block):
        for ranking in result.items:
            index, text = sentences.get(ranking.src_id, (-1, ""))
            item = Item(
                campaign=campaign,
                number=next_number + len(items),
                src_id=ranking.src_id,
                doc_id=ranking.doc_id,
                source=text,
                block=block,
                system_count=sum(len(entry.systems) for entry in ranking.entries),
            )
            items.append(item)
            for position, entry in enumerate(ranking.entries):
                shown = lines.get(entry.systems[0], [])
                outputs.append(
                    ItemOutput(
                        item=item,
                        position=position,
                        text=shown[index] if 0 <= index < len(shown) else "",
                        systems=list(entry.systems),
                    )
                )
            assignment = Assignment(
                campaign=campaign,
                item=item,
                judge_name=ranking.user,
                order=item.number,
                status=AssignmentStatus.SKIPPED if not ranking.entries else AssignmentStatus.DONE,
                appraise_id=ranking.item_id,
                duration=ranking.duration,
                extra=[list(pair) for pair in ranking.extra],
            )
            assignments.append(assignment)
            if ranking.entries:
                judgment_ranks.append((assignment, [e.rank for e in ranking.entries]))
                judgment_verdicts.append(
                    [
                        {
                            "output": position,
                            "edit": verdict.edit,
                            "correct": verdict.correct,
                            "source": verdict.source,
                            "target": verdict.target,
                        }
                        for position, entry in enumerate(ranking.entries)
                        for verdict in entry.edits
                    ]
                )
    Item.objects.bulk_create(items, batch_size=500)
    for output in outputs:
        output.item_id = output.item.pk
    for assignment in assignments:
        assignment.item_id = assignment.item.pk
    ItemOutput.objects.bulk_create(outputs, batch_size=500)
    Assignment.objects.bulk_create(assignments, batch_size=500)
    Judgment.objects.bulk_create(
        (
            Judgment(assignment_id=a.pk, ranks=ranks, edit_verdicts=verdicts)
            for (a, ranks), verdicts in zip(judgment_ranks, judgment_verdicts, strict=True)
        ),
        batch_size=500,
    )
    return len(items)


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
