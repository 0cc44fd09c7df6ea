"""Creating a judgment campaign: check the request, write the campaign and its systems,
build the items, hand each to k judges."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.db import transaction

from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.models import User
from core.unique import create_unique
from datasets.models import DatasetVersion, Language
from judgments.models import (
    Assignment,
    Campaign,
    CampaignMode,
    CampaignSystem,
    Item,
    ItemOutput,
)

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
    name, sources, system_outputs = _checked_request(
        name=name,
        system_outputs=system_outputs,
        sources=sources,
        release=release,
        mode=mode,
        include_references=include_references,
    )
    judge_list = _checked_pool(
        judges=judges,
        judges_per_item=judges_per_item,
        outputs_per_item=outputs_per_item,
        shares={"agreement_share": agreement_share, "consistency_share": consistency_share},
    )
    fields = dict(
        name=name,
        mode=mode,
        release=release,
        language=language if language is not None else _language_of(release),
        judges_per_item=judges_per_item,
        outputs_per_item=outputs_per_item,
        agreement_share=agreement_share,
        consistency_share=consistency_share,
        seed=seed,
        guideline=guideline,
        result_blocks=[[["id", name], ["source-language", "err"], ["target-language", "cor"]]],
        created_by=created_by,
    )
    campaign = create_unique(
        Campaign,
        lambda: Campaign.objects.create(**fields),
        unique=["name"],
        values={"name": name},
        message=campaign_name_taken,
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


def _language_of(release: DatasetVersion | None) -> str:
    return release.dataset.language if release is not None else Language.CHINESE


def campaign_name_taken(existing: Campaign) -> str:
    return f"a campaign named {existing.name!r} exists already (campaign {existing.pk})"


def _checked_request(
    *,
    name: str,
    system_outputs: Mapping[str, Sequence[str]],
    sources: Sequence[tuple[str, str]] | None,
    release: DatasetVersion | None,
    mode: str,
    include_references: bool,
) -> tuple[str, Sequence[tuple[str, str]], Mapping[str, Sequence[str]]]:
    """The campaign's name, sentences and systems (REF added when asked), each checked."""
    name = name.strip()
    if not name:
        raise ServiceError("a campaign needs a name", field="name")
    existing = Campaign.objects.filter(name=name).first()
    if existing is not None:
        raise Conflict(campaign_name_taken(existing), field="name")
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
    return name, sources, system_outputs


def _checked_pool(
    *,
    judges: Sequence[User],
    judges_per_item: int,
    outputs_per_item: int,
    shares: Mapping[str, float],
) -> list[User]:
    """The distinct judges, once the per-item counts and shares are checked against them."""
    if judges_per_item < 1:
        raise ServiceError("each item needs at least one judge", field="judges_per_item")
    if outputs_per_item < 2:
        raise ServiceError("an item shows at least two outputs", field="outputs_per_item")
    for field, share in shares.items():
        if not 0 <= share <= MAX_SHARE:
            raise ServiceError(f"{field} must be between 0 and 1", field=field)
    judge_list = list(dict.fromkeys(judges))
    if len(judge_list) < judges_per_item:
        raise ServiceError(
            f"{judges_per_item} judges per item need at least that many judges in the pool"
            f" (got {len(judge_list)})",
            field="judges",
        )
    return judge_list


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
        item = Item(
            campaign=campaign,
            number=len(items),
            src_id=str(src_id),
            source=text,
            system_count=sum(len(systems) for systems in by_text.values()),
        )
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
