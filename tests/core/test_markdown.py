"""Guidelines in Markdown: a list written straight after a paragraph line (as the edit-judging
guideline and most people write it) renders as a list, not as literal asterisks."""

from __future__ import annotations

import pytest

from annotate.guideline_seed import default_guideline
from core.markdown import render_markdown


@pytest.mark.parametrize("language", ["zh", "en"])
def test_edit_judging_guideline_renders_its_bullets_as_a_list(language: str) -> None:
    _, body = default_guideline("edits", language)
    html = render_markdown(body)
    assert "* fixes" not in html and "\n* " not in html
    assert "<li>keeps the writer's meaning, and</li>" in html
    assert html.count("<li>") == 3


def test_a_list_after_a_paragraph_line_and_what_stays_text() -> None:
    html = render_markdown("Check that it\n* fixes\n* keeps\n\nline\n2. stays text\n*a* word")
    assert html.startswith("<p>Check that it</p>\n<ul>\n<li>fixes</li>\n<li>keeps</li>\n</ul>")
    assert "<p>line\n2. stays text\n<em>a</em> word</p>" in html
    fenced = render_markdown("```\ncode\n* not a list\n```")
    assert "* not a list" in fenced and "<li>" not in fenced
