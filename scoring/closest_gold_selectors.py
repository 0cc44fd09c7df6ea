"""Reading closest-gold references (docs/closest-gold.md): the contract system scoring reads
them through (`closest_golds`, `closest_gold_coverage`, re-exported by scoring/selectors.py)
and the task pages' progress."""

from __future__ import annotations

from collections import defaultdict

from scoring.models import ClosestGoldVerification, SystemOutput


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
