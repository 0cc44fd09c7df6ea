"""One guideline per task (annotation, review, ranking, edit judging) and dataset
language, versioned: the annotation page of an English dataset shows the English guideline
(it said "fluent Chinese"), edits-mode judging says when an edit counts as correct, admins
edit each one with a version check, others cannot."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from annotate.models import Assignment, Guideline
from core.roles import Role
from judgments import services as judgment_services
from tests.annotate.workflow import make_world
from tests.factories import make_user
from tests.judgments.factories import make_campaign

pytestmark = pytest.mark.django_db


def _client(user):  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _annotation_page(world, language: str) -> str:  # type: ignore[no-untyped-def]
    world.dataset.language = language
    world.dataset.save(update_fields=["language"])
    annotator = world.annotators[0]
    assignment = Assignment.objects.filter(annotator=annotator).first()
    return _client(annotator).get(f"/annotate/a/{assignment.pk}/").content.decode()


def test_annotation_page_follows_the_datasets_language() -> None:
    world = make_world()
    chinese = _annotation_page(world, "zh")
    assert "通顺的中文" in chinese and "fluent English" not in chinese
    english = _annotation_page(world, "en")
    assert "fluent English" in english and "通顺的中文" not in english


def test_edits_mode_judging_says_when_an_edit_is_correct() -> None:
    judge = make_user(Role.ANNOTATOR)
    edits = make_campaign(judges=[judge], mode="edits", k=1, name="e")
    ranking = make_campaign(judges=[judge], k=1, name="r")
    pages = {}
    for campaign in (edits, ranking):
        assignment = judgment_services.next_assignment(campaign=campaign, judge=judge)
        pages[campaign.name] = (
            _client(judge).get(f"/judgments/item/{assignment.pk}/").content.decode()
        )
    assert "An edit counts as <strong>correct</strong>" in pages["e"]
    assert "An edit counts as" not in pages["r"]
    assert "Rank the corrections of the source sentence" in pages["r"]
    own = make_campaign(judges=[judge], k=1, name="own", guideline="Our **own** rules.")
    assignment = judgment_services.next_assignment(campaign=own, judge=judge)
    page = _client(judge).get(f"/judgments/item/{assignment.pk}/").content.decode()
    assert "Our <strong>own</strong> rules." in page


def test_admin_edits_one_language_and_task_with_a_version_check() -> None:
    world = make_world()
    admin = _client(world.admin)
    listing = admin.get("/guidelines/?task=annotation&language=en").content.decode()
    assert 'data-testid="guideline-edits-en"' in listing and "fluent English" in listing
    response = admin.post(
        "/guidelines/edit/",
        {
            "task": "annotation",
            "language": "en",
            "title": "English guide",
            "body": "Correct to **standard English**.",
            "version": 0,
        },
        follow=True,
    )
    assert (
        "Guideline saved: English guide (annotation, en), version 1." in response.content.decode()
    )
    assert "standard English" in _annotation_page(world, "en")
    assert "通顺的中文" in _annotation_page(world, "zh")  # the other language untouched
    stale = admin.put(
        "/api/guideline/",
        json.dumps(
            {"task": "annotation", "language": "en", "title": "T", "body": "B", "version": 0}
        ),
        content_type="application/json",
    )
    assert stale.status_code == 409
    fresh = admin.put(
        "/api/guideline/",
        json.dumps(
            {"task": "annotation", "language": "en", "title": "T", "body": "B", "version": 1}
        ),
        content_type="application/json",
    )
    assert fresh.status_code == 200 and fresh.json()["version"] == 2
    assert Guideline.objects.get(task="annotation", language="en").body == "B"
    got = admin.get("/api/guideline/?task=edits&language=en").json()
    assert got["version"] == 0 and "counts as **correct**" in got["body"]


def test_only_admins_edit_and_unknown_tasks_are_not_found() -> None:
    world = make_world()
    annotator = _client(world.annotators[0])
    assert annotator.get("/guidelines/edit/?task=review&language=en").status_code == 403
    put = annotator.put(
        "/api/guideline/",
        json.dumps({"task": "review", "language": "en", "title": "T", "body": "B", "version": 0}),
        content_type="application/json",
    )
    assert put.status_code == 403
    assert not Guideline.objects.filter(task="review").exists()
    assert annotator.get("/guidelines/?task=nonsense").status_code == 404
    assert annotator.get("/api/guideline/?task=annotation&language=xx").status_code == 404
    reviewer = _client(world.reviewer)
    assert reviewer.get("/guidelines/?task=review&language=zh").status_code == 200


def test_an_archived_guideline_is_shown_to_no_one_and_its_slug_is_not_taken() -> None:
    # Migration 0007 archives extra guidelines of one (task, language); such a row must not
    # be served, and saving the live guideline must not collide with its slug.
    world = make_world()
    Guideline.objects.create(
        slug="review-en", task="review", language="en", title="Old", body="# old", archived=True
    )
    admin = _client(world.admin)
    page = admin.get("/guidelines/?task=review&language=en").content.decode()
    assert "# old" not in page and "<h1>old</h1>" not in page
    response = admin.post(
        "/guidelines/edit/",
        {"title": "Review", "body": "# new", "version": 0, "task": "review", "language": "en"},
    )
    assert response.status_code == 302, response.content.decode()
    live = Guideline.objects.get(task="review", language="en", archived=False)
    assert (live.slug, live.body) == ("review-en-2", "# new")
    assert Guideline.objects.get(slug="review-en").body == "# old"


def test_a_title_too_long_is_refused_not_cut() -> None:
    world = make_world()
    title = "标题" * 101  # 202 characters
    response = _client(world.admin).put(
        "/api/guideline/",
        json.dumps({"title": title, "body": "B", "version": 1}),
        content_type="application/json",
    )
    assert response.status_code == 400 and response.json()["field"] == "title"
    assert "202" in response.json()["detail"]
    assert not Guideline.objects.filter(title__startswith="标题").exists()


def test_chinese_annotation_guideline_is_written_in_chinese() -> None:
    """It was the English text under a Chinese title; the same content, in Chinese."""
    from annotate.guideline_seed import default_guideline

    _, body = default_guideline("annotation", "zh")
    letters = [ch for ch in body if ch.isalpha()]
    chinese = [ch for ch in letters if "\u4e00" <= ch <= "\u9fff"]
    assert len(chinese) > 0.8 * len(letters), "mostly Chinese (the buttons keep their labels)"
    for heading in (
        "## 如何修改",
        "## 错误类型（5 个大类，14 个小类）",
        "### 1. 标点",
        "### 5. 语用",
    ):
        assert heading in body
    # Every rule of the English text is there: 6 on correcting, 14 error types.
    assert body.count("\n* ") == 6 + 14
    for key in ("`Alt+N`", "`Alt+E`", "`Alt+U`", "`Ctrl+Enter`", "在 / 再", "己 / 已"):
        assert key in body
    assert "How to correct" not in body


@pytest.mark.django_db(transaction=True)
def test_migration_gives_the_seeded_guideline_its_chinese_text_and_keeps_an_edited_one() -> None:
    from importlib import import_module

    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from annotate.guideline_seed import GUIDELINE_BODY

    english = import_module("annotate.migrations.0008_chinese_annotation_guideline").ENGLISH_SEED
    before = [("annotate", "0007_guideline_archived")]
    after = [("annotate", "0008_chinese_annotation_guideline")]

    def migrate(targets):  # type: ignore[no-untyped-def]
        executor = MigrationExecutor(connection)
        executor.migrate(targets)
        executor.loader.build_graph()
        return executor.loader.project_state(targets).apps

    latest = list(MigrationExecutor(connection).loader.graph.leaf_nodes())
    try:
        old = migrate(before).get_model("annotate", "Guideline")
        old.objects.update_or_create(
            slug="main",
            defaults={
                "task": "annotation",
                "language": "zh",
                "title": "T",
                "body": english,
                "version": 1,
            },
        )
        new = migrate(after).get_model("annotate", "Guideline")
        seeded = new.objects.get(slug="main")
        assert (seeded.body, seeded.version) == (GUIDELINE_BODY, 2)
        # An admin's own text is never replaced.
        old = migrate(before).get_model("annotate", "Guideline")
        old.objects.filter(slug="main").update(body="我们自己的规则。", version=5)
        new = migrate(after).get_model("annotate", "Guideline")
        assert new.objects.get(slug="main").body == "我们自己的规则。"
    finally:
        migrate(latest)
