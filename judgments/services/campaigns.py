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
from judgments import attention
from judgments.models import (
    Assignment,
    AttentionFeedback,
    Campaign,
    CampaignMode,
    CampaignSystem,
    CheckKind,
    Item,
    ItemOutput,
)

MAX_SHARE = 1.0
# Above this share a judge would spend more time on checks than on the campaign's items.
MAX_ATTENTION_SHARE = 0.5


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
    attention_share: float = 0.0,
    attention_feedback: str = AttentionFeedback.SILENT,
    dynamic: bool = False,
    created_by: User | None = None,
) -> Campaign:
    """A campaign over `system_outputs` ({system name: one output line per sentence}) of
    `sources` ((sentence id, text) pairs; the release's sentences when omitted), with its items
    built and handed to `judges_per_item` distinct judges each.

    Nothing here reads the scoring app. `include_references` adds the release's first
    references as one more system, REF (a hidden control, shown like any output).

    `attention_share`: checks' share of each judge's items (judgments/attention.py);
    `dynamic`: items chosen as judges ask (judgments/services/dynamic.py).
    """
    _check_attention(attention_share, attention_feedback, release)
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
        language=language or _language_of(release),
        judges_per_item=judges_per_item,
        outputs_per_item=outputs_per_item,
        agreement_share=agreement_share,
        consistency_share=consistency_share,
        seed=seed,
        guideline=guideline,
        attention_share=attention_share,
        attention_feedback=attention_feedback,
        dynamic=dynamic,
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
    _fill(
        campaign,
        judge_list,
        [*admins, *([created_by] if created_by else [])],
        sources,
        system_outputs,
    )
    return campaign


def _fill(
    campaign: Campaign,
    judges: list[User],
    admins: list[User],
    sources: Sequence[tuple[str, str]],
    system_outputs: Mapping[str, Sequence[str]],
) -> None:
    """A new campaign's judges, admins, systems and items, each item handed to its judges."""
    campaign.judges.set(judges)
    campaign.admins.set(admins)
    for position, (system, lines) in enumerate(system_outputs.items()):
        CampaignSystem.objects.create(
            campaign=campaign, name=system, position=position, outputs=list(lines)
        )
    items = _build_items(campaign, sources, system_outputs)
    checks = _assign_judges(campaign, items, judges, system_outputs)
    log_action(
        campaign,
        campaign.created_by,
        "judgments.create_campaign",
        {
            "systems": list(system_outputs),
            "items": len(items),
            "judges": len(judges),
            "attention_checks": checks,
            "dynamic": campaign.dynamic,
        },
    )


def _language_of(release: DatasetVersion | None) -> str:
    return release.dataset.language if release is not None else Language.CHINESE


@transaction.atomic
def set_attention_threshold(
    *, campaign: Campaign, threshold: float | None, by: User | None = None
) -> Campaign:
    """Leave judges whose attention-check pass rate is under `threshold` (0-1) out of the
    campaign's results; None counts every judge. The results' state includes the threshold,
    so the stored results are recomputed."""
    if threshold is not None and (
        isinstance(threshold, bool) or not 0 <= threshold <= 1 or threshold != threshold
    ):
        raise ServiceError(
            f"the pass-rate threshold must be between 0 and 1 (got {threshold!r})",
            field="attention_threshold",
        )
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    before = locked.attention_threshold
    locked.attention_threshold = threshold
    locked.save(update_fields=["attention_threshold"])
    campaign.attention_threshold = threshold
    log_action(locked, by, "judgments.attention_threshold", {"from": before, "to": threshold})
    return locked


def _check_attention(share: float, feedback: str, release: DatasetVersion | None) -> None:
    if not 0 <= share <= MAX_ATTENTION_SHARE:
        raise ServiceError(
            f"attention_share must be between 0 and {MAX_ATTENTION_SHARE} (got {share!r})",
            field="attention_share",
        )
    if feedback not in AttentionFeedback.values:
        raise ServiceError(
            f"attention feedback must be one of {', '.join(AttentionFeedback.values)}"
            f" (got {feedback!r})",
            field="attention_feedback",
        )
    if share and release is None:
        raise ServiceError(
            "attention checks are built from a release's golden references: give a release",
            field="attention_share",
        )


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


