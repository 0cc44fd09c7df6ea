"""Annotator quality on a constructed review, with the expected counts worked out by hand.

Sentence  我很喜欢吃平果   (平 should be 苹; 很 is optional)
Golden    R0 我很喜欢吃苹果   edits: S(5,6 苹)
          R1 我喜欢吃苹果     edits: R(1,2), S(5,6 苹)
Boxes (submission order):
  alice   我很喜欢吃苹果          {S(5,6 苹)}
  bob #0  我喜欢吃平果            {R(1,2)}
  bob #1  我很喜欢吃苹果。        {S(5,6 苹), M(7,7 。)}
  carol   tag ERROR FREE          {} (noop)

ChERRANT's greedy choice in order, F0.5 on (running totals + candidate):
  alice:  R0 -> 1/0/0 (F 1.0), R1 -> 1/0/1  => R0; alice 1/0/0, F0.5 1.0
  bob #0: R0 -> 0/1/1 (F 0),   R1 -> 1/0/1 (P 1, R .5, F .8333)  => R1
  bob #1 (totals 1/0/1): R0 -> 2/1/1 (F .6667), R1 -> 2/1/2 (P .6667 R .5 F .625) => R0
          bob 2/1/1: P = R = F0.5 = 0.6667
  carol:  R0 -> 0/0/1, R1 -> 0/0/2 (both F 0; fewer FN wins) => 0/0/1, P 1.0, R 0, F 0
Human (all boxes pooled, same order):
  alice R0 1/0/0; bob #0 with totals 1/0/0: R0 -> 1/1/1 (F .5), R1 -> 2/0/1 (F .9091) => R1;
  bob #1 with 2/0/1: R0 -> 3/1/1 (F .75), R1 -> 3/1/2 (F .7143) => R0;
  carol with 3/1/1: R0 -> 3/1/2 => Human 3/1/2: P .75, R .6, F0.5 = .5625/.7875 = 0.7143
First reference only (R0): alice 1/0/0, bob#0 0/1/1, bob#1 1/1/0, carol 0/0/1 => 2/2/2, F 0.5
"""

from __future__ import annotations

import pytest

from annotate.models import Assignment, Correction, Submission, SubmissionTag
from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from scoring import selectors, services
from scoring.models import AnnotatorSample
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

SOURCE = "我很喜欢吃平果"
R0 = "我很喜欢吃苹果"
R1 = "我喜欢吃苹果"


def _submit(sentence, user, texts=(), tag=""):  # type: ignore[no-untyped-def]
    assignment = Assignment.objects.create(
        sentence=sentence, annotator=user, status="submitted", time_spent_seconds=60
    )
    submission = Submission.objects.create(
        assignment=assignment, revision=1, tag=tag, time_spent_seconds=60
    )
    for position, text in enumerate(texts):
        Correction.objects.create(submission=submission, position=position, text=text)
    return submission


def _golden(sentence, texts, revision=1):  # type: ignore[no-untyped-def]
    GoldenReference.objects.filter(sentence=sentence, is_current=True).update(is_current=False)
    # bulk_create, as the review service writes them: no signal, found by stale detection.
    GoldenReference.objects.bulk_create(
        [
            GoldenReference(
                sentence=sentence,
                revision=revision,
                position=i,
                kind=ReferenceKind.CORRECTION,
                text=text,
                origin=ReferenceOrigin.EDITED,
            )
            for i, text in enumerate(texts)
        ]
    )


@pytest.fixture
def reviewed():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=[SOURCE], source_name="lang8")
    sentence = dataset.sentences.get()
    alice = make_user(Role.ANNOTATOR, username="alice")
    bob = make_user(Role.ANNOTATOR, username="bob")
    carol = make_user(Role.ANNOTATOR, username="carol")
    _submit(sentence, alice, [R0])
    _submit(sentence, bob, ["我喜欢吃平果", "我很喜欢吃苹果。"])
    _submit(sentence, carol, tag=SubmissionTag.ERROR_FREE)
    _golden(sentence, [R0, R1])
    return dataset, sentence, {"alice": alice, "bob": bob, "carol": carol}


def _by_name(rows):  # type: ignore[no-untyped-def]
    return {row.name: row for row in rows}


def test_each_box_is_a_sample_scored_against_the_golden_references(reviewed) -> None:  # type: ignore[no-untyped-def]
    dataset, sentence, users = reviewed
    assert services.refresh_stale_samples(dataset_id=dataset.pk) == 1
    assert AnnotatorSample.objects.filter(sentence=sentence).count() == 4
    rows = _by_name(selectors.annotator_quality(dataset))
    assert (rows["alice"].tp, rows["alice"].fp, rows["alice"].fn, rows["alice"].f05) == (
        1,
        0,
        0,
        1.0,
    )
    assert (rows["bob"].tp, rows["bob"].fp, rows["bob"].fn) == (2, 1, 1)
    assert (rows["bob"].p, rows["bob"].r, rows["bob"].f05) == (0.6667, 0.6667, 0.6667)
    assert (rows["carol"].tp, rows["carol"].fp, rows["carol"].fn) == (0, 0, 1)
    assert (rows["carol"].p, rows["carol"].r, rows["carol"].f05) == (1.0, 0.0, 0.0)
    assert rows["bob"].samples == 2 and rows["bob"].sentences == 1
    assert rows["bob"].time_spent_seconds == 60
    assert rows["bob"].by_source["lang8"]["f05"] == 0.6667


