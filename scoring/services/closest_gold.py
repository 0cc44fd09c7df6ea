"""Closest-gold tasks: building them from system outputs and verifying them
(docs/closest-gold.md). The LLM's proposals are closest_gold_proposals.py.

A task covers some systems of one release. Its items are the distinct outputs per released
sentence: systems whose outputs are equal share one item, so one verification counts for
each. Every item wants `per_item` verifications (k) by different verifiers: the reviewers of
the task's pool (every reviewer when the pool is empty). The item a verifier is given next is
the first one, in release order, with fewer than k verifications that the verifier has not
done; a submission locks the item's row, so concurrent verifiers never exceed k.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count

from core.audit import log_action
from core.exceptions import Conflict, NotFound, PermissionDenied, ServiceError
from core.llm import llm_backend, llm_configured
from core.models import User
from core.params import bounded_int
from core.roles import Role, has_role
from datasets.models import DatasetVersion
from datasets.textrules import text_problem
from scoring.models import (
    ClosestGoldItem,
    ClosestGoldTask,
    ClosestGoldVerification,
    SystemOutput,
    VerificationDecision,
)
from scoring.services.closest_gold_proposals import prompt_for, request_proposals

MAX_PER_ITEM = 10
# Longer than anyone spends on one sentence: a page left open overnight is not work time.
MAX_SECONDS_COUNTED = 3600


def _require_admin(user: Any) -> None:
    if not has_role(user, Role.ADMIN):
        raise PermissionDenied("only admins create closest-gold tasks")


def _systems_of(version: DatasetVersion, systems: Iterable[SystemOutput]) -> list[SystemOutput]:
    chosen = list({system.pk: system for system in systems}.values())
    if not chosen:
        raise ServiceError("choose at least one system output", field="systems")
    foreign = [s.name for s in chosen if s.version_id != version.pk]
    if foreign:
        raise ServiceError(f"not outputs of {version.label}: {', '.join(foreign)}", field="systems")
    expected = version.sentences.count()
    short = [s.name for s in chosen if len(s.hypotheses) != expected]
    if short:
        raise ServiceError(
            f"outputs without one hypothesis per released sentence ({expected}): "
            f"{', '.join(short)}",
            field="systems",
        )
    return sorted(chosen, key=lambda s: s.name)


def _verifier_pool(verifiers: Iterable[User]) -> list[User]:
    pool = list({user.pk: user for user in verifiers}.values())
    outsiders = [u.username for u in pool if not has_role(u, Role.REVIEWER)]
    if outsiders:
        raise ServiceError(
            f"verifiers need the reviewer role: {', '.join(outsiders)}", field="verifiers"
        )
    return pool


def build_items(task: ClosestGoldTask) -> int:
    """The task's items from its systems' outputs, equal outputs merged (idempotent: a
    second build adds nothing). Returns how many items the task has."""
    positions = list(task.version.sentences.order_by("position").values_list("position", flat=True))
    systems = list(task.systems.order_by("name"))
    grouped: dict[tuple[int, str], list[int]] = {}
    for system in systems:
        for position, output in zip(positions, system.hypotheses, strict=True):
            grouped.setdefault((position, output), []).append(system.pk)
    ClosestGoldItem.objects.bulk_create(
        [ClosestGoldItem(task=task, position=p, output=o) for p, o in grouped],
        ignore_conflicts=True,
        batch_size=1000,
    )
    ids = {(p, o): pk for pk, p, o in task.items.values_list("pk", "position", "output")}
    links = ClosestGoldItem.systems.through
    links.objects.bulk_create(
        [
            links(closestgolditem_id=ids[key], systemoutput_id=system_id)
            for key, system_ids in grouped.items()
            for system_id in system_ids
        ],
        ignore_conflicts=True,
        batch_size=1000,
    )
    return len(ids)


def create_closest_gold_task(
    *,
    version: DatasetVersion,
    systems: Sequence[SystemOutput],
    user: Any,
    per_item: int | str = 1,
    verifiers: Iterable[User] = (),
) -> ClosestGoldTask:
    """A task over `systems` of `version` with its items; with an LLM configured the
    proposals are queued (sent on commit), otherwise the verifiers write the corrections."""
    _require_admin(user)
    k = bounded_int(
        per_item, field="per_item", low=1, high=MAX_PER_ITEM, default=1, label="verifiers per item"
    )
    chosen = _systems_of(version, systems)
    pool = _verifier_pool(verifiers)
    configured = llm_configured()
    with transaction.atomic():
        task = ClosestGoldTask.objects.create(
            version=version,
            per_item=k,
            llm_model=llm_backend()["model"] if configured else "",
            prompt_version=prompt_for(version.dataset.language).version if configured else "",
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        task.systems.set(chosen)
        task.verifiers.set(pool)
        items = build_items(task)
        log_action(
            task,
            user,
            "scoring.closest_gold_task_create",
            {"systems": [s.name for s in chosen], "items": items, "per_item": task.per_item},
        )
        if configured:
            request_proposals(task=task, user=user)
    return task


# --- verification -----------------------------------------------------------------------------


def can_verify(task: ClosestGoldTask, user: Any) -> bool:
    if not has_role(user, Role.REVIEWER):
        return False
    pool = task.verifiers.all()
    return not pool.exists() or pool.filter(pk=user.pk).exists()


def check_verifier(task: ClosestGoldTask, user: Any) -> None:
    if not has_role(user, Role.REVIEWER):
        raise PermissionDenied("verifying closest-gold references is for reviewers")
    if not can_verify(task, user):
        raise PermissionDenied(f"you are not in the verifier pool of closest-gold task {task.pk}")


def open_items(task: ClosestGoldTask, verifier: User) -> Any:
    """Items still wanting a verification that `verifier` may give, in release order."""
    return (
        task.items.annotate(verified=Count("verifications"))
        .filter(verified__lt=task.per_item)
        .exclude(verifications__verifier=verifier)
        .order_by("position", "id")
    )


def next_item(*, task: ClosestGoldTask, verifier: User) -> ClosestGoldItem | None:
    check_verifier(task, verifier)
    return open_items(task, verifier).first()


def _verified_text(item: ClosestGoldItem, decision: str, text: str) -> tuple[str, str]:
    """(decision, text) as stored: accept and output-correct take their text from the item;
    an edit that changes nothing is an accept."""
    if decision not in VerificationDecision.values:
        raise ServiceError(
            f"decision must be one of {', '.join(VerificationDecision.values)}", field="decision"
        )
    proposing = decision in (VerificationDecision.ACCEPTED, VerificationDecision.EDITED)
    if proposing and item.proposal is None:
        raise ServiceError(
            "this output has no proposal to accept or edit: mark the output correct or "
            "write the correction",
            field="decision",
        )
    if decision == VerificationDecision.ACCEPTED:
        return decision, item.proposal or ""
    if decision == VerificationDecision.OUTPUT_CORRECT:
        return decision, item.output
    text = (text or "").strip()
    if not text:
        raise ServiceError("write the corrected sentence", field="text")
    problem = text_problem(text)
    if problem is not None:
        raise ServiceError(problem, field="text")
    if decision == VerificationDecision.EDITED and text == item.proposal:
        return VerificationDecision.ACCEPTED, text
    return decision, text


def submit_verification(
    *,
    item_id: int,
    verifier: User,
    decision: str,
    text: str = "",
    time_spent_seconds: int = 0,
) -> ClosestGoldVerification:
    """Store `verifier`'s closest-gold of the item. Conflict when the item already has its k
    verifications or this verifier did it; the item's row is locked so two verifiers
    submitting at once cannot both be the k-th."""
    with transaction.atomic():
        item = (
            ClosestGoldItem.objects.select_for_update()
            .select_related("task")
            .filter(pk=item_id)
            .first()
        )
        if item is None:
            raise NotFound(f"no closest-gold item {item_id}")
        check_verifier(item.task, verifier)
        stored_decision, stored_text = _verified_text(item, decision, text)
        done = item.verifications.count()
        if item.verifications.filter(verifier=verifier).exists():
            raise Conflict("you have already verified this output")
        if done >= item.task.per_item:
            raise Conflict(
                f"this output already has its {item.task.per_item} verification(s); take the "
                "next one"
            )
        try:
            with transaction.atomic():
                verification = ClosestGoldVerification.objects.create(
                    item=item,
                    verifier=verifier,
                    decision=stored_decision,
                    text=stored_text,
                    time_spent_seconds=max(0, min(int(time_spent_seconds), MAX_SECONDS_COUNTED)),
                )
        except IntegrityError:
            raise Conflict("you have already verified this output") from None
        log_action(
            item,
            verifier,
            "scoring.closest_gold_verify",
            {"task": item.task_id, "decision": stored_decision},
        )
    return verification
