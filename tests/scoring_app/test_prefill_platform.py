"""The anchoring report on the platform: rows read from submissions, samples and
suggestions; the project and release pages, the API (admins only) and `dataset_stats
--json`'s ``prefill``.

Sentence 1  我很喜欢吃平果   golden R0 我很喜欢吃苹果 (one edit: S 平 -> 苹)
            suggestion (system:demo) = R0
  alice  prefilled, submitted R0 unchanged in 2 s   -> agreement 1/0/0, suggestion 1/0/0
  bob    blind, typed 我喜欢吃平果 in 40 s           -> agreement 0/1/1 (deletes 很, misses 苹);
         the suggestion his box would have opened with: R0 -> 1/0/0
  dave   blind, typed exactly the suggestion in 20 s  -> unchanged (ends where it would have)
  carol  rewrite-mode submission                     -> not an item
Sentence 2  他是学生。  not reviewed
  alice  prefilled, unchanged in 1 s                 -> no agreement, no suggestion counts
alice: 2 of 2 prefilled items unchanged in under 3 s -> flagged; bob is not.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.models import Assignment, Correction, Submission, SubmissionTag, Suggestion
from core.roles import Role
from datasets.models import (
    AnnotationMode,
    GoldenReference,
    ReferenceEntry,
    ReferenceKind,
    ReferenceOrigin,
)
from datasets.services.releases import release_dataset
from scoring import services
from scoring.prefill import BLIND, PREFILLED, PrefillItem
from scoring.prefill_rows import prefill_items, prefill_report
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

SOURCE = "我很喜欢吃平果"
R0 = "我很喜欢吃苹果"
BOB = "我喜欢吃平果"
LABEL = "system:demo"


def _submit(sentence, user, text, *, source, seconds, unchanged=False, blind=False):  # type: ignore[no-untyped-def]
    assignment = Assignment.objects.create(
        sentence=sentence,
        annotator=user,
        status="submitted",
        time_spent_seconds=seconds,
        blind=blind,
    )
    submission = Submission.objects.create(
        assignment=assignment,
        revision=1,
        time_spent_seconds=seconds,
        suggestion_source=source,
        suggestion_text=None if source in ("", "blind") else R0 if sentence.position == 0 else text,
        unchanged=unchanged,
    )
    Correction.objects.create(submission=submission, position=0, text=text)
    return submission


@pytest.fixture
def project():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=[SOURCE, "他是学生。"])
    dataset.annotation_mode = AnnotationMode.POST_EDIT
    dataset.suggestion_source = LABEL
    dataset.save()
    first, second = dataset.sentences.order_by("position")
    Suggestion.objects.create(sentence=first, source=LABEL, signature=f"{LABEL}|test", text=R0)
    Suggestion.objects.create(
        sentence=second, source=LABEL, signature=f"{LABEL}|test", text="他是学生。"
    )
    alice = make_user(Role.ANNOTATOR, username="alice")
    bob = make_user(Role.ANNOTATOR, username="bob")
    carol = make_user(Role.ANNOTATOR, username="carol")
    dave = make_user(Role.ANNOTATOR, username="dave")
    _submit(first, alice, R0, source=LABEL, seconds=2, unchanged=True)
    _submit(first, bob, BOB, source="blind", seconds=40, blind=True)
    _submit(first, carol, R0, source="", seconds=30)
    _submit(first, dave, R0, source="blind", seconds=20, blind=True)
    _submit(second, alice, "他是学生。", source=LABEL, seconds=1, unchanged=True)
    GoldenReference.objects.create(
        sentence=first,
        revision=1,
        position=0,
        kind=ReferenceKind.CORRECTION,
        text=R0,
        origin=ReferenceOrigin.ANNOTATORS,
        entry=ReferenceEntry.ACCEPTED_UNCHANGED,
        suggestion_source=LABEL,
    )
    services.refresh_stale_samples(dataset_id=dataset.pk)
    return dataset, first, second


def test_rows_are_the_post_edit_items_with_their_counts(project) -> None:  # type: ignore[no-untyped-def]
    dataset, first, second = project
    assert prefill_items(dataset) == [
        PrefillItem("alice", first.pk, PREFILLED, 2.0, True, (1, 0, 0), (1, 0, 0)),
        PrefillItem("bob", first.pk, BLIND, 40.0, False, (0, 1, 1), (1, 0, 0)),
        PrefillItem("dave", first.pk, BLIND, 20.0, True, (1, 0, 0), (1, 0, 0)),
        PrefillItem("alice", second.pk, PREFILLED, 1.0, True, None, None),
    ]


def test_report_of_the_project_flags_the_fast_unchanged_annotator(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    report = prefill_report(dataset)
    assert report.metric == "ChERRANT char-level"
    assert report.flagged == ["alice"]
    alice, bob, dave = report.annotators
    assert (alice.annotator, alice.prefilled.items, alice.blind.items) == ("alice", 2, 0)
    assert alice.prefilled.median_seconds.value == 1.5
    assert alice.prefilled.f05.value == 1.0
    assert (bob.annotator, bob.flagged, bob.blind.f05.value) == ("bob", False, 0.0)
    assert bob.blind.suggestion_f05.value == 1.0
    assert (dave.flagged, dave.blind.unchanged_share.value) == (False, 1.0)
    assert report.overall[BLIND].unchanged_share.value == 0.5
    assert report.overall[BLIND].suggestion_sentences == 1


def test_a_release_report_reads_only_the_released_sentences(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    version = release_dataset(dataset=dataset)  # sentence 2 has no reference: not released
    report = prefill_report(dataset, version=version)
    assert report.overall[PREFILLED].items == 1
    assert report.overall[BLIND].items == 2


def test_api_gives_admins_the_report_and_refuses_everyone_else(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    url = reverse("scoring:api-anchoring", args=[dataset.pk])
    admin = APIClient()
    admin.force_authenticate(make_user(Role.ADMIN))
    body = admin.get(url).json()
    assert body["dataset"] == dataset.name and body["release"] is None
    assert body["flagged"] == ["alice"]
    assert body["resamples"] == 1000 and body["seed"] == 0 and body["confidence"] == 0.95
    assert body["overall"]["prefilled"]["items"] == 2
    blind = body["overall"]["blind"]["median_seconds"]
    assert blind == {"value": 30.0, "low": 20.0, "high": 40.0}
    missing = admin.get(url + "?release=v9")
    assert missing.status_code == 404 and "v9" in missing.json()["detail"]
    for role in (Role.ANNOTATOR, Role.REVIEWER):
        other = APIClient()
        other.force_authenticate(make_user(role))
        assert other.get(url).status_code == 403
    assert APIClient().get(url).status_code in (401, 403)


def test_project_page_shows_both_arms_with_intervals_to_admins_only(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    url = reverse("review:project", args=[dataset.name])
    admin = Client()
    admin.force_login(make_user(Role.ADMIN))
    page = admin.get(url).content.decode()
    assert 'data-testid="anchoring-report"' in page
    assert 'data-testid="anchoring-overall" data-arm="prefilled"' in page
    assert 'data-testid="anchoring-overall" data-arm="blind"' in page
    assert 'data-low="40.0" data-high="40.0"' in page  # the blind arm's median interval
    assert 'data-testid="anchoring-flag"' in page and "flagged: 2 of 2" in page
    assert 'data-testid="anchoring-chart"' in page
    assert "95% bootstrap intervals (1000 resamples" in page
    assert "more than 95% of an annotator's prefilled items" in page
    annotator = Client()
    annotator.force_login(make_user(Role.ANNOTATOR))
    assert annotator.get(url).status_code == 403


def test_rewrite_project_page_has_no_anchoring_section() -> None:
    dataset = make_dataset(sentences=[SOURCE])
    admin = Client()
    admin.force_login(make_user(Role.ADMIN))
    page = admin.get(reverse("review:project", args=[dataset.name])).content.decode()
    assert "anchoring-report" not in page


def test_release_page_shows_the_report(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    version = release_dataset(dataset=dataset)
    admin = Client()
    admin.force_login(make_user(Role.ADMIN))
    page = admin.get(reverse("publishing:release", args=[version.pk])).content.decode()
    assert 'data-testid="anchoring-overall" data-arm="blind"' in page


def test_dataset_stats_json_carries_the_report_under_prefill(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _, _ = project
    out = StringIO()
    call_command("dataset_stats", dataset.name, "--json", stdout=out)
    stats = json.loads(out.getvalue())
    assert stats["prefill"]["flagged"] == ["alice"]
    assert stats["prefill"]["overall"]["blind"]["items"] == 2
    assert stats["prefill"]["annotators"][1]["blind"]["f05"]["value"] == 0.0
    text = StringIO()
    call_command("dataset_stats", dataset.name, stdout=text)
    assert "post-edit items: prefilled 2, blind 2; flagged annotators: alice" in text.getvalue()


def test_the_cached_report_follows_new_submissions_and_rescored_samples(project) -> None:  # type: ignore[no-untyped-def]
    dataset, first, second = project
    assert prefill_report(dataset).overall[PREFILLED].items == 2
    erin = make_user(Role.ANNOTATOR, username="erin")
    _submit(second, erin, "他是个学生。", source=LABEL, seconds=9)
    assert prefill_report(dataset).overall[PREFILLED].items == 3
    # A new golden reference rescored the sentence: bob's blind box now agrees.
    GoldenReference.objects.filter(sentence=first).update(is_current=False)
    GoldenReference.objects.create(
        sentence=first,
        revision=2,
        position=0,
        kind=ReferenceKind.CORRECTION,
        text=BOB,
        origin=ReferenceOrigin.COMPLAINT,
    )
    services.refresh_stale_samples(dataset_id=dataset.pk)
    bob = {row.annotator: row for row in prefill_report(dataset).annotators}["bob"]
    assert bob.blind.f05.value == 1.0


def test_a_blind_error_free_tag_is_unchanged_where_the_suggestion_says_no_error(project) -> None:  # type: ignore[no-untyped-def]
    dataset, first, _ = project
    clean = dataset.sentences.create(
        source=first.source, external_id="3", position=2, text="我们应该保护环境。"
    )
    Suggestion.objects.create(sentence=clean, source=LABEL, signature="s", text=clean.text)
    for name, sentence in (("frank", clean), ("gina", first)):
        assignment = Assignment.objects.create(
            sentence=sentence, annotator=make_user(Role.ANNOTATOR, username=name), blind=True
        )
        Submission.objects.create(
            assignment=assignment,
            revision=1,
            tag=SubmissionTag.ERROR_FREE,
            suggestion_source="blind",
            time_spent_seconds=5,
        )
    unchanged = {item.annotator: item.unchanged for item in prefill_items(dataset)}
    # frank: the suggestion was the source ("no error"); gina's sentence had a correction.
    assert (unchanged["frank"], unchanged["gina"]) == (True, False)
