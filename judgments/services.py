"""Writing judgment campaigns: create one (items built, judges assigned), hand items out,
take judgments, reassign stale items, import and export Appraise XML.

Every service runs in one transaction and raises core.exceptions.ServiceError (or a subclass)
with a message a person can act on; nothing is half-written.
"""

from __future__ import annotations

import io
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from core.audit import log_action
from core.exceptions import Conflict, NotFound, PermissionDenied, ServiceError
from core.models import User
from datasets.models import DatasetVersion, Language
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
from judgments.selectors import campaign_judgment_set, judge_view_of_item
from scoring.gec.meta.judgments import (
    JudgmentFormatError,
    read_judgments_xml,
    unexpanded_comparisons,
    write_judgments_xml,
    write_pairwise_csv,
)
from scoring.gec.meta.judgments import pairwise as pairwise_comparisons

MAX_SHARE = 1.0


# --- creating a campaign ---------------------------------------------------------------------


def release_sources(release: DatasetVersion) -> list[tuple[str, str]]:
    """(sentence id, text) of each released sentence, in release order."""
    return list(release.sentences.order_by("position").values_list("external_id", "text"))


REFERENCE_SYSTEM = "REF"


def release_reference_outputs(release: DatasetVersion) -> list[str]:
    """The first golden reference of each released sentence (the source when it has none),
    judged as a hidden control system named REF."""
    return [
        str(references[0]) if references else text
        for text, references in release.sentences.order_by("position").values_list(
            "text", "references"
        )
    ]


@transaction.atomic
def create_campaign(
    *,
    name: str,
    system_outputs: Mapping[str, Sequence[str]],
    sources: Sequence[tuple[str, str]] | None = None,
    release: DatasetVersion | None = None,
    mode: str = CampaignMode.RANKING,
    judges: Sequence[User] = (),
    admins: Sequence[User] = (),
    judges_per_item: int = 2,
    outputs_per_item: int = 5,
    agreement_share: float = 0.0,
    consistency_share: float = 0.1,
    seed: int = 0,
    guideline: str = "",
    language: str | None = None,
    include_references: bool = False,
    created_by: User | None = None,
) -> Campaign:
    """A campaign over `system_outputs` ({system name: one output line per sentence}) of
    `sources` ((sentence id, text) pairs; the release's sentences when omitted), with its items
    built and handed to `judges_per_item` distinct judges each.

    The platform flow "judge scored systems of a release" passes the release and the scored
    outputs' lines; nothing here reads the scoring app. `include_references` adds the
    release's first references as one more system, REF (a hidden control: judges see an
    output like any other).
    """
    name = name.strip()
    if not name:
        raise ServiceError("a campaign needs a name", field="name")
    if Campaign.objects.filter(name=name).exists():
        raise Conflict(f"a campaign named {name!r} exists already", field="name")
    if mode not in CampaignMode.values:
        raise ServiceError(f"mode must be one of {', '.join(CampaignMode.values)}", field="mode")
    if sources is None:
        if release is None:
            raise ServiceError("give the sentences or a release", field="release")
        sources = release_sources(release)
    if include_references:
        if release is None:
            raise ServiceError("references as controls need a release", field="release")
        if REFERENCE_SYSTEM in system_outputs:
            raise ServiceError(
                f"a system is named {REFERENCE_SYSTEM}, the name of the reference control",
                field="systems",
            )
        system_outputs = {**system_outputs, REFERENCE_SYSTEM: release_reference_outputs(release)}
    if len(system_outputs) < 2:
        raise ServiceError("a campaign ranks at least two systems", field="systems")
    for system, lines in system_outputs.items():
        if not system.strip() or any(ch.isspace() for ch in system):
            raise ServiceError(
                f"system name {system!r} must be one word (Appraise separates names by spaces)",
                field="systems",
            )
        if len(lines) != len(sources):
            raise ServiceError(
                f"system {system!r} has {len(lines)} lines for {len(sources)} sentences",
                field="systems",
            )
    if judges_per_item < 1:
        raise ServiceError("each item needs at least one judge", field="judges_per_item")
    if outputs_per_item < 2:
        raise ServiceError("an item shows at least two outputs", field="outputs_per_item")
    for field, share in (
        ("agreement_share", agreement_share),
        ("consistency_share", consistency_share),
    ):
        if not 0 <= share <= MAX_SHARE:
            raise ServiceError(f"{field} must be between 0 and 1", field=field)
    judge_list = list(dict.fromkeys(judges))
    if len(judge_list) < judges_per_item:
        raise ServiceError(
            f"{judges_per_item} judges per item need at least that many judges in the pool"
            f" (got {len(judge_list)})",
            field="judges",
        )
    if language is None:
        language = release.dataset.language if release is not None else Language.CHINESE
    campaign = Campaign.objects.create(
        name=name,
        mode=mode,
        release=release,
        language=language,
        judges_per_item=judges_per_item,
        outputs_per_item=outputs_per_item,
        agreement_share=agreement_share,
        consistency_share=consistency_share,
        seed=seed,
        guideline=guideline,
        result_blocks=[[["id", name], ["source-language", "err"], ["target-language", "cor"]]],
        created_by=created_by,
    )
    campaign.judges.set(judge_list)
    campaign.admins.set([a for a in admins] + ([created_by] if created_by else []))
    for position, (system, lines) in enumerate(system_outputs.items()):
        CampaignSystem.objects.create(
            campaign=campaign, name=system, position=position, outputs=list(lines)
        )
    items = _build_items(campaign, sources, system_outputs)
    _assign_judges(campaign, items, judge_list)
    log_action(
        campaign,
        created_by,
        "judgments.create_campaign",
        {"systems": list(system_outputs), "items": len(items), "judges": len(judge_list)},
    )
    return campaign


