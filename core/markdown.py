"""Markdown written by admins (guidelines), rendered for everyone: sanitised HTML."""

from __future__ import annotations


def render_markdown(text: str) -> str:
    """Markdown to HTML, sanitised: admins write it, everyone reads it."""
    import markdown
    import nh3

    html = markdown.markdown(text, extensions=["extra", "sane_lists"])
    return nh3.clean(html)
