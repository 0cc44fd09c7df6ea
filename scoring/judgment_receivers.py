"""The scoring side's answer to the judgments app: the system outputs stored for a release,
so a judgment campaign can be built over them (judgments sits below scoring and never
imports it; it asks through judgments.signals.release_system_outputs)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from datasets.models import DatasetVersion
from judgments.signals import release_system_outputs
from scoring.models import SystemOutput


@receiver(release_system_outputs, dispatch_uid="scoring.release_system_outputs")
def system_outputs_of_release(
    sender: Any, version: DatasetVersion, **_: Any
) -> dict[str, list[str]]:
    return {
        name: list(lines)
        for name, lines in SystemOutput.objects.filter(version=version)
        .order_by("name")
        .values_list("name", "hypotheses")
    }
