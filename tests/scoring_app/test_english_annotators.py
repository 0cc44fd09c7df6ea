"""English annotators are scored with ERRANT, the metric English systems are scored with: the
quality page, the pay report's factor, the leaderboard's Human row and the published card.

Sentence  He go to school every days .
Golden    R0 He goes to school every day .   ERRANT: R:VERB:SVA (go -> goes), R:NOUN:NUM
Boxes     a1 He goes to school every day .   both edits      2 TP 0 FP 0 FN
          a2 He goes to school every days .  go -> goes only  1 TP 0 FP 1 FN
          a3 tag ERROR FREE                  no edit          0 TP 0 FP 2 FN
Human (pooled)                                                3 / 0 / 3: P 1, R .5, F0.5 .8333
a2 alone: P 1, R .5, F0.5 = 1.25 * .5 / (.25 + .5) = .8333

Char-level ChERRANT counts these differently (go -> goes is an insertion of "es" there, and
day/days a deletion of "s"), so any char-level path shows up as other numbers.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from datasets.services.releases import release_dataset
from publishing import services as publishing
from scoring import selectors, services
from scoring.models import AnnotatorSample
from tests.annotate.workflow import make_world, review_accepting, submit_all

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SOURCE = "He go to school every days ."
R0 = "He goes to school every day ."
HALF = "He goes to school every days ."


@pytest.fixture
def english_world():  # type: ignore[no-untyped-def]
    world = make_world(sentences=[SOURCE], language="en")
    submit_all(world, 0, [([R0], ""), ([HALF], ""), ([], "error_free")])
    review_accepting(world, R0)
    services.refresh_annotator_scores(dataset_id=world.dataset.pk, user=None)
    return world


def test_english_boxes_are_scored_with_errant(english_world) -> None:  # type: ignore[no-untyped-def]
    a1, a2, a3 = english_world.annotators
    rows = {row.annotator_id: row for row in selectors.annotator_quality(english_world.dataset)}
    assert (rows[a1.pk].tp, rows[a1.pk].fp, rows[a1.pk].fn) == (2, 0, 0)
    assert (rows[a2.pk].tp, rows[a2.pk].fp, rows[a2.pk].fn) == (1, 0, 1)
    assert round(rows[a2.pk].f05, 4) == 0.8333
    assert (rows[a3.pk].tp, rows[a3.pk].fp, rows[a3.pk].fn) == (0, 0, 2)
    human = selectors.human_scores(english_world.dataset)
    assert (human["tp"], human["fp"], human["fn"], round(human["f05"], 4)) == (3, 0, 3, 0.8333)
    assert human["metric"] == "ERRANT"
    # The stored blocks are ERRANT's word-level M2 (tokens split on spaces).
    sample = AnnotatorSample.objects.filter(annotator=a1).get()
    assert sample.hyp_m2.startswith(f"S {SOURCE}\n") and "R:VERB:SVA" in sample.hyp_m2


def test_the_pay_factor_and_the_pages_use_errant(english_world) -> None:  # type: ignore[no-untyped-def]
    a1, a2, _ = english_world.annotators
    now = timezone.now()
    pay = {
        row.annotator_id: row
        for row in selectors.pay_report(start=now - timedelta(days=1), end=now + timedelta(days=1))
    }
    assert round(pay[a2.pk].f05 or 0, 4) == 0.8333 and pay[a1.pk].f05 == 1.0
    client = Client()
    client.force_login(english_world.admin)
    page = client.get(f"/scoring/datasets/{english_world.dataset.pk}/annotators/")
    assert page.status_code == 200
    assert "ERRANT F0.5" in page.content.decode() and "ChERRANT" not in page.content.decode()
    release = release_dataset(dataset=english_world.dataset)
    board = client.get(f"/scoring/releases/{release.pk}/").content.decode()
    assert 'data-testid="human-row"' in board and "0.8333" in board


def test_an_english_sample_scored_on_characters_is_stale(english_world) -> None:  # type: ignore[no-untyped-def]
    """Samples stored before English boxes had their own metric carry the Chinese resources'
    signature: they are re-scored, not kept."""
    dataset = english_world.dataset
    assert services.stale_sentence_ids(dataset_id=dataset.pk) == []
    AnnotatorSample.objects.filter(sentence__dataset=dataset).update(resources_key="char:old")
    assert services.stale_sentence_ids(dataset_id=dataset.pk) == [english_world.sentence().pk]
    assert services.refresh_stale_samples(dataset_id=dataset.pk) == 1
    assert services.stale_sentence_ids(dataset_id=dataset.pk) == []


def test_the_english_card_states_errant_agreement_tokens_and_errant_types(
    english_world, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    release = release_dataset(dataset=english_world.dataset)
    publishing.publish_release(version=release, out=tmp_path / "out", allow_blocked=True)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "(ERRANT, all 3 corrections pooled)" in card and "F0.5 0.8333" in card
    assert "ChERRANT" not in card and "char-level" not in card
    assert "| tokens per sentence | 7.0 |" in card and "characters per sentence" not in card
    assert "R (replacement)" in card and "| R:VERB:SVA | 1 |" in card
    assert "没有错误" not in card
