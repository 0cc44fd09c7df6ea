"""Keep stored scores in step with the data they were computed from.

* A saved GoldenReference (a review, an accepted complaint) re-scores the annotator
  samples of its sentence after the commit: only that sentence is recomputed.
* A new release gets its reference M2 extracted in the background (on a real worker), so
  the first system scored on it does not pay for the references.
* Review code that writes references with bulk_create sends no signal; for those,
  `scoring.services.refresh_annotator_scores` (run by the annotator pages and reports) finds
  the sentences whose references or submissions changed and recomputes only those.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from annotate.models import DatasetVersion
from review.models import GoldenReference
from scoring.services import rescore_sentence_on_commit


@receiver(post_save, sender=GoldenReference, dispatch_uid="scoring.rescore_on_golden_reference")
def rescore_on_golden_reference(sender: Any, instance: GoldenReference, raw: bool = False, **_: Any) -> None:
    if raw:  # loaddata
        return
    rescore_sentence_on_commit(instance.sentence_id)


@receiver(post_save, sender=DatasetVersion, dispatch_uid="scoring.prepare_release_references")
def prepare_references_on_release(sender: Any, instance: DatasetVersion, created: bool, raw: bool = False, **_: Any) -> None:
    if raw or not created:
        return
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        # In-process tasks (quick start, tests) would make every release wait for the
        # extraction; there the first score of the release extracts the references instead.
        return
    version_id = instance.pk

    def send() -> None:
        from scoring.tasks import prepare_release_references

        prepare_release_references.delay(version_id)

    transaction.on_commit(send)
