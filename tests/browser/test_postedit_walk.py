"""Post-edit annotation walked in the browser, on PostgreSQL + Redis + a real Celery worker
(markers `services` and `browser`): twenty MuCGEC-dev sentences, three annotators, the
example system's output as the suggestion and a 25% blind share.

The admin imports the sentences (with their references) on the import page and releases
them (both jobs run on the worker); the example output is uploaded for that release and the
sentences are put back to pending, as a re-annotation starts. On the project page the admin
assigns, switches the mode to post-edit and suggests corrections from the example system
with a blind share of 0.25. Each annotator then works through their twenty sentences by
keyboard only: Alt+A submits the suggestion unchanged, Alt+R resets the box to the source,
or they type a reference; a blind item opens with the source. The reviewer sees each
correction's provenance and saves a review by keyboard; the golden references carry their
entry. Every submission's provenance is checked against what the page showed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotate.models import Assignment, Submission
from core.roles import Role
from datasets.models import (
    AnnotationMode,
    Dataset,
    GoldenReference,
    ReferenceEntry,
    SentenceStatus,
)
from review.models import ReviewTask
from scoring import services
from tests.browser.conftest import ARTIFACTS, login
from tests.browser.test_nav_and_edits import ConsoleWatch
from tests.factories import PASSWORD, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

DATASET = "postedit-walk"
SENTENCES = 20
ANNOTATORS = ("pe-ann1", "pe-ann2", "pe-ann3")
BLIND_SHARE = 0.25
BLIND_EACH = 5  # round(0.25 x 20)
SYSTEM = "example"
DEFAULT_SIZE = {"width": 1280, "height": 900}


@pytest.fixture
def walk(browser: Any, live_server: Any, celery_worker: Any) -> Iterator[dict[str, Any]]:
    contexts: list[Any] = []
    watches: dict[str, ConsoleWatch] = {}

    def open_as(username: str) -> Any:
        context = browser.new_context(base_url=live_server.url, viewport=DEFAULT_SIZE)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30000)
        watches[username] = ConsoleWatch(page)
        login(page, username, PASSWORD)
        return page

    yield {"open": open_as, "watches": watches}
    for context in contexts:
        context.close()


def _head(path: Path, lines: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:lines])


def _references(shared_data: Path) -> dict[str, list[str]]:
    rows = _head(shared_data / "mucgec-dev" / "MuCGEC_dev.txt", SENTENCES).splitlines()
    return {row.split("\t")[1]: row.split("\t")[2:] for row in rows}


def _admin_prepares(admin: Any, shared_data: Path, tmp_path: Path) -> Dataset:
    """The import and the release on the admin's pages (jobs on the worker); the example
    output uploaded for the release; the sentences back to pending (a re-annotation)."""
    data = tmp_path / "mucgec20.txt"
    data.write_text(_head(shared_data / "mucgec-dev" / "MuCGEC_dev.txt", SENTENCES), "utf-8")
    admin.goto("/datasets/import/")
    admin.fill("#id_name", DATASET)
    admin.select_option("#id_format", "mucgec")
    admin.set_input_files("#id_files", str(data))
    admin.click("[data-testid=import-form] button[type=submit]")
    admin.wait_for_selector("[data-testid=dataset-link]")
    admin.goto(f"/datasets/{DATASET}/")
    admin.click("[data-testid=release-form] button")
    admin.wait_for_selector(f"text=Released {DATASET}@v1")
    dataset = Dataset.objects.get(name=DATASET)
    assert dataset.sentences.count() == SENTENCES
    output = _head(shared_data / "mucgec-dev" / "example_pred_dev.txt", SENTENCES)
    services.upload_system_output(
        version=dataset.versions.get(number=1),
        name=SYSTEM,
        data=output.encode(),
        file_name="example_pred_dev.txt",
        user=None,
    )
    dataset.sentences.update(status=SentenceStatus.PENDING)
    return dataset


def _admin_starts_post_edit(admin: Any, dataset: Dataset) -> None:
    """Pools, Assign, the post-edit mode and the suggestions, on the project page."""
    dataset.annotators.set([make_user(Role.ANNOTATOR, username=name) for name in ANNOTATORS])
    dataset.reviewers.set([make_user(Role.REVIEWER, username="pe-rev")])
    admin.goto(f"/annotate/admin/projects/{DATASET}/")
    admin.click("[data-testid=assign]")
    admin.wait_for_selector(f"text=Assigned {SENTENCES} sentence(s) of {DATASET}")
    admin.select_option("#id_annotation_mode", "post-edit")
    admin.click("[data-testid=save-annotation-mode]")
    admin.wait_for_selector(f"text={DATASET}: annotation mode post-edit a suggestion.")
    admin.select_option("#id_suggestion_source", f"system:{SYSTEM}")
    admin.fill("#id_blind_share", str(BLIND_SHARE))
    admin.fill("#id_blind_seed", "7")
    admin.click("[data-testid=suggest]")
    admin.wait_for_selector(
        f"text={SENTENCES} sentences have a suggestion from system:{SYSTEM} (0 without);"
        f" {BLIND_EACH * len(ANNOTATORS)} blind assignments."
    )
    shown = admin.inner_text("[data-testid=suggestion-source]")
    assert f"system:{SYSTEM}" in shown and f"{BLIND_EACH * len(ANNOTATORS)} blind" in shown
    dataset.refresh_from_db()
    assert dataset.annotation_mode == AnnotationMode.POST_EDIT


def _box(page: Any) -> str:
    return str(page.input_value("[data-testid=box] textarea"))


def _submit(page: Any, keys: str) -> None:
    with page.expect_navigation():
        page.keyboard.press(keys)


def _annotator_walks(page: Any, number: int, refs: dict[str, list[str]]) -> dict[int, str]:
    """Keyboard only. Annotator 1 submits every suggestion unchanged (Alt+A); annotator 2
    alternates Alt+A with Alt+R and typing the first reference; annotator 3 types the first
    reference over the suggestion. A blind item opens with the source: the reference is
    typed. Returns {assignment id: what was done}."""
    page.goto("/annotate/next/")
    done: dict[int, str] = {}
    checked_marks = False
    while page.locator("[data-testid=source]").count():
        assignment_id = int(re.search(r"/annotate/a/(\d+)/", page.url).group(1))  # type: ignore[union-attr]
        assignment = Assignment.objects.select_related("sentence").get(pk=assignment_id)
        source = assignment.sentence.text
        suggestion = assignment.sentence.suggestions.get(source=f"system:{SYSTEM}").text
        assert page.inner_text("[data-testid=source]") == source
        assert "Alt+A" in page.inner_text("[data-testid=guidelines-panel]")
        assert page.evaluate(
            "document.activeElement === document.querySelector('[data-testid=box] textarea')"
        )
        reference = refs[source][0]
        if assignment.blind:
            assert _box(page) == source  # opens as in rewrite mode, with no sign of blindness
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(reference)
            _submit(page, "Control+Enter")
            done[assignment_id] = "blind-typed"
            continue
        assert _box(page) == suggestion
        if not checked_marks and suggestion != source:
            # The live diff marks the suggestion's edits as suggested.
            page.locator("[data-testid=box] [data-testid=diff] .edit-suggested").first.wait_for()
            page.screenshot(path=str(ARTIFACTS / "postedit-annotation.png"))
            checked_marks = True
        if number == 0 or (number == 1 and len(done) % 2 == 0):
            _submit(page, "Alt+a")
            done[assignment_id] = "accepted"
        elif number == 1:
            page.keyboard.press("Alt+r")
            assert _box(page) == source
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(reference)
            _submit(page, "Control+Enter")
            done[assignment_id] = "reset-typed"
        else:
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(reference)
            _submit(page, "Control+Enter")
            done[assignment_id] = "typed-over"
        assert len(done) <= SENTENCES
    page.wait_for_selector("text=Nothing left to annotate")
    return done


def _check_provenance(done: dict[int, str]) -> None:
    """Every submission's provenance, as the service computed it, against what was done."""
    for assignment_id, action in done.items():
        submission = Submission.objects.select_related("assignment__sentence").get(
            assignment_id=assignment_id, revision=1
        )
        sentence = submission.assignment.sentence
        suggestion = sentence.suggestions.get(source=f"system:{SYSTEM}").text
        if action == "blind-typed":
            assert (submission.suggestion_source, submission.suggestion_text) == ("blind", None)
            assert not submission.unchanged
            continue
        assert submission.suggestion_source == f"system:{SYSTEM}"
        assert submission.suggestion_text == suggestion
        assert submission.suggestion_signature.startswith(f"system:{SYSTEM}|release:")
        if action == "accepted":
            assert submission.unchanged, (assignment_id, suggestion)
            for correction in submission.corrections.all():
                assert correction.distance_from_suggestion == 0
        else:
            typed = submission.corrections.values_list("text", flat=True)
            assert submission.unchanged == (list(typed) == [suggestion])
        assert submission.time_spent_seconds >= 0


