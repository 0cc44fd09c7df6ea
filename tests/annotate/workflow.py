"""Builders for workflow tests: a dataset with pools, assigned through the real service."""

from __future__ import annotations

from dataclasses import dataclass

from annotate.models import Assignment
from annotate.services import submit_correction
from core.models import User
from core.roles import Role
from datasets.models import Dataset, Sentence
from review.models import ReviewTask
from review.workflow import assign_dataset
from tests.factories import make_dataset, make_user

SENTENCES = [
    "我昨天去了图书馆借书了三本。",
    "他对中国的历史很感兴趣。",
    "我们应该保护环境。",
]


@dataclass
class World:
    dataset: Dataset
    annotators: list[User]
    reviewer: User
    other_reviewer: User
    admin: User
    outsider: User  # an annotator outside the pool

    def sentence(self, position: int = 0) -> Sentence:
        return self.dataset.sentences.get(position=position)

    def assignment(self, user: User, position: int = 0) -> Assignment:
        return Assignment.objects.get(
            sentence=self.sentence(position), annotator=user, status__in=["open", "submitted"]
        )

    def task(self, position: int = 0) -> ReviewTask:
        return ReviewTask.objects.get(sentence=self.sentence(position))


def make_world(
    *, sentences: list[str] | None = None, k: int = 3, seed: int = 7, language: str = "zh"
) -> World:
    annotators = [make_user(Role.ANNOTATOR) for _ in range(k)]
    reviewer = make_user(Role.REVIEWER)
    other_reviewer = make_user(Role.REVIEWER)
    admin = make_user(Role.ADMIN)
    outsider = make_user(Role.ANNOTATOR)
    dataset = make_dataset(sentences=sentences or SENTENCES, k=k, language=language)
    dataset.annotators.set(annotators)
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=seed, by=admin)
    return World(dataset, annotators, reviewer, other_reviewer, admin, outsider)


def submit_all(world: World, position: int, answers: list[tuple[list[str], str]]) -> None:
    """answers[i] = (texts, tag) for world.annotators[i]."""
    for user, (texts, tag) in zip(world.annotators, answers, strict=True):
        submit_correction(
            assignment_id=world.assignment(user, position).pk, user=user, texts=texts, tag=tag
        )


def review_accepting(
    world: World, accepted: str, *, added: list[str] | None = None, position: int = 0
) -> list[dict[str, object]]:
    """The reviewer saves sentence `position` as annotatable, judging correct only the
    corrections whose text is `accepted` (tags are not judged), adding `added`; returns the
    verdicts it sent, for an amendment to start from."""
    from review.selectors import merged_candidates
    from review.verdicts import submit_review

    task = world.task(position)
    verdicts: list[dict[str, object]] = [
        {"position": c.position, "correct": c.text == accepted}
        for c in merged_candidates(task, with_edits=False)
        if c.kind == "correction"
    ]
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=verdicts,
        added=added or [],
    )
    return verdicts