def _build_items(
    campaign: Campaign,
    sources: Sequence[tuple[str, str]],
    system_outputs: Mapping[str, Sequence[str]],
) -> list[Item]:
    """One item per sentence with at least two different outputs: systems in a seeded random
    order, identical outputs collapsed into one shown output, the first N distinct kept."""
    items: list[Item] = []
    outputs: list[ItemOutput] = []
    names = list(system_outputs)
    for index, (src_id, text) in enumerate(sources):
        rng = random.Random(f"{campaign.seed}:{index}")
        order = names[:]
        rng.shuffle(order)
        by_text: dict[str, list[str]] = {}
        for system in order:
            line = system_outputs[system][index]
            if line in by_text or len(by_text) < campaign.outputs_per_item:
                by_text.setdefault(line, []).append(system)
        if len(by_text) < 2:
            continue  # nothing to rank: every system wrote the same sentence
        item = Item(campaign=campaign, number=len(items), src_id=str(src_id), source=text)
        items.append(item)
        outputs.extend(
            ItemOutput(item=item, position=position, text=line, systems=sorted(systems))
            for position, (line, systems) in enumerate(by_text.items())
        )
    Item.objects.bulk_create(items)
    for output in outputs:
        output.item_id = output.item.pk
    ItemOutput.objects.bulk_create(outputs)
    return items


def _assign_judges(campaign: Campaign, items: Sequence[Item], judges: Sequence[User]) -> None:
    """k distinct judges per item, least-loaded first; a share of items to one more judge
    (inter agreement, when k leaves room); a share of each judge's items shown again later."""
    rng = random.Random(f"{campaign.seed}:assign")
    load: dict[int, int] = {judge.pk: 0 for judge in judges}
    by_pk = {judge.pk: judge for judge in judges}
    rows: list[Assignment] = []
    per_judge: dict[int, list[Assignment]] = defaultdict(list)
    for item in items:
        wanted = campaign.judges_per_item
        if wanted < len(judges) and rng.random() < campaign.agreement_share:
            wanted += 1
        candidates = sorted(load, key=lambda pk: (load[pk], rng.random()))[:wanted]
        for pk in candidates:
            load[pk] += 1
            assignment = Assignment(
                campaign=campaign,
                item=item,
                judge=by_pk[pk],
                judge_name=by_pk[pk].username,
                order=len(per_judge[pk]),
            )
            per_judge[pk].append(assignment)
            rows.append(assignment)
    for pk, mine in per_judge.items():
        repeats = round(len(mine) * campaign.consistency_share)
        for first in rng.sample(mine, repeats):
            rows.append(
                Assignment(
                    campaign=campaign,
                    item=first.item,
                    judge=by_pk[pk],
                    judge_name=by_pk[pk].username,
                    repeat=True,
                    order=len(mine) + first.order,  # after every first showing
                )
            )
    Assignment.objects.bulk_create(rows)


# --- judging ---------------------------------------------------------------------------------


def _check_judge(campaign: Campaign, judge: User) -> None:
    if not campaign.judges.filter(pk=judge.pk).exists():
        raise PermissionDenied("you are not a judge of this campaign", field="campaign")


@transaction.atomic
def next_assignment(*, campaign: Campaign, judge: User) -> Assignment | None:
    """The judge's next pending item (marked started now if it was not), or None when done."""
    _check_judge(campaign, judge)
    assignment = (
        Assignment.objects.select_for_update()
        .filter(campaign=campaign, judge=judge, status=AssignmentStatus.PENDING)
        .order_by("order", "id")
        .first()
    )
    if assignment is not None and assignment.started_at is None:
        assignment.started_at = timezone.now()
        assignment.save(update_fields=["started_at"])
    return assignment


