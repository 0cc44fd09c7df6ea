"""Keep stored scores in step with the data they were computed from.

* A saved GoldenReference (a review, an accepted complaint) re-scores the annotator
  samples of its sentence after the commit: only that sentence is recomputed.
* Review code that writes references with bulk_create sends no signal; for those,
  `scoring.services.refresh_annotator_scores` (run by the annotator pages and reports) finds
  the sentences whose references or submissions changed and recomputes only those.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from datasets.models import GoldenReference
from scoring.services import rescore_sentence_on_commit


@receiver(post_save, sender=GoldenReference, dispatch_uid="scoring.rescore_on_golden_reference")
def rescore_on_golden_reference(
    sender: Any, instance: GoldenReference, raw: bool = False, **_: Any
) -> None:
    if raw:  # loaddata
        return
    rescore_sentence_on_commit(instance.sentence_id)
