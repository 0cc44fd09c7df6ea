"""Markdown written by admins (guidelines), rendered for everyone: sanitised HTML."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=64)
def render_markdown(text: str) -> str:
    """Markdown to HTML, sanitised: admins write it, everyone reads it.

    Cached per text: the annotate page shows the same guideline on every request, and
    rendering plus sanitising it took ~12 ms of a ~45 ms page (profiled under load). The
    result depends on the text alone, so an edited guideline is simply a new key."""
    import markdown  # lazy: only pages that show a guideline pay for these imports
    import nh3

    html = markdown.markdown(text, extensions=["extra", "sane_lists"])
    return nh3.clean(html)
