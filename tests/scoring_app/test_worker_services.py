"""Scoring through a real Celery worker (PostgreSQL + Redis): the job is queued on commit,
the worker scores it on its own connection, the page's job endpoint reports the end."""

from __future__ import annotations

import time

import pytest

from core.models import BackgroundJob, JobStatus
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import ScoreStatus, SentenceResult, SystemScore
from tests.factories import make_dataset

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_real_worker_scores_an_upload_once(celery_worker) -> None:  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=["我很喜欢吃平果", "他是一个好学升"])
    for sentence, ref in zip(
        dataset.sentences.order_by("position"), ["我很喜欢吃苹果", "他是一个好学生"], strict=True
    ):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    version = release_dataset(dataset=dataset)
    system = services.upload_system_output(
        version=version,
        name="w",
        data="我很喜欢吃苹果\n他是一个好学升\n".encode(),
        file_name="w.txt",
        user=None,
    )
    score = services.request_scoring(system=system, user=None)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = BackgroundJob.objects.get(pk=score.background_job_id)
        if job.is_finished:
            break
        time.sleep(0.2)
    assert job.status == JobStatus.DONE, job.message
    score = SystemScore.objects.get(pk=score.pk)
    assert score.status == ScoreStatus.DONE
    assert (score.tp, score.fp, score.fn) == (1, 0, 1)
    assert SentenceResult.objects.filter(score=score).count() == 2
