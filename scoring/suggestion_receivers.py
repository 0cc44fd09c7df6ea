"""The scoring side's answer to annotate.signals.suggestion_systems: the system outputs
uploaded for a dataset's releases, which the project page (review) offers as suggestion
sources without importing scoring."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from annotate.signals import suggestion_systems
from datasets.models import Dataset
from scoring.services.suggestions import suggestion_systems as system_names


@receiver(suggestion_systems, dispatch_uid="scoring.suggestion_systems")
def systems_of_dataset(sender: Any, dataset: Dataset, **_: Any) -> list[str]:
    return system_names(dataset)
