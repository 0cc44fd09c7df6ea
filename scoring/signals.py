"""Keep stored scores in step with the data they were computed from.

* A saved GoldenReference (a review, an accepted complaint) re-scores the annotator
  samples of its sentence after the commit: only that sentence is recomputed.
* Review code that writes references with bulk_create sends no signal; for those,
  `scoring.services.refresh_annotator_scores` (run by the annotator pages and reports) finds
  the sentences whose references or submissions changed and recomputes only those.
* A scoring or meta-evaluation job failed by the sweeper (its worker died) or queued again
  by Retry moves its SystemScore / MetaEvaluation with it.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from core.jobs import job_expired, job_retried
from core.models import BackgroundJob
from datasets.models import GoldenReference
from scoring.models import MetaEvaluation, ScoreStatus, SystemScore
from scoring.services import rescore_sentence_on_commit


@receiver(post_save, sender=GoldenReference, dispatch_uid="scoring.rescore_on_golden_reference")
def rescore_on_golden_reference(
    sender: Any, instance: GoldenReference, raw: bool = False, **_: Any
) -> None:
    if raw:  # loaddata
        return
    rescore_sentence_on_commit(instance.sentence_id)


@receiver(job_expired, dispatch_uid="scoring.fail_score_of_expired_job")
def fail_score_of_expired_job(sender: Any, job: BackgroundJob, **_: Any) -> None:
    """The sweeper failed a scoring job whose worker died: its score shows failed too (not
    "queued" for ever), so the leaderboard and "Score again" tell the truth."""
    for model in (SystemScore, MetaEvaluation):
        model.objects.filter(
            background_job_id=job.pk, status__in=[ScoreStatus.QUEUED, ScoreStatus.RUNNING]
        ).update(status=ScoreStatus.FAILED, error=job.message, finished_at=timezone.now())


@receiver(job_retried, dispatch_uid="scoring.queue_score_of_retried_job")
def queue_score_of_retried_job(sender: Any, job: BackgroundJob, **_: Any) -> None:
    for model in (SystemScore, MetaEvaluation):
        model.objects.filter(background_job_id=job.pk).update(
            status=ScoreStatus.QUEUED, error="", finished_at=None
        )