def start_assignment(assignment: Assignment) -> None:
    """Record when the judge first opened the item (time spent runs from here)."""
    if assignment.started_at is None and assignment.status == AssignmentStatus.PENDING:
        Assignment.objects.filter(pk=assignment.pk, started_at__isnull=True).update(
            started_at=timezone.now()
        )
        assignment.refresh_from_db(fields=["started_at"])


def _locked_pending(assignment_id: int, judge: User) -> Assignment:
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("campaign", "item")
        .filter(pk=assignment_id, judge=judge)
        .first()
    )
    if assignment is None:
        raise NotFound(f"no assignment {assignment_id} of yours", field="assignment")
    if assignment.status != AssignmentStatus.PENDING:
        raise Conflict("this item was judged or skipped already", field="assignment")
    return assignment


def _validate_ranks(ranks: Sequence[Any], count: int) -> list[int]:
    if len(ranks) != count:
        raise ServiceError(f"give one rank per output ({count}, got {len(ranks)})", field="ranks")
    out = []
    for position, rank in enumerate(ranks):
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= count:
            raise ServiceError(
                f"output {position + 1}: rank must be a whole number from 1 to {count}"
                f" (got {rank!r})",
                field="ranks",
            )
        out.append(rank)
    return out


def _validate_verdicts(
    verdicts: Sequence[Mapping[str, Any]], view: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One correct/incorrect verdict for every edit of every shown output."""
    wanted = {(o["position"], e["index"]) for o in view["outputs"] for e in o["edits"]}
    given: dict[tuple[int, int], bool] = {}
    for verdict in verdicts:
        try:
            key = (int(verdict["output"]), int(verdict["edit"]))
            correct = verdict["correct"]
        except (KeyError, TypeError, ValueError):
            raise ServiceError(
                'each verdict is {"output": n, "edit": n, "correct": true|false}',
                field="edit_verdicts",
            ) from None
        if key not in wanted or not isinstance(correct, bool):
            raise ServiceError(f"no edit {key[1]} in output {key[0]}", field="edit_verdicts")
        given[key] = correct
    missing = sorted(wanted - set(given))
    if missing:
        output, edit = missing[0]
        raise ServiceError(
            f"mark every edit correct or incorrect ({len(missing)} left, first: output"
            f" {output + 1}, edit {edit + 1})",
            field="edit_verdicts",
        )
    return [{"output": o, "edit": e, "correct": given[(o, e)]} for o, e in sorted(given)]


@transaction.atomic
def submit_judgment(
    *,
    assignment_id: int,
    judge: User,
    ranks: Sequence[Any],
    edit_verdicts: Sequence[Mapping[str, Any]] = (),
) -> Judgment:
    """Store the judge's ranks (and edit verdicts in edits mode). The assignment row is locked
    and the judgment is one per assignment, so of two concurrent submits one wins and the
    other gets a Conflict."""
    assignment = _locked_pending(assignment_id, judge)
    outputs = list(assignment.item.outputs.all())
    clean_ranks = _validate_ranks(ranks, len(outputs))
    verdicts: list[dict[str, Any]] = []
    if assignment.campaign.mode == CampaignMode.EDITS:
        view = judge_view_of_item(assignment.item, language=assignment.campaign.language)
        verdicts = _validate_verdicts(edit_verdicts, view)
    now = timezone.now()
    try:
        with transaction.atomic():
            judgment = Judgment.objects.create(
                assignment=assignment, ranks=clean_ranks, edit_verdicts=verdicts
            )
    except IntegrityError:
        raise Conflict("this item was judged already", field="assignment") from None
    started = assignment.started_at or now
    assignment.status = AssignmentStatus.DONE
    assignment.finished_at = now
    assignment.seconds_spent = max(0.0, (now - started).total_seconds())
    assignment.save(update_fields=["status", "finished_at", "seconds_spent", "started_at"])
    log_action(assignment, judge, "judgments.submit", {"ranks": clean_ranks})
    return judgment


@transaction.atomic
def skip_assignment(*, assignment_id: int, judge: User) -> Assignment:
    """The judge passes on the item (recorded as Appraise's skipped="true")."""
    assignment = _locked_pending(assignment_id, judge)
    assignment.status = AssignmentStatus.SKIPPED
    assignment.finished_at = timezone.now()
    assignment.save(update_fields=["status", "finished_at"])
    log_action(assignment, judge, "judgments.skip")
    return assignment


@transaction.atomic
def reassign_stale(
    *, campaign: Campaign, older_than: timedelta, by: User | None = None
) -> list[Assignment]:
    """Hand items opened more than `older_than` ago and not finished to the least-loaded judge
    of the pool who does not have that item yet (the judge's repeat showing moves too)."""
    cutoff = timezone.now() - older_than
    stale = list(
        Assignment.objects.select_for_update(of=("self",))
        .filter(
            campaign=campaign,
            status=AssignmentStatus.PENDING,
            repeat=False,
            started_at__lt=cutoff,
        )
        .select_related("judge")
    )
    pool = list(campaign.judges.all())
    moved: list[Assignment] = []
    for assignment in stale:
        holders = set(
            Assignment.objects.filter(item=assignment.item).values_list("judge_id", flat=True)
        )
        free = [judge for judge in pool if judge.pk not in holders]
        if not free:
            continue
        pending = dict(
            Assignment.objects.filter(
                campaign=campaign, status=AssignmentStatus.PENDING, judge__in=free
            )
            .values_list("judge_id")
            .annotate(n=Count("id"))
        )
        new_judge = min(free, key=lambda j: (pending.get(j.pk, 0), j.pk))
        old_judge = assignment.judge
        Assignment.objects.filter(
            item=assignment.item, judge=old_judge, repeat=True, status=AssignmentStatus.PENDING
        ).update(judge=new_judge, judge_name=new_judge.username)
        assignment.judge = new_judge
        assignment.judge_name = new_judge.username
        assignment.started_at = None
        assignment.save(update_fields=["judge", "judge_name", "started_at"])
        log_action(
            assignment,
            by,
            "judgments.reassign",
            {"from": old_judge.username if old_judge else "", "to": new_judge.username},
        )
        moved.append(assignment)
    return moved


# --- Appraise XML and CSV --------------------------------------------------------------------


def _read_xml(source: str | Path | bytes, *, systems: Sequence[str] | None, label: str) -> Any:
    try:
        if isinstance(source, bytes):
            handle = io.BytesIO(source)
            handle.name = label  # type: ignore[attr-defined]
            return read_judgments_xml(handle, systems=systems)
        return read_judgments_xml(source, systems=systems)
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
) -> Campaign:
    """Load an Appraise ranking XML file into campaign `campaign_name` (created if new).

    All or nothing: malformed XML (line and column), a system the campaign does not have, a
    sentence id not in the release, an item id the same judge already has: a ServiceError
    naming the place, and no row written. Without a release the campaign stands alone, its
    systems and sentences named by the file.
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
        campaign = Campaign.objects.create(
            name=campaign_name,
            release=release,
            language=release.dataset.language if release is not None else Language.ENGLISH,
            judges_per_item=1,
            consistency_share=0.0,
            created_by=by,
        )
        if by is not None:
            campaign.admins.add(by)
    release = campaign.release
    sentences: dict[str, tuple[int, str]] = {}
    if release is not None:
        sentences = {
            ext: (index, text) for index, (ext, text) in enumerate(release_sources(release))
        }
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
    new_systems = [s for s in judgments.systems if s not in known]
    CampaignSystem.objects.bulk_create(
        CampaignSystem(campaign=campaign, name=name, position=len(known) + offset)
        for offset, name in enumerate(new_systems)
    )
    lines = {
        s.name: s.outputs for s in CampaignSystem.objects.filter(campaign=campaign) if s.outputs
    }
    first_block = len(campaign.result_blocks)
    first_number = Item.objects.filter(campaign=campaign).order_by("-number").first()
    next_number = first_number.number + 1 if first_number else 0
    items: list[Item] = []
    outputs: list[ItemOutput] = []
    assignments: list[Assignment] = []
    judgment_ranks: list[tuple[Assignment, list[int]]] = []
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
    Item.objects.bulk_create(items, batch_size=500)
    for output in outputs:
        output.item_id = output.item.pk
    for assignment in assignments:
        assignment.item_id = assignment.item.pk
    ItemOutput.objects.bulk_create(outputs, batch_size=500)
    Assignment.objects.bulk_create(assignments, batch_size=500)
    Judgment.objects.bulk_create(
        (Judgment(assignment_id=a.pk, ranks=ranks) for a, ranks in judgment_ranks),
        batch_size=500,
    )
    campaign.result_blocks = [
        *campaign.result_blocks,
        *([list(pair) for pair in result.attributes] for result in judgments.results),
    ]
    campaign.save(update_fields=["result_blocks"])
    log_action(
        campaign,
        by,
        "judgments.import",
        {"file": label, "items": len(items), "systems": new_systems},
    )
    return campaign


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


def campaign_admin_check(campaign: Campaign, user: User) -> None:
    from judgments.selectors import is_campaign_admin

    if not is_campaign_admin(user, campaign):
        raise NotFound(f"no judgment campaign {campaign.pk}", field="campaign")
