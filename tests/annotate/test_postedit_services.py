"""Post-edit annotation's services: suggestions stored once per (sentence, source), the blind
draw (exact per annotator, reproducible, stratified), the provenance the submit service
computes (never the page's), and the entry of the golden references a review writes."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotate.models import Assignment, Submission, Suggestion
from annotate.services import submit_correction
from annotate.suggestions import (
    BLIND,
    blind_count,
    char_distance,
    draw_blind_items,
    store_suggestions,
)
from core.exceptions import ServiceError
from core.roles import Role
from datasets.models import AnnotationMode, Dataset, GoldenReference, ReferenceEntry
from datasets.services.projects import set_annotation_mode
from review.selectors import merged_candidates
from review.verdicts import submit_review
from review.workflow import assign_dataset
from tests.annotate.workflow import World, make_world
from tests.factories import make_dataset, make_user

pytestmark = [pytest.mark.django_db]

SOURCE = "我昨天去了图书馆借书了三本。"
SUGGESTED = "我昨天去图书馆借了三本书。"


def _project(*, pool: int, k: int, sentences: int, seed: int = 3) -> Dataset:
    dataset = make_dataset(sentences=[f"第{i}个句子有错误的。" for i in range(sentences)], k=k)
    dataset.annotators.set([make_user(Role.ANNOTATOR) for _ in range(pool)])
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=seed, by=make_user(Role.ADMIN))
    return dataset


def _blind_by_annotator(dataset: Dataset) -> dict[int, tuple[int, int]]:
    """annotator id -> (blind, assigned)."""
    counts: dict[int, tuple[int, int]] = {}
    for annotator_id, blind in Assignment.objects.filter(sentence__dataset=dataset).values_list(
        "annotator_id", "blind"
    ):
        done, total = counts.get(annotator_id, (0, 0))
        counts[annotator_id] = (done + int(blind), total + 1)
    return counts


@pytest.mark.parametrize(("pool", "k", "sentences"), [(1, 1, 7), (3, 3, 20), (5, 2, 13), (4, 3, 9)])
@pytest.mark.parametrize("share", [0.0, 0.1, 0.25, 0.5, 0.9])
def test_blind_share_is_exact_for_every_annotator(
    pool: int, k: int, sentences: int, share: float
) -> None:
    dataset = _project(pool=pool, k=k, sentences=sentences)
    total = draw_blind_items(dataset=dataset, share=share, seed=11)
    counts = _blind_by_annotator(dataset)
    assert len(counts) == pool
    for blind, assigned in counts.values():
        assert blind == blind_count(share, assigned)
    assert total == sum(blind for blind, _ in counts.values())


def test_blind_count_rounds_halves_up() -> None:
    assert [blind_count(0.25, n) for n in (1, 2, 6, 10, 20)] == [0, 1, 2, 3, 5]
    assert blind_count(0.5, 3) == 2  # Python's round(1.5) is 2 but round(2.5) is 2: not used


def test_blind_draw_is_reproducible_with_its_seed_and_stratified() -> None:
    dataset = _project(pool=3, k=3, sentences=20)

    def drawn(seed: int) -> set[int]:
        draw_blind_items(dataset=dataset, share=0.25, seed=seed)
        return set(
            Assignment.objects.filter(sentence__dataset=dataset, blind=True).values_list(
                "pk", flat=True
            )
        )

    first = drawn(5)
    assert drawn(9) != first
    assert drawn(5) == first
    # Every annotator got their 5 blind items (stratified, not 15 drawn from the pool of 60).
    assert sorted(b for b, _ in _blind_by_annotator(dataset).values()) == [5, 5, 5]


def test_opened_assignments_keep_their_blind_flag() -> None:
    dataset = _project(pool=1, k=1, sentences=8)
    draw_blind_items(dataset=dataset, share=0.5, seed=1)
    opened = Assignment.objects.filter(sentence__dataset=dataset, blind=True).first()
    assert opened is not None
    Assignment.objects.filter(pk=opened.pk).update(opened_at="2026-01-01T00:00:00Z")
    draw_blind_items(dataset=dataset, share=0.0, seed=1)
    assert list(
        Assignment.objects.filter(sentence__dataset=dataset, blind=True).values_list(
            "pk", flat=True
        )
    ) == [opened.pk]


@pytest.mark.parametrize("share", [1, 1.5, -0.1, "a quarter", None])
def test_a_blind_share_outside_zero_to_one_is_refused(share: object) -> None:
    dataset = _project(pool=1, k=1, sentences=2)
    with pytest.raises(ServiceError, match="blind share"):
        draw_blind_items(dataset=dataset, share=share, seed=0)


def test_storing_again_never_duplicates_and_a_no_error_suggestion_is_kept() -> None:
    dataset = make_dataset(sentences=[SOURCE, "这个句子没有错误。"])
    first, second = dataset.sentences.order_by("position")
    texts = {first.pk: SUGGESTED, second.pk: second.text}
    assert store_suggestions(dataset=dataset, source="system:a", signature="s1", texts=texts) == 2
    texts[first.pk] = "我昨天去图书馆借了书。"
    assert store_suggestions(dataset=dataset, source="system:a", signature="s2", texts=texts) == 2
    rows = Suggestion.objects.filter(sentence__dataset=dataset).order_by("sentence__position")
    assert [(r.text, r.signature) for r in rows] == [
        ("我昨天去图书馆借了书。", "s2"),
        ("这个句子没有错误。", "s2"),  # equal to the source: a "no error" suggestion
    ]
    dataset.refresh_from_db()
    assert dataset.suggestion_source == "system:a"


def test_char_distance_is_levenshtein_over_characters() -> None:
    assert char_distance("", "") == 0
    assert char_distance("abc", "") == 3
    assert char_distance("kitten", "sitting") == 3
    assert char_distance(SOURCE, SUGGESTED) == char_distance(SUGGESTED, SOURCE)
    assert char_distance("借书了三本", "借了三本书") == 2


def _post_edit_world() -> World:
    world = make_world(sentences=[SOURCE, "这个句子没有错误。"])
    first, second = world.dataset.sentences.order_by("position")
    store_suggestions(
        dataset=world.dataset,
        source="system:demo",
        signature="system:demo|release:x@v1|sha:0",
        texts={first.pk: SUGGESTED, second.pk: second.text},
    )
    set_annotation_mode(dataset=world.dataset, by=world.admin, mode=AnnotationMode.POST_EDIT)
    return world


def test_provenance_is_computed_by_the_service() -> None:
    world = _post_edit_world()
    a, b, c = world.annotators
    Assignment.objects.filter(pk=world.assignment(c).pk).update(blind=True)
    # The API takes no provenance: what a client claims is ignored.
    api = APIClient()
    api.force_authenticate(a)
    response = api.post(
        f"/api/assignments/{world.assignment(a).pk}/submit/",
        {"texts": [f" {SUGGESTED} "], "unchanged": False, "suggestion_source": "typed"},
        format="json",
    )
    assert response.status_code == 201, response.content
    edited = "我昨天去了图书馆借了三本书。"
    submit_correction(assignment_id=world.assignment(b).pk, user=b, texts=[edited])
    submit_correction(assignment_id=world.assignment(c).pk, user=c, texts=[SUGGESTED])
    rows = {
        s.assignment.annotator_id: s
        for s in Submission.objects.filter(assignment__sentence=world.sentence(0))
    }
    unchanged, changed, blind = rows[a.pk], rows[b.pk], rows[c.pk]
    assert (unchanged.suggestion_source, unchanged.unchanged) == ("system:demo", True)
    assert unchanged.suggestion_signature == "system:demo|release:x@v1|sha:0"
    assert unchanged.suggestion_text == SUGGESTED
    first = unchanged.corrections.get()
    assert (first.distance_from_suggestion, first.distance_from_source) == (
        0,
        char_distance(SOURCE, SUGGESTED),
    )
    assert (changed.suggestion_source, changed.unchanged) == ("system:demo", False)
    second = changed.corrections.get()
    assert second.distance_from_suggestion == char_distance(SUGGESTED, edited) == 1
    assert second.distance_from_source == char_distance(SOURCE, edited)
    # A blind item: the same text, but no suggestion was shown, so it is not "unchanged".
    assert (blind.suggestion_source, blind.suggestion_text, blind.unchanged) == (BLIND, None, False)
    assert blind.corrections.get().distance_from_suggestion is None


def test_accepting_a_no_error_suggestion_is_error_free_and_unchanged() -> None:
    world = _post_edit_world()
    a = world.annotators[0]
    result = submit_correction(
        assignment_id=world.assignment(a, 1).pk, user=a, texts=["这个句子没有错误。"]
    )
    assert result.submission.tag == "error_free"
    assert result.submission.unchanged is True


def test_rewrite_mode_records_no_suggestion() -> None:
    world = _post_edit_world()
    set_annotation_mode(dataset=world.dataset, by=world.admin, mode=AnnotationMode.REWRITE)
    a = world.annotators[0]
    result = submit_correction(assignment_id=world.assignment(a).pk, user=a, texts=[SUGGESTED])
    assert (result.submission.suggestion_source, result.submission.unchanged) == ("", False)
    correction = result.submission.corrections.get()
    assert correction.distance_from_suggestion is None
    assert correction.distance_from_source == char_distance(SOURCE, SUGGESTED)


def test_an_unknown_annotation_mode_is_refused() -> None:
    world = make_world()
    with pytest.raises(ServiceError, match="annotation mode"):
        set_annotation_mode(dataset=world.dataset, by=world.admin, mode="postedit")


def test_review_sets_each_reference_entry() -> None:
    world = _post_edit_world()
    a, b, c = world.annotators
    Assignment.objects.filter(pk=world.assignment(c).pk).update(blind=True)
    edited = "我昨天去了图书馆借了三本书。"
    typed = "昨天我去图书馆借了三本书。"
    submit_correction(assignment_id=world.assignment(a).pk, user=a, texts=[SUGGESTED])
    submit_correction(assignment_id=world.assignment(b).pk, user=b, texts=[edited])
    submit_correction(assignment_id=world.assignment(c).pk, user=c, texts=[typed])
    task = world.task()
    candidates = {c.text: c for c in merged_candidates(task, with_edits=False)}
    assert candidates[SUGGESTED].provenance[0].unchanged is True
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[
            {"position": candidates[SUGGESTED].position, "correct": True},
            {"position": candidates[edited].position, "correct": True},
            {"position": candidates[typed].position, "correct": True},
        ],
        added=["我昨天去图书馆借书，借了三本。"],
    )
    entries = {
        r.text: (r.entry, r.suggestion_source)
        for r in GoldenReference.objects.filter(sentence=world.sentence(0), is_current=True)
    }
    assert entries == {
        SUGGESTED: (ReferenceEntry.ACCEPTED_UNCHANGED, "system:demo"),
        edited: (ReferenceEntry.POST_EDITED, "system:demo"),
        typed: (ReferenceEntry.TYPED, ""),  # a blind item: typed from the source
        "我昨天去图书馆借书，借了三本。": (ReferenceEntry.TYPED, ""),
    }


def test_a_reviewer_edit_of_an_unchanged_suggestion_is_post_edited() -> None:
    world = _post_edit_world()
    for user in world.annotators:
        submit_correction(assignment_id=world.assignment(user).pk, user=user, texts=[SUGGESTED])
    task = world.task()
    (candidate,) = merged_candidates(task, with_edits=False)
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[
            {
                "position": candidate.position,
                "correct": True,
                "text": "我昨天去图书馆借了三本书啊。",
            }
        ],
    )
    reference = GoldenReference.objects.get(sentence=world.sentence(0), is_current=True)
    assert (reference.entry, reference.suggestion_source) == (
        ReferenceEntry.POST_EDITED,
        "system:demo",
    )
