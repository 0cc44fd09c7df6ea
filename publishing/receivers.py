"""The publishing app's answers to signals of lower apps (connected in apps.py)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import receiver

from core.jobs import job_expired
from core.models import BackgroundJob
from publishing.jobs import JOB_KIND_PUBLISH, discard_publish_files


@receiver(job_expired)
def discard_files_of_a_dead_publish(sender: Any, job: BackgroundJob, **kwargs: Any) -> None:
    """The sweeper failed a publish job whose worker died (killed mid-write): its folder and
    zip go, so the job's message ("nothing of the unfinished work was kept") is true and a
    retry starts from nothing."""
    if job.kind == JOB_KIND_PUBLISH:
        transaction.on_commit(lambda: discard_publish_files(job))
