"""Reading judgment campaigns: what a judge may see, the judgments as the library's
JudgmentSet, and the human scores the scoring side's meta-evaluation page uses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import Count, Q, QuerySet

from core.exceptions import NotFound
from core.roles import Role, has_role
from core.web import parse_id
from datasets.extraction import diff_segments, edits_between, segments_as_dicts
from datasets.models import DatasetVersion
from gecscore import (
    ADMIN_USER,
    EditVerdict,
    EsaSpan,
    JudgmentSet,
    RankedEntry,
    RankingItem,
    RankingResult,
    edit_precision,
    edit_report,
    esa_report,
    esa_system_results,
    expected_wins,
    human_ranking,
    pairwise_comparisons,
    rank_trueskill,
    verdict_rankings,
)
from judgments import signals
from judgments.esa import esa_rows
from judgments.judge_stats import judge_statistics
from judgments.limits import ResultsLimits
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignMode,
    Item,
    Judgment,
)

HUMAN_METHODS = ("ew", "trueskill")
# Human scores from the edit verdicts of an edits-mode campaign (gecscore.meta.edits): Expected
# Wins / TrueSkill of the outputs ordered by net correct edits, and edit precision.
EDIT_METHODS = ("edit-ew", "edit-trueskill", "edit-precision")
# The human score of an ESA campaign (gecscore.meta.esa): a system's mean 0-100 score.
ESA_METHODS = ("esa",)
METHOD_LABELS = {
    "ew": "Expected Wins",
    "trueskill": "TrueSkill",
    "edit-ew": "Expected Wins of edit verdicts",
    "edit-trueskill": "TrueSkill of edit verdicts",
    "edit-precision": "edit precision",
    "esa": "ESA mean score",
}
TRUESKILL_RUNS = 1000  # the published TrueSkill scores average 1,000 seeded orders
# The results' parameters are bounded by settings (GEC_RESULTS_MAX_BOOTSTRAP, _RUNS and the
# campaign's size: judgments/limits.py); they are computed by a job (judgments/results.py).
PARALLEL_MIN_ITEMS = 1000  # judged items from which TrueSkill runs in 2 processes
MAX_STALE_MINUTES = 60 * 24 * 366  # "stale" reassigns items opened up to a year ago
# Per item (the columns are small integers; a campaign of more is not a ranking task).
MAX_JUDGES_PER_ITEM = 100
MAX_OUTPUTS_PER_ITEM = 100


# --- the selectors the scoring side calls (signatures are a contract) --------------------------


def campaigns_for_release(version: DatasetVersion) -> QuerySet[Campaign]:
    """The judgment campaigns on `version`, newest first."""
    return Campaign.objects.filter(release=version).order_by("-created_at", "name")


def campaign_judgment_set(
    campaign: Campaign, *, limits: ResultsLimits | None = None
) -> JudgmentSet:
    """Every finished or skipped assignment of `campaign` as Appraise ranking items, in the
    campaign's result blocks and item order (exported as XML, it reads back the same).

    With `limits` (the results job) the assignments are read a chunk at a time and each item
    is checked as it is read: an item with more systems than allowed, or more judged items,
    systems or pairwise comparisons than allowed, stops the read with BoundExceeded before
    anything is expanded."""
    assignments = (
        Assignment.objects.filter(
            campaign=campaign, status__in=[AssignmentStatus.DONE, AssignmentStatus.SKIPPED]
        )
        .select_related("item", "judgment")
        .prefetch_related("item__outputs")
        .order_by("item__block", "item__number", "order", "id")
    )
    by_block: dict[int, list[RankingItem]] = defaultdict(list)
    rows = assignments.iterator(chunk_size=500) if limits is not None else assignments
    judged = comparisons = 0
    systems: set[str] = set()
    for assignment in rows:
        item = _ranking_item(assignment)
        if limits is not None and item.entries and item.user != ADMIN_USER:
            width = sum(len(entry.systems) for entry in item.entries)
            limits.check_item(f"item {item.src_id!r} (judged by {item.user})", width)
            judged += 1
            comparisons += width * (width - 1) // 2
            systems.update(name for entry in item.entries for name in entry.systems)
            limits.check_totals(
                campaign.name, items=judged, systems=len(systems), comparisons=comparisons
            )
        by_block[assignment.item.block].append(item)
    blocks = campaign.result_blocks or [[]]
    count = max(len(blocks), max(by_block, default=-1) + 1)
    results = tuple(
        RankingResult(
            attributes=tuple(
                (str(name), str(value))
                for name, value in (blocks[index] if index < len(blocks) else [])
            ),
            items=tuple(by_block.get(index, [])),
        )
        for index in range(count)
    )
    return JudgmentSet(results=results)


def human_system_scores(campaign: Campaign, method: str = "ew") -> dict[str, float]:
    """System name -> human score: Expected Wins ("ew", deterministic) or the mean TrueSkill
    mu over 1,000 orders seeded with the campaign's seed ("trueskill") of the judges' ranks;
    the same of the outputs ordered by their edit verdicts ("edit-ew", "edit-trueskill"), or
    the share of a system's judged edits marked correct ("edit-precision"; systems without a
    judged edit left out), or the mean ESA score of an ESA campaign ("esa")."""
    methods = (*HUMAN_METHODS, *EDIT_METHODS, *ESA_METHODS)
    if method not in methods:
        raise ValueError(f"method must be one of {', '.join(methods)} (got {method!r})")
    if method == "esa":
        return {r.system: r.mean_score for r in esa_system_results(esa_rows(campaign))}
    items = campaign_judgment_set(campaign).items
    if method == "edit-precision":
        return {p.system: p.precision for p in edit_precision(items) if p.precision is not None}
    if method in EDIT_METHODS:
        items = tuple(verdict_rankings(items))
        method = method.removeprefix("edit-")
    pairs = pairwise_comparisons(items)
    if not pairs:
        return {}
    if method == "ew":
        return expected_wins(pairs)
    return rank_trueskill(pairs, runs=TRUESKILL_RUNS, seed=campaign.seed).scores()


# --- the rest ----------------------------------------------------------------------------------


def _ranking_item(assignment: Assignment) -> RankingItem:
    extra = tuple((str(name), str(value)) for name, value in assignment.extra)
    judgment = getattr(assignment, "judgment", None)
    entries: tuple[RankedEntry, ...] = ()
    if assignment.status == AssignmentStatus.SKIPPED:
        if ("skipped", "true") not in extra:
            extra = (*extra, ("skipped", "true"))
    elif judgment is not None:
        outputs = list(assignment.item.outputs.all())
        verdicts = _verdicts_by_output(judgment.edit_verdicts)
        esa = {int(answer["output"]): answer for answer in judgment.esa or []}
        entries = tuple(
            RankedEntry(
                systems=tuple(output.systems),
                rank=int(rank),
                edits=verdicts.get(output.position, ()),
                **_esa_fields(esa.get(output.position), output.text),
            )
            for output, rank in zip(outputs, judgment.ranks, strict=True)
        )
    return RankingItem(
        item_id=assignment.appraise_id or str(assignment.pk),
        src_id=assignment.item.src_id,
        user=assignment.judge_name,
        entries=entries,
        doc_id=assignment.item.doc_id,
        duration=assignment.duration,
        extra=extra,
    )


def _esa_fields(answer: dict[str, Any] | None, text: str) -> dict[str, Any]:
    """An ESA answer as a RankedEntry's score, spans (dismissed prefilled spans last) and the
    output text the offsets index; nothing outside ESA."""
    if answer is None:
        return {}
    spans = [
        EsaSpan(int(s["start"]), int(s["end"]), str(s["severity"]), str(s["origin"]))
        for s in answer.get("spans", [])
    ] + [
        EsaSpan(int(d["start"]), int(d["end"]), "", "dismissed")
        for d in answer.get("dismissed", [])
    ]
    return {"score": int(answer["score"]), "spans": tuple(spans), "text": text}


def _verdicts_by_output(stored: list[dict[str, Any]]) -> dict[int, tuple[EditVerdict, ...]]:
    """A judgment's stored edit verdicts as the library's EditVerdicts, per output position."""
    by_output: dict[int, list[EditVerdict]] = defaultdict(list)
    for verdict in sorted(stored or [], key=lambda v: (int(v["output"]), int(v["edit"]))):
        by_output[int(verdict["output"])].append(
            EditVerdict(
                edit=int(verdict["edit"]),
                correct=bool(verdict["correct"]),
                source=str(verdict.get("source", "")),
                target=str(verdict.get("target", "")),
            )
        )
    return {position: tuple(verdicts) for position, verdicts in by_output.items()}


def get_campaign(name_or_id: str | int) -> Campaign:
    # The name first: a campaign may be named "2015"; a number that names none is an id.
    campaigns = Campaign.objects.select_related("release__dataset")
    campaign = campaigns.filter(name=str(name_or_id)).first()
    campaign_id = parse_id(str(name_or_id))
    if campaign is None and campaign_id is not None:
        campaign = campaigns.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no judgment campaign {name_or_id!r}", field="campaign")
    return campaign


def is_campaign_admin(user: Any, campaign: Campaign) -> bool:
    """Campaign admins: platform admins named on the campaign, or its creator."""
    if not has_role(user, Role.ADMIN):
        return False
    return bool(campaign.created_by_id == user.pk or campaign.admins.filter(pk=user.pk).exists())


def campaign_for_admin(campaign_id: int, user: Any) -> Campaign:
    """The campaign `user` administers, or NotFound (a campaign of others is not shown)."""
    campaign = Campaign.objects.filter(pk=campaign_id).select_related("release__dataset").first()
    if campaign is None or not is_campaign_admin(user, campaign):
        raise NotFound(f"no judgment campaign {campaign_id}", field="campaign")
    return campaign


def campaigns_administered_by(user: Any) -> QuerySet[Campaign]:
    if not has_role(user, Role.ADMIN):
        return Campaign.objects.none()
    return (
        Campaign.objects.filter(Q(created_by=user) | Q(admins=user))
        .distinct()
        .select_related("release__dataset")
        .annotate(item_count=Count("items", distinct=True))
    )


def campaigns_judged_by(user: Any) -> list[dict[str, Any]]:
    """The campaigns `user` judges in, each with their own progress (done of all)."""
    rows = (
        Assignment.objects.filter(judge=user)
        .values("campaign_id", "campaign__name")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=~Q(status=AssignmentStatus.PENDING)),
        )
        .order_by("campaign__name")
    )
    return [
        {
            "id": r["campaign_id"],
            "name": r["campaign__name"],
            "done": r["done"],
            "total": r["total"],
        }
        for r in rows
    ]


def judge_progress(campaign: Campaign, judge: Any) -> tuple[int, int]:
    """(finished or skipped, all) assignments of `judge` in `campaign`."""
    mine = Assignment.objects.filter(campaign=campaign, judge=judge)
    return mine.exclude(status=AssignmentStatus.PENDING).count(), mine.count()


def assignment_for_judge(assignment_id: int, judge: Any) -> Assignment:
    """The judge's own assignment (others' answer NotFound, as if they did not exist)."""
    assignment = (
        Assignment.objects.filter(pk=assignment_id, judge=judge)
        .select_related("item", "campaign")
        .prefetch_related("item__outputs")
        .first()
    )
    if assignment is None:
        raise NotFound(f"no assignment {assignment_id} of yours", field="assignment")
    return assignment


def judge_view_of_item(item: Item, *, language: str) -> dict[str, Any]:
    """What a judge sees of an item: the source and the outputs with their edits and diff
    segments from the product's one extractor. No system name, no other judge's answer."""

    outputs = []
    for output in item.outputs.all():
        edits = edits_between(item.source, output.text, language=language) if item.source else []
        outputs.append(
            {
                "position": output.position,
                "text": output.text,
                "edits": [
                    {
                        "index": index,
                        "source_text": edit["source_text"],
                        "target_text": edit["target_text"],
                        "type": edit["type"],
                    }
                    for index, edit in enumerate(edits)
                ],
                "segments": segments_as_dicts(diff_segments(item.source, edits, language=language))
                if item.source
                else [],
            }
        )
    return {"source": item.source, "src_id": item.src_id, "outputs": outputs}


Progress = Callable[[str, int, int], None]


def campaign_results(
    campaign: Campaign,
    *,
    method: str = "both",
    bootstrap: int = 0,
    seed: int | None = None,
    runs: int = TRUESKILL_RUNS,
    workers: int = 1,
    judgments: JudgmentSet | None = None,
    on_progress: Progress | None = None,
) -> dict[str, Any]:
    """The human ranking of the library's report (``human_ranking``) plus per-judge stats.
    Raises ValueError when there is no pairwise judgment yet. `judgments`: the campaign's
    judgment set when already read (the results job reads it within the bounds);
    `on_progress(step, done, total)`: the library's progress, steps of the edit verdicts'
    ranking prefixed with "edit verdicts: "."""
    if judgments is None:
        judgments = campaign_judgment_set(campaign)
    report = human_ranking(
        judgments.items,
        method=method,
        bootstrap=bootstrap,
        seed=campaign.seed if seed is None else seed,
        runs=runs,
        workers=workers,
        on_progress=on_progress,
    )
    report["judges"] = judge_statistics(campaign, judgments)
    edits_progress: Progress | None = None
    if on_progress is not None:
        outer = on_progress

        def edits_progress(step: str, done: int, total: int) -> None:
            outer(f"edit verdicts: {step}", done, total)

    report["edits"] = _edit_results(
        judgments.items,
        method=method,
        bootstrap=bootstrap,
        seed=report["seed"],
        runs=runs,
        workers=workers,
        on_progress=edits_progress,
    )
    # ESA: scores, spans per 100 units, intervals from the same resamples, agreement.
    report["esa"] = (
        esa_report(esa_rows(campaign), samples=bootstrap, seed=report["seed"])
        if campaign.mode == CampaignMode.ESA
        else None
    )
    return report


def _edit_results(
    items: Sequence[RankingItem],
    *,
    method: str,
    bootstrap: int,
    seed: int,
    runs: int,
    workers: int,
    on_progress: Progress | None = None,
) -> dict[str, Any] | None:
    """Edit precision per system (intervals from `bootstrap` resamples of the judged items),
    kappa on verdicts, and the human ranking of the outputs ordered by their verdicts; None
    when no item carries an edit verdict (a ranking campaign)."""
    report = edit_report(items, samples=bootstrap, seed=seed)
    if report is None:
        return None
    try:
        ranking = human_ranking(
            verdict_rankings(items),
            method=method,
            bootstrap=bootstrap,
            seed=seed,
            runs=runs,
            workers=workers,
            on_progress=on_progress,
        )
    except ValueError:  # every judged item has a single output
        ranking = None
    if ranking is not None:
        ranking.pop("agreement")  # kappa of derived ranks: the verdict kappa says it
    report["ranking"] = ranking
    return report


def edit_verdict_rows(campaign: Campaign, *, limit: int | None = None) -> list[dict[str, Any]]:
    """One row per judged edit (item, sentence, judge, systems, edit, verdict), in item order;
    the first `limit` rows when given. Only the judgments that carry verdicts are read, a
    chunk at a time (the results page lists the first rows of a campaign of any size)."""
    assignments = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.DONE)
        .exclude(judgment__edit_verdicts=[])
        .select_related("item", "judgment")
        .prefetch_related("item__outputs")
        .order_by("item__block", "item__number", "order", "id")
    )
    rows: list[dict[str, Any]] = []
    for assignment in assignments.iterator(chunk_size=200):
        item = _ranking_item(assignment)
        for entry in item.entries:
            for verdict in entry.edits:
                if limit is not None and len(rows) >= limit:
                    return rows
                rows.append(
                    {
                        "item": item.item_id,
                        "src_id": item.src_id,
                        "judge": item.user,
                        "systems": list(entry.systems),
                        "rank": entry.rank,
                        "edit": verdict.edit,
                        "source": verdict.source,
                        "target": verdict.target,
                        "correct": verdict.correct,
                    }
                )
    return rows


def count_edit_verdicts(campaign: Campaign) -> int:
    return sum(
        len(verdicts)
        for verdicts in Judgment.objects.filter(assignment__campaign=campaign).values_list(
            "edit_verdicts", flat=True
        )
    )


def release_system_outputs(version: DatasetVersion) -> dict[str, list[str]]:
    """{system name: lines} of the systems stored for `version`, asked of the higher apps
    through the `release_system_outputs` signal (the scoring app's system outputs)."""

    found: dict[str, list[str]] = {}
    for _, answer in signals.release_system_outputs.send(sender=Campaign, version=version):
        if not isinstance(answer, dict):
            continue
        for name, lines in answer.items():
            found.setdefault(str(name), list(lines))
    return dict(sorted(found.items()))


def campaign_progress(campaign: Campaign) -> dict[str, int]:
    counts = dict(
        Assignment.objects.filter(campaign=campaign).values_list("status").annotate(n=Count("id"))
    )
    return {
        "pending": counts.get(AssignmentStatus.PENDING, 0),
        "done": counts.get(AssignmentStatus.DONE, 0),
        "skipped": counts.get(AssignmentStatus.SKIPPED, 0),
        "total": sum(counts.values()),
    }