def test_human_row_pools_all_boxes_and_has_a_first_k_curve(reviewed) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = reviewed
    services.refresh_stale_samples(dataset_id=dataset.pk)
    human = selectors.human_scores(dataset)
    assert (human["tp"], human["fp"], human["fn"]) == (3, 1, 2)
    assert (human["p"], human["r"], human["f05"]) == (0.75, 0.6, 0.7143)
    assert human["ref_count_curve"] == [0.5, 0.7143]  # first 1 reference, then all (2)


def test_changed_golden_references_rescore_only_that_sentence(reviewed) -> None:  # type: ignore[no-untyped-def]
    dataset, sentence, _ = reviewed
    other = dataset.sentences.create(
        source=sentence.source, external_id="2", position=1, text="他是学生"
    )
    services.refresh_stale_samples(dataset_id=dataset.pk)
    assert services.stale_sentence_ids(dataset_id=dataset.pk) == []
    # A complaint resolution keeps only R1 (revision 2).
    _golden(sentence, [R1], revision=2)
    assert services.stale_sentence_ids(dataset_id=dataset.pk) == [sentence.pk]
    assert services.refresh_stale_samples(dataset_id=dataset.pk) == 1
    rows = _by_name(selectors.annotator_quality(dataset))
    # Against R1 alone: alice 1/0/1; bob #0 1/0/1 and #1 1/1/1 -> 2/1/2; carol 0/0/2.
    assert (rows["alice"].tp, rows["alice"].fp, rows["alice"].fn) == (1, 0, 1)
    assert (rows["bob"].tp, rows["bob"].fp, rows["bob"].fn) == (2, 1, 2)
    assert (rows["carol"].tp, rows["carol"].fp, rows["carol"].fn) == (0, 0, 2)
    assert not AnnotatorSample.objects.filter(sentence=other).exists()


