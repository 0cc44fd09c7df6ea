"""In Chromium: the navigation bar for each role, edits readable without colour,
no silent cut of a long correction, a valid dataset-name pattern, API docs with the network
cut, and no Content-Security-Policy violation on any page visited."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

from annotate.models import Assignment
from core.roles import Role
from datasets.textrules import max_sentence_chars
from review.workflow import assign_dataset
from tests.browser.conftest import login
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "我昨天去了图书馆借书了三本。"
FIX = "我昨天去图书馆借了三本书。"


class ConsoleWatch:
    """Collects console errors and CSP violations ("Refused to ...") of a page."""

    def __init__(self, page: Any) -> None:
        self.messages: list[str] = []
        page.on("console", lambda msg: self.messages.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda error: self.messages.append(f"pageerror: {error}"))

    def violations(self) -> list[str]:
        return [
            m
            for m in self.messages
            if (
                "Refused to" in m
                or "Content Security Policy" in m
                or "pageerror" in m
                or "not a valid regular expression" in m
            )
            # ReDoc's bundle hard-codes its vendor logo from cdn.redoc.ly: the policy blocks
            # it (nothing leaves the machine) and ReDoc drops the image on error. Any other
            # violation, of a script or style above all, fails the test.
            and "cdn.redoc.ly/redoc/logo-mini.svg" not in m
        ]


def _nav_labels(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("[data-testid=main-nav] a").all_inner_texts()]


def test_annotator_sees_the_nav_and_edits_marked_without_colour(page, screenshot) -> None:  # type: ignore[no-untyped-def]
    annotator = make_user(Role.ANNOTATOR, username="nav-annotator")
    others = [make_user(Role.ANNOTATOR) for _ in range(2)]
    admin = make_user(Role.ADMIN, username="nav-admin")
    reviewer = make_user(Role.REVIEWER)
    dataset = make_dataset(name="navtest", sentences=[SOURCE, "他对中国的历史很感兴趣。"])
    dataset.annotators.set([annotator, *others])
    dataset.reviewers.set([reviewer])
    assign_dataset(dataset=dataset, seed=1, by=admin)
    watch = ConsoleWatch(page)
    login(page, "nav-annotator", PASSWORD)
    labels = _nav_labels(page)
    for expected in ("My tasks", "Next sentence", "Study", "Complaints", "Guidelines", "Judgments"):
        assert expected in labels, labels
    assert "Datasets" not in labels and "Scoring" not in labels

    assignment = Assignment.objects.filter(annotator=annotator, sentence__text=SOURCE).first()
    assert assignment is not None
    page.goto(f"/annotate/a/{assignment.pk}/")
    # The nav bar is on the annotation page too, with the current section marked.
    assert "Guidelines" in _nav_labels(page)
    # Opening the page says nothing about "Unchanged" before the annotator typed.
    assert "Unchanged" not in page.locator("[data-testid=client-warnings]").inner_text()
    box = page.locator("[data-testid=box] textarea").first
    box.fill(FIX)
    diff = page.locator("[data-testid=box] [data-testid=diff]").first
    diff.locator(".edit-del").first.wait_for()
    deletion = diff.locator(".edit-del").first
    insertion = diff.locator(".edit-ins").first
    # No strike-through (a line through 了 reads as 子): a dashed underline, the insertion's solid.
    assert deletion.evaluate("e => getComputedStyle(e).textDecorationLine") == "underline"
    assert deletion.evaluate("e => getComputedStyle(e).textDecorationStyle") == "dashed"
    assert insertion.evaluate("e => getComputedStyle(e).textDecorationStyle") == "solid"
    assert "underline" in insertion.evaluate("e => getComputedStyle(e).textDecorationLine")
    # The bracket markers say deleted / inserted without colour.
    assert "[" in deletion.evaluate("e => getComputedStyle(e, '::before').content")
    assert "+" in insertion.evaluate("e => getComputedStyle(e, '::before').content")
    assert page.locator("[data-testid=edit-legend]").first.is_visible()

    # A correction above the maximum is kept whole and reported, never cut.
    too_long = "长" * (max_sentence_chars() + 10)
    box.fill(too_long)
    assert box.evaluate("e => e.value.length") == len(too_long)
    warnings = page.locator("[data-testid=client-warnings]")
    assert f"above the maximum of {max_sentence_chars()}" in warnings.inner_text()
    box.fill("我昨天\u200b去图书馆借了三本书。")
    assert "U+200B" in warnings.inner_text()
    screenshot("nav-annotator-edits")
    page.goto("/annotate/")
    assert "navtest" in page.locator("body").inner_text()  # sentences name their dataset
    assert not watch.violations(), watch.violations()


def test_admin_nav_import_pattern_and_offline_api_docs(page, live_server, screenshot) -> None:  # type: ignore[no-untyped-def]
    make_user(Role.ADMIN, username="nav-admin2")
    watch = ConsoleWatch(page)
    # Cut the network: only the test server answers.
    own_host = urlparse(live_server.url).netloc
    blocked: list[str] = []

    def only_local(route: Any) -> None:
        if urlparse(route.request.url).netloc == own_host:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    login(page, "nav-admin2", PASSWORD)
    labels = _nav_labels(page)
    for expected in (
        "Datasets",
        "Projects",
        "Users",
        "Progress",
        "Scoring",
        "Judgments",
        "API docs",
    ):
        assert expected in labels, labels

    for path in ("/datasets/", "/scoring/", "/annotate/admin/", "/users/", "/scoring/pay/"):
        page.goto(path)
        assert page.locator("[data-testid=main-nav] a").count() >= 5, path

    page.goto("/datasets/import/")
    name = page.locator("#id_name")
    name.fill("bad name!")
    assert name.evaluate("e => e.checkValidity()") is False
    name.fill("good-name_1")
    assert name.evaluate("e => e.checkValidity()") is True

    page.goto("/api/docs/")
    page.get_by_text("GEC platform API").first.wait_for(timeout=20000)
    screenshot("api-docs-offline", full_page=False)
    assert not blocked, blocked
    assert not watch.violations(), watch.violations()