def _reviewer_reviews_one(page: Any) -> Any:
    """The first sentence of the queue: provenance shown, every correction accepted by
    keyboard (C), saved with Ctrl+Enter."""
    page.goto("/review/")
    page.click("[data-testid=start-review]")
    page.wait_for_selector("[data-testid=shortcut-legend]")
    task_id = int(re.search(r"/review/t/(\d+)/", page.url).group(1))  # type: ignore[union-attr]
    rows = page.locator("[data-testid=provenance-row]")
    assert rows.count() >= 1
    text = " ".join(rows.nth(i).inner_text() for i in range(rows.count()))
    assert "pe-ann1" in text and " s" in text
    page.screenshot(path=str(ARTIFACTS / "postedit-review.png"))
    corrections = page.locator("[data-testid=candidate].correction").count()
    for _ in range(corrections):
        page.keyboard.press("c")
    page.keyboard.press("1" if corrections else "2")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    return task_id


def test_post_edit_walk(walk: dict[str, Any], shared_data: Path, tmp_path: Path) -> None:
    make_user(Role.ADMIN, username="pe-admin")
    admin = walk["open"]("pe-admin")
    dataset = _admin_prepares(admin, shared_data, tmp_path)
    _admin_starts_post_edit(admin, dataset)
    for name in ANNOTATORS:
        mine = Assignment.objects.filter(sentence__dataset=dataset, annotator__username=name)
        assert mine.count() == SENTENCES and mine.filter(blind=True).count() == BLIND_EACH

    refs = _references(shared_data)
    for number, name in enumerate(ANNOTATORS):
        done = _annotator_walks(walk["open"](name), number, refs)
        assert len(done) == SENTENCES
        assert sum(action == "blind-typed" for action in done.values()) == BLIND_EACH
        _check_provenance(done)

    reviewer = walk["open"]("pe-rev")
    task = ReviewTask.objects.get(pk=_reviewer_reviews_one(reviewer))
    references = GoldenReference.objects.filter(sentence=task.sentence, is_current=True)
    assert references.exists()
    for reference in references:
        if reference.kind != "correction":
            continue
        first = (
            Submission.objects.filter(
                assignment__sentence=task.sentence,
                revision=1,
                corrections__text=reference.text,
            )
            .order_by("pk")
            .first()
        )
        assert first is not None
        shown = first.suggestion_source not in ("", "blind")
        expected = (
            ReferenceEntry.ACCEPTED_UNCHANGED
            if first.unchanged and shown
            else ReferenceEntry.POST_EDITED
            if shown
            else ReferenceEntry.TYPED
        )
        assert reference.entry == expected
        assert reference.suggestion_source == (first.suggestion_source if shown else "")

    _admin_reads_the_anchoring_report(admin, dataset)

    problems = {user: watch.violations() for user, watch in walk["watches"].items()}
    assert not any(problems.values()), problems