def test_saving_a_golden_reference_rescores_its_sentence_on_commit(
    reviewed, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    dataset, sentence, _ = reviewed
    services.refresh_stale_samples(dataset_id=dataset.pk)
    GoldenReference.objects.filter(sentence=sentence).update(is_current=False)
    with django_capture_on_commit_callbacks(execute=True):
        GoldenReference.objects.create(
            sentence=sentence,
            revision=3,
            position=0,
            kind=ReferenceKind.CORRECTION,
            text=R0,
            origin=ReferenceOrigin.COMPLAINT,
        )
    assert set(
        AnnotatorSample.objects.filter(sentence=sentence).values_list("golden_revision", flat=True)
    ) == {3}
    rows = _by_name(selectors.annotator_quality(dataset))
    assert (rows["bob"].tp, rows["bob"].fp, rows["bob"].fn) == (1, 2, 1)


def test_pay_report_applies_the_quality_factor(reviewed) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    dataset, _, users = reviewed
    services.refresh_stale_samples(dataset_id=dataset.pk)
    admin = make_user(Role.ADMIN)
    rates = services.set_pay_rates(
        user=admin,
        per_submission=Decimal("2.00"),
        per_review=Decimal("1.00"),
        target_f05=0.5,
        min_factor=0.5,
        max_factor=1.5,
    )
    now = timezone.now()
    rows = {
        r.name: r
        for r in selectors.pay_report(
            start=now - timedelta(days=1), end=now + timedelta(days=1), dataset=dataset, rates=rates
        )
    }
    # alice F 1.0 -> factor min(1.5, 1.0/0.5) = 1.5 -> 1 x 2.00 x 1.5 = 3.00
    assert rows["alice"].quality_factor == 1.5 and rows["alice"].total == Decimal("3.00")
    # bob F 0.6667 -> factor 1.3334 -> 2.67
    assert rows["bob"].total == Decimal("2.67")
    # carol F 0 -> factor clamps to 0.5 -> 1.00
    assert rows["carol"].quality_factor == 0.5 and rows["carol"].total == Decimal("1.00")
    csv_text = selectors.pay_report_csv(list(rows.values()), rates=rates, start=now, end=now)
    assert "alice" in csv_text and "3.00" in csv_text


def test_bad_pay_rates_are_refused(reviewed) -> None:  # type: ignore[no-untyped-def]
    from decimal import Decimal

    from core.exceptions import ServiceError

    with pytest.raises(ServiceError, match="negative"):
        services.set_pay_rates(
            user=None,
            per_submission=Decimal("-1"),
            per_review=Decimal("1"),
            target_f05=0.5,
            min_factor=0.5,
            max_factor=1.5,
        )
    with pytest.raises(ServiceError, match="target"):
        services.set_pay_rates(
            user=None,
            per_submission=Decimal("1"),
            per_review=Decimal("1"),
            target_f05=0,
            min_factor=0.5,
            max_factor=1.5,
        )


def test_many_stale_sentences_go_to_a_background_job(
    reviewed, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from core.models import BackgroundJob, JobStatus

    dataset, sentence, _ = reviewed
    with django_capture_on_commit_callbacks(execute=True):
        job = services.refresh_annotator_scores(dataset_id=dataset.pk, user=None, inline_limit=0)
    assert job is not None
    job = BackgroundJob.objects.get(pk=job.pk)
    assert job.status == JobStatus.DONE and job.result == {"sentences": 1}
    assert AnnotatorSample.objects.filter(sentence=sentence).count() == 4
    # Up to date now: nothing to do, no job.
    assert (
        services.refresh_annotator_scores(dataset_id=dataset.pk, user=None, inline_limit=0) is None
    )


def test_annotator_page_shows_rows_and_admin_can_rescore_everything(
    reviewed, client, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from django.urls import reverse

    from tests.factories import PASSWORD

    dataset, sentence, _ = reviewed
    admin = make_user(Role.ADMIN)
    client.login(username=admin.username, password=PASSWORD)
    page = client.get(reverse("scoring:annotators", args=[dataset.pk])).content.decode()
    assert page.count('data-testid="annotator-row"') == 3 and 'data-testid="human-row"' in page
    before = set(AnnotatorSample.objects.values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("scoring:annotators", args=[dataset.pk]))
    assert response.status_code == 302
    after = set(AnnotatorSample.objects.values_list("pk", flat=True))
    assert len(after) == 4 and not (before & after)  # rebuilt, not duplicated


def test_annotator_scores_follow_the_real_review_workflow() -> None:
    """The same sentence and boxes, submitted and reviewed through the annotation and review
    services (which write golden references with bulk_create): the numbers are the
    hand-computed ones of the module docstring."""
    from tests.annotate.workflow import make_world, review_accepting, submit_all

    world = make_world(sentences=[SOURCE])
    submit_all(
        world, 0, [([R0], ""), (["我喜欢吃平果", "我很喜欢吃苹果。"], ""), ([], "error_free")]
    )
    review_accepting(world, R0, added=[R1])
    assert [
        r.text
        for r in GoldenReference.objects.filter(
            sentence=world.sentence(), is_current=True
        ).order_by("position")
    ] == [R0, R1]
    a1, a2, a3 = world.annotators
    assert services.stale_sentence_ids(dataset_id=world.dataset.pk) == [world.sentence().pk]
    services.refresh_annotator_scores(dataset_id=world.dataset.pk, user=None)
    rows = {row.annotator_id: row for row in selectors.annotator_quality(world.dataset)}
    assert (rows[a1.pk].tp, rows[a1.pk].fp, rows[a1.pk].fn) == (1, 0, 0)
    assert (rows[a2.pk].tp, rows[a2.pk].fp, rows[a2.pk].fn, rows[a2.pk].f05) == (2, 1, 1, 0.6667)
    assert (rows[a3.pk].tp, rows[a3.pk].fp, rows[a3.pk].fn) == (0, 0, 1)
    human = selectors.human_scores(world.dataset)
    assert (human["tp"], human["fp"], human["fn"], human["f05"]) == (3, 1, 2, 0.7143)


def test_release_human_row_is_scored_against_the_frozen_references() -> None:
    """Regression: the leaderboard's Human row of a release used the live golden
    references. Against the release's own references it equals the live row while the two
    agree, and keeps its numbers when a review is amended after the release."""
    from django.test import Client

    from datasets.services.releases import release_dataset
    from review.amendments import amend_review
    from tests.annotate.workflow import make_world, review_accepting, submit_all

    world = make_world(sentences=[SOURCE])
    submit_all(
        world, 0, [([R0], ""), (["我喜欢吃平果", "我很喜欢吃苹果。"], ""), ([], "error_free")]
    )
    verdicts = review_accepting(world, R0, added=[R1])
    task = world.task()
    services.refresh_annotator_scores(dataset_id=world.dataset.pk, user=None)
    release = release_dataset(dataset=world.dataset)
    live = selectors.human_scores(world.dataset)
    frozen = services.release_human_scores(release)
    keys = ("tp", "fp", "fn", "p", "r", "f05", "samples")
    assert {k: frozen[k] for k in keys} == {k: live[k] for k in keys}
    assert frozen["ref_count_curve_by_k"] == live["ref_count_curve_by_k"]
    # The reviewer now accepts every correction: the live row changes, the release's does not.
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
    services.refresh_annotator_scores(dataset_id=world.dataset.pk, user=None)
    after = selectors.human_scores(world.dataset)
    assert (after["tp"], after["fp"], after["fn"]) != (live["tp"], live["fp"], live["fn"])
    again = services.release_human_scores(release)
    assert {k: again[k] for k in keys} == {k: frozen[k] for k in keys}
    client = Client()
    client.force_login(world.admin)
    page = client.get(f"/scoring/releases/{release.pk}/").content.decode()
    assert "this release&#x27;s references" in page or "this release's references" in page