def _assign_judges(
    campaign: Campaign,
    items: Sequence[Item],
    judges: Sequence[User],
    system_outputs: Mapping[str, Sequence[str]],
) -> int:
    """k distinct judges per item, least-loaded first; a share of items to one more judge
    (inter agreement, when k leaves room); a share of each judge's items shown again later;
    attention checks mixed in at random places. A dynamic campaign fixes only each item's
    number of judges and each judge's checks here: the rest is chosen as judges ask
    (judgments/services/dynamic.py). Returns the number of checks."""
    rng = random.Random(f"{campaign.seed}:assign")
    load: dict[int, int] = {judge.pk: 0 for judge in judges}
    by_pk = {judge.pk: judge for judge in judges}
    per_judge: dict[int, list[Assignment]] = defaultdict(list)
    for item in items:
        wanted = campaign.judges_per_item
        if wanted < len(judges) and rng.random() < campaign.agreement_share:
            wanted += 1
        item.judges_wanted = wanted
        if campaign.dynamic:
            continue
        candidates = sorted(load, key=lambda pk: (load[pk], rng.random()))[:wanted]
        for pk in candidates:
            load[pk] += 1
            per_judge[pk].append(
                Assignment(
                    campaign=campaign, item=item, judge=by_pk[pk], judge_name=by_pk[pk].username
                )
            )
    Item.objects.bulk_update(items, ["judges_wanted"], batch_size=1000)
    if campaign.dynamic:
        # each judge's expected share of the slots: their checks are sized on it
        slots = sum(item.judges_wanted for item in items)
        expected = -(-slots // max(1, len(judges)))
        checks = {
            judge.pk: attention.checks_for(expected, campaign.attention_share) for judge in judges
        }
    else:
        checks = {
            judge.pk: attention.checks_for(len(per_judge[judge.pk]), campaign.attention_share)
            for judge in judges
        }
    check_items = _build_check_items(campaign, sum(checks.values()), len(items), system_outputs)
    rows: list[Assignment] = []
    for judge in judges:
        mine = per_judge[judge.pk]
        first = mine + [
            Assignment(
                campaign=campaign, item=check_items.pop(), judge=judge, judge_name=judge.username
            )
            for _ in range(checks[judge.pk])
        ]
        # checks at random places among the first showings; never repeated
        rng.shuffle(first)
        for order, assignment in enumerate(first):
            assignment.order = order
        repeats = round(len(mine) * campaign.consistency_share)
        for original in rng.sample(mine, repeats):
            first.append(
                Assignment(
                    campaign=campaign,
                    item=original.item,
                    judge=judge,
                    judge_name=judge.username,
                    repeat=True,
                    order=len(first) + original.order,  # after every first showing
                )
            )
        rows.extend(first)
    # ids in queue order: an id says nothing about which of a judge's items are checks
    rows.sort(key=lambda a: (a.order, a.judge_name))
    Assignment.objects.bulk_create(rows)
    return sum(checks.values())


def _build_check_items(
    campaign: Campaign, count: int, first_number: int, system_outputs: Mapping[str, Sequence[str]]
) -> list[Item]:
    """`count` attention-check items (numbered after the campaign's items), half of each kind
    in a random mix, on the release's sentences in a seeded random order."""
    if not count:
        return []
    sentences = attention.check_sentences(campaign)
    if not sentences:
        raise ServiceError(
            "attention checks need a released sentence whose golden reference differs from"
            " its source; this release has none",
            field="attention_share",
        )
    rng = random.Random(f"{campaign.seed}:attention")
    rng.shuffle(sentences)
    kinds = [CheckKind.REFERENCE_OVER_SOURCE, CheckKind.PLANTED_ERROR] * (count // 2 + 1)
    rng.shuffle(kinds)
    built: list[tuple[Item, list[ItemOutput]]] = []
    attempt = 0
    while len(built) < count and attempt < count * 4 + len(sentences):
        sentence = sentences[attempt % len(sentences)]
        kind = kinds[len(built) % len(kinds)]
        one = attention.build_check_item(
            campaign,
            number=first_number + len(built),
            sentence=sentence,
            kind=kind,
            system_outputs=system_outputs,
            rng=rng,
        ) or attention.build_check_item(
            campaign,
            number=first_number + len(built),
            sentence=sentence,
            kind=CheckKind.REFERENCE_OVER_SOURCE,
            system_outputs=system_outputs,
            rng=rng,
        )
        attempt += 1
        if one is not None:
            built.append(one)
    Item.objects.bulk_create([item for item, _ in built])
    outputs = [output for item, item_outputs in built for output in item_outputs]
    for output in outputs:
        output.item_id = output.item.pk
    ItemOutput.objects.bulk_create(outputs)
    items = [item for item, _ in built]
    rng.shuffle(items)
    return items