def _estimates(row: Any) -> list[tuple[float, float, float]]:
    cells = row.locator("[data-testid=estimate]")
    return [
        tuple(
            float(cells.nth(i).get_attribute(key))
            for key in ("data-low", "data-value", "data-high")
        )  # type: ignore[misc]
        for i in range(cells.count())
    ]


def _admin_reads_the_anchoring_report(admin: Any, dataset: Dataset) -> None:
    """The done-when of the anchoring report: on the project page both arms, prefilled and
    blind, with their intervals; the rubber-stamp flag exactly where the rule puts it."""
    admin.goto(f"/annotate/admin/projects/{DATASET}/")
    report = admin.locator("[data-testid=anchoring-report]")
    report.wait_for()
    report.screenshot(path=str(ARTIFACTS / "postedit-anchoring.png"))
    assert "1000 resamples" in report.inner_text()
    for arm, items in (("prefilled", 45), ("blind", BLIND_EACH * len(ANNOTATORS))):
        row = report.locator(f"[data-testid=anchoring-overall][data-arm={arm}]")
        assert row.locator("td").nth(2).inner_text() == str(items)
        estimates = _estimates(row)
        # Median seconds and unchanged share always; agreement once a sentence is reviewed
        # (one is: its three items are in one arm or both).
        assert len(estimates) >= 2, (arm, estimates)
        for low, value, high in estimates:
            assert low <= value <= high, (arm, estimates)
        assert "[" in row.inner_text() and "]" in row.inner_text()
    for name in ANNOTATORS:
        for arm in ("prefilled", "blind"):
            assert (
                report.locator(
                    f"[data-testid=anchoring-annotator][data-annotator={name}][data-arm={arm}]"
                ).count()
                == 1
            )
    # pe-ann1 accepted every suggestion: flagged when each took under 3 s (the page's own
    # timer decides, so the expectation is read from what was recorded).
    seconds = Submission.objects.filter(
        assignment__sentence__dataset=dataset,
        assignment__annotator__username=ANNOTATORS[0],
        assignment__blind=False,
        revision=1,
    ).values_list("time_spent_seconds", flat=True)
    fast = all(value < 3 for value in seconds)
    flagged = report.locator(
        f"[data-testid=anchoring-annotator][data-annotator={ANNOTATORS[0]}] "
        "[data-testid=anchoring-flag]"
    )
    assert flagged.count() == (1 if fast else 0)
    assert report.locator("[data-testid=anchoring-flag]").count() == (1 if fast else 0)
