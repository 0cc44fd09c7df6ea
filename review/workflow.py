"""Workflow that spans annotation and review: handing a dataset's sentences out to k
annotators and one reviewer each. It lives here, in the higher app, so that annotate never
imports review (see docs/architecture.md)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotate.models import Assignment, AssignmentStatus
from annotate.services import pick_least_loaded
from core.audit import log_action
from core.exceptions import ServiceError
from core.models import User
from datasets.models import Dataset, Sentence, SentenceStatus
from review.models import ReviewTask


@dataclass(frozen=True)
class AssignmentSummary:
    sentences: int
    assignments: int
    review_tasks: int
    seed: int


def _checked_pools(dataset: Dataset) -> tuple[int, list[User], list[User]]:
    """k and the dataset's active annotators and reviewers (by id), once k annotators and a
    reviewer are there to take each sentence."""
    k = dataset.annotators_per_sentence
    annotators = list(dataset.annotators.filter(is_active=True).order_by("pk"))
    reviewers = list(dataset.reviewers.filter(is_active=True).order_by("pk"))
    if k < 1:
        raise ServiceError(
            "annotators_per_sentence must be at least 1", field="annotators_per_sentence"
        )
    if len(annotators) < k:
        raise ServiceError(
            f"dataset {dataset.name} needs {k} distinct annotators per sentence but its annotator "
            f"pool has {len(annotators)} active user(s); add annotators to the pool",
            field="annotators",
        )
    if not reviewers:
        raise ServiceError(f"dataset {dataset.name} has no reviewer in its pool", field="reviewers")
    return k, annotators, reviewers


# Sentences written per round of INSERTs: the model objects of one chunk are all that is held,
# so a dataset of a million sentences is assigned in bounded memory.
ASSIGN_CHUNK_SENTENCES = 5000


@transaction.atomic
def assign_dataset(*, dataset: Dataset, seed: int, by: Any) -> AssignmentSummary:
    """Give every not-yet-assigned sentence of `dataset` to k distinct annotators and one
    reviewer who is not among them, at random but balanced across the pools.

    The same pools, sentences and seed give the same assignment (users are ordered by id
    before the seeded shuffles). Only the sentences' ids are read; the rows are written a
    chunk at a time, in this one transaction.
    """
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    k, annotators, reviewers = _checked_pools(dataset)
    sentence_ids = list(
        dataset.sentences.filter(status=SentenceStatus.PENDING)
        .exclude(assignments__status__in=[AssignmentStatus.OPEN, AssignmentStatus.SUBMITTED])
        .order_by("position")
        .values_list("pk", flat=True)
    )
    rng = random.Random(seed)
    rng.shuffle(sentence_ids)
    annotator_load: Counter[int] = Counter(
        Assignment.objects.filter(sentence__dataset=dataset)
        .exclude(status=AssignmentStatus.WITHDRAWN)
        .values_list("annotator_id", flat=True)
    )
    reviewer_load: Counter[int] = Counter(
        ReviewTask.objects.filter(sentence__dataset=dataset).values_list("reviewer_id", flat=True)
    )
    for start in range(0, len(sentence_ids), ASSIGN_CHUNK_SENTENCES):
        chunk = sentence_ids[start : start + ASSIGN_CHUNK_SENTENCES]
        new_assignments: list[Assignment] = []
        new_tasks: list[ReviewTask] = []
        for sentence_id in chunk:
            chosen = pick_least_loaded(annotators, annotator_load, k, rng)
            chosen_ids = {user.pk for user in chosen}
            eligible = [user for user in reviewers if user.pk not in chosen_ids]
            if not eligible:
                external_id = Sentence.objects.get(pk=sentence_id).external_id
                raise ServiceError(
                    f"sentence {external_id}: every reviewer in the pool is also one of its "
                    "annotators; add a reviewer who does not annotate, or enlarge the annotator "
                    "pool",
                    field="reviewers",
                )
            reviewer = pick_least_loaded(eligible, reviewer_load, 1, rng)[0]
            for user in chosen:
                annotator_load[user.pk] += 1
                new_assignments.append(Assignment(sentence_id=sentence_id, annotator=user))
            reviewer_load[reviewer.pk] += 1
            new_tasks.append(ReviewTask(sentence_id=sentence_id, reviewer=reviewer))
        _write_chunk(chunk, new_assignments, new_tasks)
    summary = AssignmentSummary(
        sentences=len(sentence_ids),
        assignments=k * len(sentence_ids),
        review_tasks=len(sentence_ids),
        seed=seed,
    )
    log_action(
        dataset,
        by,
        "dataset.assigned",
        {
            "seed": seed,
            "k": k,
            "sentences": summary.sentences,
            "assignments": summary.assignments,
        },
    )
    return summary


def _write_chunk(
    sentence_ids: list[int], assignments: list[Assignment], tasks: list[ReviewTask]
) -> None:
    # An old review task of a sentence that is assigned again (all assignments withdrawn) is
    # replaced, never duplicated.
    ReviewTask.objects.filter(sentence_id__in=sentence_ids).delete()
    Assignment.objects.bulk_create(assignments)
    ReviewTask.objects.bulk_create(tasks)
    Sentence.objects.filter(pk__in=sentence_ids).update(status=SentenceStatus.ANNOTATING)
