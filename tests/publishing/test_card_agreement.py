"""The card's agreement line is a function of the release: publishing straight after the
release states it, opening the leaderboard and annotator pages in between changes nothing,
and a review amended after the release does not reach the card (the release froze its
references). Two publishes of one release give byte-identical cards."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from datasets.services.releases import release_dataset
from publishing import services as publishing
from review.amendments import amend_review
from scoring import services as scoring
from tests.annotate.workflow import make_world, review_accepting, submit_all

pytestmark = pytest.mark.django_db

SOURCE = "我很喜欢吃平果"
R0 = "我很喜欢吃苹果"
R1 = "我喜欢吃苹果"


def _card(version, folder: Path) -> str:  # type: ignore[no-untyped-def]
    publishing.publish_release(version=version, out=folder, allow_blocked=True)
    return (folder / "README.md").read_text(encoding="utf-8")


def test_two_publishes_give_one_card_whatever_was_opened_between(tmp_path: Path) -> None:
    world = make_world(sentences=[SOURCE])
    submit_all(
        world, 0, [([R0], ""), (["我喜欢吃平果", "我很喜欢吃苹果。"], ""), ([], "error_free")]
    )
    verdicts = review_accepting(world, R0, added=[R1])
    task = world.task()
    release = release_dataset(dataset=world.dataset)
    # Nobody opened a scoring page: the card scores the boxes itself.
    first = _card(release, tmp_path / "first")
    assert "imported, not annotated" not in first
    # Human pooled against R0 / R1 (tests/scoring_app/test_annotator_quality.py works it out).
    assert "(ChERRANT char-level, all 4 corrections pooled)" in first
    assert "P 0.7500, R 0.6000, F0.5 0.7143" in first
    client = Client()
    client.force_login(world.admin)
    for url in (
        f"/scoring/releases/{release.pk}/",
        f"/scoring/datasets/{world.dataset.pk}/annotators/",
    ):
        assert client.get(url).status_code == 200
    assert _card(release, tmp_path / "second") == first
    # The reviewer amends the live review: the release's references, and its card, stay.
    task.refresh_from_db()
    amend_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{**v, "correct": True} for v in verdicts],
        added=[R1],
        reason="every correction is acceptable",
    )
    scoring.refresh_annotator_scores(dataset_id=world.dataset.pk, user=None)
    assert _card(release, tmp_path / "third") == first
