"""Judging: hand a judge the next item, take a judgment or a skip, move stale items to
another judge. Each service runs in one transaction; the assignment row is locked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from core.audit import log_action
from core.exceptions import Conflict, NotFound, PermissionDenied, ServiceError
from core.models import User
from judgments import esa as esa_mode
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignMode,
    Judgment,
)
from judgments.selectors import judge_view_of_item
from judgments.services.dynamic import next_dynamic_assignment


def _check_judge(campaign: Campaign, judge: User) -> None:
    if not campaign.judges.filter(pk=judge.pk).exists():
        raise PermissionDenied("you are not a judge of this campaign", field="campaign")


@transaction.atomic
def next_assignment(*, campaign: Campaign, judge: User) -> Assignment | None:
    """The judge's next pending item (marked started now if it was not), or None when done.
    In a dynamic campaign the item is chosen now (judgments/services/dynamic.py)."""
    _check_judge(campaign, judge)
    if campaign.dynamic:
        return next_dynamic_assignment(campaign=campaign, judge=judge)
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
    edits = {(o["position"], e["index"]): e for o in view["outputs"] for e in o["edits"]}
    wanted = set(edits)
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
    # The edit's two sides are kept with the verdict: exports and the results page show what
    # was judged without running the extractor again.
    return [
        {
            "output": o,
            "edit": e,
            "correct": given[(o, e)],
            "source": edits[(o, e)]["source_text"],
            "target": edits[(o, e)]["target_text"],
        }
        for o, e in sorted(given)
    ]


@transaction.atomic
def submit_judgment(
    *,
    assignment_id: int,
    judge: User,
    ranks: Sequence[Any] = (),
    edit_verdicts: Sequence[Mapping[str, Any]] = (),
    esa: Any = None,
    low_score_confirmed: bool = False,
    active_seconds: Any = None,
) -> Judgment:
    """Store the judge's ranks (and edit verdicts in edits mode; in ESA mode the spans and
    scores, the ranks following the scores). The assignment row is locked and the judgment
    is one per assignment, so of two concurrent submits one wins and the other gets a
    Conflict."""
    assignment = _locked_pending(assignment_id, judge)
    outputs = list(assignment.item.outputs.all())
    verdicts: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    if assignment.campaign.mode == CampaignMode.ESA:
        answers = _esa_answers(assignment, esa, ranks, low_score_confirmed)
        scores = {answer["output"]: answer["score"] for answer in answers}
        clean_ranks = esa_mode.ranks_from_scores([scores[o.position] for o in outputs])
    else:
        clean_ranks = _validate_ranks(ranks, len(outputs))
    if assignment.campaign.mode == CampaignMode.EDITS:
        view = judge_view_of_item(assignment.item, language=assignment.campaign.language)
        verdicts = _validate_verdicts(edit_verdicts, view)
    now = timezone.now()
    started = assignment.started_at or now
    wall = max(0.0, (now - started).total_seconds())
    spent = (
        esa_mode.seconds_spent(active=active_seconds, wall=wall)
        if assignment.campaign.mode == CampaignMode.ESA
        else wall
    )
    try:
        with transaction.atomic():
            judgment = Judgment.objects.create(
                assignment=assignment, ranks=clean_ranks, edit_verdicts=verdicts, esa=answers
            )
    except IntegrityError:
        raise Conflict("this item was judged already", field="assignment") from None
    assignment.status = AssignmentStatus.DONE
    assignment.finished_at = now
    assignment.seconds_spent = spent
    assignment.save(update_fields=["status", "finished_at", "seconds_spent", "started_at"])
    details: dict[str, Any] = {"ranks": clean_ranks}
    if verdicts:
        details["edits_correct"] = sum(1 for v in verdicts if v["correct"])
    if answers:
        details["scores"] = [a["score"] for a in answers]
        details["spans"] = sum(len(a["spans"]) for a in answers)
    log_action(assignment, judge, "judgments.submit", details)
    return judgment


def _esa_answers(
    assignment: Assignment, answer: Any, ranks: Sequence[Any], low_score_confirmed: bool
) -> list[dict[str, Any]]:
    """The checked ESA answer of `assignment` (judgments/esa.py: clean_answer)."""
    if ranks:
        raise ServiceError(
            "an ESA item takes scores and spans (esa); its ranks follow the scores", field="ranks"
        )
    if answer is None:
        raise ServiceError("give a score and the error spans of every output", field="esa")
    view = esa_mode.esa_view(assignment)
    cleaned = esa_mode.clean_answer(
        answer,
        outputs=[(o["position"], o["text"]) for o in view["outputs"]],
        proposals={o["position"]: o["prefilled"] for o in view["outputs"]},
        low_score_confirmed=low_score_confirmed,
    )
    # Checked in the judge's order (messages number the outputs as the page shows them),
    # stored in the item's order, like the ranks.
    return sorted(cleaned, key=lambda a: a["output"])


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
    of the pool who does not have that item yet and never left it (the judge's repeat showing
    moves too). The judge who left it is remembered (Item.left_by): neither this rule nor a
    dynamic campaign's gives them the item again."""
    cutoff = timezone.now() - older_than
    stale = list(
        Assignment.objects.select_for_update(of=("self",))
        .filter(
            campaign=campaign,
            status=AssignmentStatus.PENDING,
            repeat=False,
            started_at__lt=cutoff,
        )
        .select_related("judge", "item")
    )
    pool = list(campaign.judges.all())
    moved: list[Assignment] = []
    for assignment in stale:
        holders = set(
            Assignment.objects.filter(item=assignment.item).values_list("judge_id", flat=True)
        ) | set(assignment.item.left_by.values_list("pk", flat=True))
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
        if old_judge is not None:
            assignment.item.left_by.add(old_judge)
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
