"""Reading closest-gold references (docs/closest-gold.md): the contract system scoring reads
them through (`closest_golds`, `closest_gold_coverage`, re-exported by scoring/selectors.py)
and the task pages' progress."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from core.exceptions import NotFound, ServiceError
from core.models import User
from datasets.extraction import Segment, diff_segments, edits_between
from datasets.models import DatasetVersion
from scoring.models import ClosestGoldItem, ClosestGoldTask, ClosestGoldVerification, SystemOutput


def closest_golds(system: SystemOutput) -> list[list[str]]:
    """Per released sentence, in release order, the verified closest-gold texts of `system`'s
    output: an empty list where no verifier has done it yet; an item verified by k verifiers
    gives their distinct texts (in the order they were verified). Tasks over the same system
    all count (a second task over the system adds its texts)."""
    positions = list(
        system.version.sentences.order_by("position").values_list("position", flat=True)
    )
    by_position: dict[int, list[str]] = defaultdict(list)
    verified = (
        ClosestGoldVerification.objects.filter(
            item__systems=system, item__task__version=system.version
        )
        .order_by("item__position", "created_at", "id")
        .values_list("item__position", "item__output", "text")
    )
    hypotheses = system.hypotheses
    index_of = {position: index for index, position in enumerate(positions)}
    for position, output, text in verified:
        index = index_of.get(position)
        # An item is built from this system's output; the check keeps a stale item (an output
        # replaced since) from lending its text to a different hypothesis.
        if index is None or index >= len(hypotheses) or hypotheses[index] != output:
            continue
        texts = by_position[position]
        if text not in texts:
            texts.append(text)
    return [by_position.get(position, []) for position in positions]


def closest_gold_coverage(system: SystemOutput) -> tuple[int, int]:
    """(released sentences with at least one verified closest-gold, released sentences)."""
    golds = closest_golds(system)
    return sum(1 for texts in golds if texts), len(golds)


def task_progress(task: ClosestGoldTask) -> dict[str, int]:
    """Items, items with all k verifications, verifications given and wanted, proposals."""
    verified = list(
        task.items.annotate(verified=Count("verifications")).values_list("verified", flat=True)
    )
    return {
        "items": len(verified),
        "complete": sum(1 for count in verified if count >= task.per_item),
        "verifications": sum(min(count, task.per_item) for count in verified),
        "wanted": len(verified) * task.per_item,
        "proposals": task.items.filter(proposal__isnull=False).count(),
    }


def verifier_done(task: ClosestGoldTask, verifier: User) -> int:
    return ClosestGoldVerification.objects.filter(item__task=task, verifier=verifier).count()


def tasks_of_release(version: DatasetVersion) -> list[ClosestGoldTask]:
    return list(
        version.closest_gold_tasks.prefetch_related("systems").order_by("-created_at", "-id")
    )


def get_task(task_id: int) -> ClosestGoldTask:
    task = ClosestGoldTask.objects.select_related("version__dataset").filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no closest-gold task {task_id}")
    return task


def get_item(item_id: int) -> ClosestGoldItem:
    item = (
        ClosestGoldItem.objects.select_related("task__version__dataset").filter(pk=item_id).first()
    )
    if item is None:
        raise NotFound(f"no closest-gold item {item_id}")
    return item


def source_of(item: ClosestGoldItem) -> str:
    return (
        item.task.version.sentences.filter(position=item.position)
        .values_list("text", flat=True)
        .first()
        or ""
    )


def item_view(item: ClosestGoldItem) -> dict[str, Any]:
    """What a verifier sees: the source, the output, the proposal and the two diffs to the
    proposal (from the output, from the source), drawn by the review page's extractor."""
    language = item.task.version.dataset.language
    source = source_of(item)

    def diff(start: str, end: str | None) -> list[Segment] | None:
        if end is None:
            return None
        try:
            return diff_segments(
                start, edits_between(start, end, language=language), language=language
            )
        except ServiceError:  # a text the extractor refuses is shown without a diff
            return None

    return {
        "source": source,
        "output": item.output,
        "proposal": item.proposal,
        "language": language,
        "output_to_proposal": diff(item.output, item.proposal),
        "source_to_proposal": diff(source, item.proposal),
        "source_to_output": diff(source, item.output),
    }


def item_rows(task: ClosestGoldTask, *, limit: int = 500) -> list[dict[str, Any]]:
    """The task's items with their provenance (who proposed with which prompt, who verified
    how and how long), for the admin's task page; the first `limit` in release order."""
    items = task.items.order_by("position", "id").prefetch_related(
        "systems", "verifications__verifier"
    )[:limit]
    return [
        {
            "item": item,
            "systems": [system.name for system in item.systems.all()],
            "verifications": list(item.verifications.all()),
        }
        for item in items
    ]
