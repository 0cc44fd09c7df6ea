"""What the scoring app answers to the lower apps' signals (connected in apps.py): the
post-edit anchoring report on the project page and in `manage.py dataset_stats`."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from datasets.models import Dataset, DatasetVersion
from datasets.signals import collect_statistics
from review.signals import project_context
from scoring import services
from scoring.prefill_rows import prefill_report
from scoring.prefill_views import anchoring_context


@receiver(project_context, dispatch_uid="scoring.project_anchoring")
def project_anchoring(sender: Any, dataset: Dataset, user: Any, **_: Any) -> dict[str, Any]:
    return anchoring_context(dataset, user=user)


@receiver(collect_statistics, dispatch_uid="scoring.prefill_statistics")
def prefill_statistics(
    sender: Any, dataset: Dataset, version: DatasetVersion | None, **_: Any
) -> dict[str, Any]:
    """``prefill``: the anchoring report, every stale sample scored first (a command may
    take its time; the card does the same)."""
    services.refresh_stale_samples(dataset_id=dataset.pk)
    return {"prefill": prefill_report(dataset, version=version).as_dict()}
