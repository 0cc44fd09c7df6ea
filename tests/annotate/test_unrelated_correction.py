"""A correction sharing nothing with the source (a sentence typed into the
wrong item) was accepted as "(1 edit)" with no warning. It is saved with a note (and the page
warns while typing: the browser test of the annotation loop); a real correction is not."""

from __future__ import annotations

import pytest

from annotate.services import clean_corrections, shared_with_source

SOURCE = "我昨天去了图书馆借书了三本。"


def test_shared_share_in_characters_and_words() -> None:
    assert shared_with_source(SOURCE, "我昨天去图书馆借了三本书。") == pytest.approx(13 / 14)
    assert shared_with_source(SOURCE, "他对中国历史很感兴趣。") == pytest.approx(1 / 14)  # 。
    english = "The issue on right to know is debated ."
    assert shared_with_source(english, "The issue of the right to know is debated .") == (
        pytest.approx(8 / 10)
    )
    assert shared_with_source(english, "My aunt lives in Paris .") == pytest.approx(1 / 9)
    assert shared_with_source("短句", "别的") is None  # too short to tell


def test_unrelated_correction_is_kept_with_a_note() -> None:
    fine = clean_corrections(source=SOURCE, texts=["我昨天去图书馆借了三本书。"], tag="")
    assert fine.notes == []
    odd = clean_corrections(source=SOURCE, texts=["他对中国历史很感兴趣。"], tag="")
    assert odd.texts == ["他对中国历史很感兴趣。"]
    assert odd.notes == [
        "correction 1 shares only 7% with the source: check that it belongs to this sentence"
        " (a complaint or the reviewer can fix it)"
    ]
