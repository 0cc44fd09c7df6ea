"""An English dataset through the whole platform in a real browser: the admin imports it on the
datasets page and hands it out, an annotator corrects a sentence with live ERRANT diffs and
marks the other ERROR FREE, the reviewer accepts the correction and confirms the error-free
sentence, the admin releases the dataset, exports ERRANT M2 and the parallel files (the
error-free sentence's reference is the sentence itself, never the Chinese marker), scores a
system on the leaderboard, which shows ERRANT, M2, SentM2, GLEU and the annotators' Human
row, and reads the annotators' ERRANT quality. No English page shows the Chinese marker."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from gecscore.english.errant_edits import extract_edits_en

from core.roles import Role
from datasets.models import Dataset, GoldenReference
from tests.browser.conftest import login, release_and_download_m2
from tests.browser.test_annotation_loop import screenshot_page
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCES = ["He go to school yesterday .", "She like apples ."]
FIX = "He went to school yesterday ."
OUTPUT = "He went to school yesterday .\nShe like apple .\n"  # one TP, one FP, one FN


@pytest.fixture
def contexts():  # type: ignore[no-untyped-def]
    opened: list[Any] = []
    yield opened
    for context in opened:
        context.close()


def _page_for(browser: Any, live_server: Any, username: str, opened: list[Any]) -> Any:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    opened.append(context)
    page = context.new_page()
    page.set_default_timeout(30000)  # the first English diff loads spaCy
    login(page, username, PASSWORD)
    return page


def test_english_dataset_import_annotate_review_release_export_score(  # type: ignore[no-untyped-def]
    browser, live_server, page, screenshot, contexts, tmp_path: Path, settings
) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    admin = make_user(Role.ADMIN, username="en-admin")
    annotator = make_user(Role.ANNOTATOR, username="en-annotator")
    reviewer = make_user(Role.REVIEWER, username="en-reviewer")
    page.set_default_timeout(30000)
    login(page, admin.username, PASSWORD)

    # --- import on the datasets page, language English.
    source_file = tmp_path / "en.txt"
    source_file.write_text("".join(s + "\n" for s in SOURCES), encoding="utf-8")
    page.goto("/datasets/import/")
    page.fill("#id_name", "en-loop")
    page.select_option("#id_format", "text")
    page.select_option("#id_language", "en")
    page.set_input_files("#id_files", str(source_file))
    page.click("[data-testid=import-form] button[type=submit]")
    page.wait_for_selector("[data-testid=dataset-link]")
    dataset = Dataset.objects.get(name="en-loop")
    assert dataset.language == "en"
    dataset.annotators_per_sentence = 1
    dataset.save(update_fields=["annotators_per_sentence"])
    dataset.annotators.set([annotator])
    dataset.reviewers.set([reviewer])
    page.goto("/annotate/admin/")
    page.select_option("select[name=dataset]", label="en-loop (k=1)")
    page.click("form[action$='/annotate/admin/assign/'] button")
    page.wait_for_selector("text=Assigned 2 sentence(s)")

    # --- the annotator: live ERRANT diff (word-level, spaces kept), ERROR FREE for the other.
    work = _page_for(browser, live_server, annotator.username, contexts)
    for _ in SOURCES:
        work.goto("/annotate/next/")
        work.wait_for_selector("[data-testid=source]")
        source = work.inner_text("[data-testid=source]").strip()
        assert source in SOURCES
        box = work.locator("[data-testid=box]")
        if source == SOURCES[0]:
            box.locator("textarea").fill(FIX)
            expected = extract_edits_en(SOURCES[0], FIX)
            box.locator(f"[data-testid=diff][data-edits='{len(expected)}']").wait_for()
            diff_text = box.locator("[data-testid=diff]").inner_text()
            assert (
                "He go" in diff_text and "went" in diff_text and "to school yesterday" in diff_text
            )
            assert (box.locator(".edit-sub").first.get_attribute("title") or "").startswith(
                expected[0].type
            )
            screenshot_page(work, "english-annotation")
        else:
            work.click("#tag-error-free")
        work.click("#submit-button")
        work.wait_for_load_state()
    work.goto("/annotate/next/")
    work.wait_for_selector("text=Nothing left to annotate")

    # --- the reviewer accepts the correction and confirms the error-free sentence.
    review = _page_for(browser, live_server, reviewer.username, contexts)
    for _ in SOURCES:
        review.goto("/review/")
        review.click("[data-testid=start-review]")
        review.wait_for_selector("[data-testid=source], [data-testid=candidate]")
        if review.locator("[data-testid=candidate]").count():
            review.locator("[data-testid=candidate] [data-testid=correct]").first.check()
            review.check("input[name=judgement][value=annotatable]")
        else:
            review.check("input[name=judgement][value=error_free]")
            assert "没有错误" not in review.inner_text("body")
        review.click("#review-submit")
        review.wait_for_selector("text=Review saved")
    assert GoldenReference.objects.filter(
        sentence__dataset=dataset, is_current=True, text=FIX
    ).exists()

    # --- the admin releases, exports ERRANT M2 and scores a system.
    exported = release_and_download_m2(page, "en-loop", tmp_path / "en-loop.m2")
    assert (
        "S He go to school yesterday .\nA 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0"
        in exported
    )
    assert "S She like apples .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0" in exported

    page.goto("/scoring/")
    page.click("text=en-loop@v1")
    page.wait_for_selector("[data-testid=upload-card]")
    output = tmp_path / "system.txt"
    output.write_text(OUTPUT, encoding="utf-8")
    page.fill("#id_name", "en-sys")
    page.set_input_files("#id_file", str(output))
    page.click("[data-testid=upload-card] button[type=submit]")
    page.wait_for_selector("[data-testid=headline]")
    assert page.inner_text("[data-testid=f05]").strip() == "0.5556"  # ERRANT: TP 1, FP 1, FN 0
    page.goto(f"/scoring/releases/{dataset.versions.get().pk}/")
    page.wait_for_selector("[data-testid=leaderboard-row]")
    assert "errant" in page.inner_text("[data-testid=signature]")
    for column in ("m2", "sentm2", "gleu", "cleme"):
        assert (
            page.locator(f"[data-testid=leaderboard-row] [data-testid={column}]")
            .inner_text()
            .strip()
        )
    # The annotators' boxes, scored with ERRANT against the release: the correction equals the
    # reference (1 TP) and ERROR FREE matches the error-free sentence (no edit either side).
    human = page.locator("[data-testid=human-row]")
    human.wait_for()
    assert "0.0000" not in human.inner_text() and "1.0000" in human.inner_text()
    screenshot("english-leaderboard")
    page.goto(f"/scoring/datasets/{dataset.pk}/annotators/")
    assert "ERRANT F0.5" in page.inner_text("[data-testid=box-metric]")
    row = page.locator("[data-testid=annotator-row]")
    assert annotator.username in row.inner_text() and "1.0000" in row.inner_text()
    assert "没有错误" not in page.inner_text("body")

    # The parallel export writes the error-free sentence's reference as the sentence itself.
    page.goto("/datasets/en-loop/")
    page.select_option("#id_release", label="en-loop@v1")
    page.select_option("#id_eformat", "parallel")
    page.click("[data-testid=export-form] button[type=submit]")
    page.wait_for_selector("[data-testid=download]")
    with page.expect_download() as download_info:
        page.click("[data-testid=download]")
    archive_path = tmp_path / "en-loop.zip"
    download_info.value.save_as(archive_path)
    with zipfile.ZipFile(archive_path) as archive:
        sources = archive.read("source.txt").decode("utf-8").splitlines()
        refs = archive.read("ref1.txt").decode("utf-8").splitlines()
    assert dict(zip(sources, refs, strict=True)) == {SOURCES[0]: FIX, SOURCES[1]: SOURCES[1]}
