"""Closest-gold references end to end (docs/closest-gold.md), on PostgreSQL + Redis with a
real Celery worker: a release with three scored systems; the admin creates a closest-gold
task on its page; the worker asks a local OpenAI-compatible server (a real socket on
127.0.0.1, started here) for a proposal per distinct output; two reviewers verify every
output in the browser by keyboard only (A accept, E edit + Ctrl+Enter, O output correct,
R reject and write + Ctrl+Enter) until nothing is left; the task's progress, the stored
provenance and the selector system scoring reads (`scoring.selectors.closest_golds`) agree.

Then the admin scores every system under the three reference sets and gamma's system page
shows golden, closest-gold and pooled scores with its ranks and rank changes.

Screenshots: artifacts/screenshots/closest-gold-verify.png, closest-gold-task.png,
closest-gold-reference-sets.png."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset, DatasetVersion
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import ClosestGoldTask, ClosestGoldVerification, ScoreStatus
from scoring.selectors import closest_gold_coverage, closest_golds
from scoring.services.closest_gold_proposals import PROMPTS
from tests.browser.conftest import ARTIFACTS, login
from tests.browser.test_nav_and_edits import ConsoleWatch
from tests.core.faultkit import Worker, wait_for, worker_on_own_queue
from tests.factories import PASSWORD, make_user
from tests.parallel import worker_log
from tests.scoring_app.llm_servers import CorrectionServer

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

SOURCES = ["我明天去学校了。", "他们在公园里玩的很开心。", "这个问题很难回答。"]
REFS = ["我明天去学校。", "他们在公园里玩得很开心。", "这个问题很难回答。"]
SYSTEMS = {
    "alpha": ["我明天去学校。", "他们在公园里玩的很开心。", "这个问题很难回答。"],
    "beta": ["我明天去学校。", "他们在公园里玩得很开心。", "这个问题很难回答。"],
    "gamma": ["我明天要去学校了。", "他们在公园里玩得很开心。", "这问题很难回答。"],
}
MODEL = "tiny-corrector"


def correct(output: str) -> str:
    """The server's 'model': a fixed minimal correction of the output it is given."""
    return output.replace("玩的", "玩得").replace("了。", "。").replace("这问题", "这个问题")


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


@pytest.fixture
def server() -> Iterator[Any]:
    with CorrectionServer(correct, output_label=PROMPTS["zh"].output_label) as running:
        yield running


@pytest.fixture
def proposal_worker(django_db_setup, django_db_blocker, tmp_path, server) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    """A real worker on a queue of its own whose LLM endpoint is the local server."""
    env = {
        "GEC_LLM_URL": server.url,
        "GEC_LLM_MODEL": MODEL,
        "GEC_LLM_TIMEOUT": "10",
        "GEC_LLM_RETRIES": "0",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    log = worker_log("closest-gold-worker")
    with worker_on_own_queue("closest-gold", log, tmp_path, env=env) as worker:
        yield worker


def _scored_release(admin: Any) -> DatasetVersion:
    """The release and its three scored systems, made in-process (as the quick start does)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        import_dataset(
            name="cg-walk",
            fmt="parallel",
            language="zh",
            user=admin,
            source_name="tiny",
            files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(REFS))],
        )
        version = release_dataset(dataset=Dataset.objects.get(name="cg-walk"), user=admin)
        for name, hyps in SYSTEMS.items():
            system = services.upload_system_output(
                version=version, name=name, data=_lines(hyps), file_name=name, user=admin
            )
            assert services.score_now(system=system, user=admin).status == ScoreStatus.DONE
    finally:
        app.conf.task_always_eager = previous
    return version


@pytest.fixture
def open_as(browser: Any, live_server: Any) -> Iterator[Any]:
    """A logged-in page per user, each in a browser context of its own (closed at the end,
    so no server thread keeps a database session open past the test)."""
    contexts: list[Any] = []

    def open_page(username: str) -> tuple[Any, ConsoleWatch]:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1280, "height": 900}
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30000)
        watch = ConsoleWatch(page)
        login(page, username, PASSWORD)
        return page, watch

    yield open_page
    for context in contexts:
        context.close()


def _verify_by_keyboard(page: Any, keys: list[tuple[str, str]]) -> None:
    """On the verification page: each step a key and, for E / R, the text typed after it."""
    for key, typed in keys:
        page.wait_for_selector("[data-testid=cg-output]")
        heading_url = page.url
        page.keyboard.press(key)
        if key in ("e", "r"):
            box = page.locator("[data-testid=cg-text]")
            assert box.evaluate("el => el === document.activeElement")
            box.fill(typed)
            page.keyboard.press("Control+Enter")
        page.wait_for_url(lambda url, before=heading_url: url != before)


def test_two_reviewers_verify_llm_proposals_by_keyboard(  # type: ignore[no-untyped-def]
    open_as, settings, server, proposal_worker
) -> None:
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, MODEL  # the web side's view
    admin = make_user(Role.ADMIN, username="cg-admin")
    first = make_user(Role.REVIEWER, username="cg-rev1")
    second = make_user(Role.REVIEWER, username="cg-rev2")
    version = _scored_release(admin)

    page, admin_watch = open_as(admin.username)
    page.goto(f"/scoring/releases/{version.pk}/")
    page.click("[data-testid=closest-gold-manage]")
    for box in page.locator("[data-testid=closest-gold-system]").all():
        box.check()
    page.fill("#id_per_item", "1")
    page.click("[data-testid=closest-gold-create-submit]")
    page.wait_for_selector("[data-testid=closest-gold-progress]")
    task = ClosestGoldTask.objects.get()
    assert task.background_job_id is not None
    job_id = task.background_job_id
    assert task.items.count() == 6  # equal outputs merged: 9 outputs, 6 distinct
    job = wait_for(
        lambda: BackgroundJob.objects.filter(
            pk=job_id, status__in=[JobStatus.DONE, JobStatus.FAILED]
        ).first(),
        timeout=90,
        what="the proposal job on the worker",
    )
    assert job.status == JobStatus.DONE, job.message
    assert len(server.requests) == 6  # one request per distinct output, none twice
    assert all(item.proposal == correct(item.output) for item in task.items.all())

    # Reviewer 1: accept, output correct, edit the proposal.
    rev1, watch1 = open_as(first.username)
    rev1.goto(f"/scoring/releases/{version.pk}/")
    rev1.click("[data-testid=closest-gold-task-link]")
    rev1.click("[data-testid=closest-gold-start]")
    rev1.wait_for_selector("[data-testid=cg-shortcuts]")
    assert rev1.locator("[data-testid=cg-diff-output]").count() == 1
    rev1.screenshot(path=str(_shot("closest-gold-verify")), full_page=True)
    _verify_by_keyboard(rev1, [("a", ""), ("o", ""), ("e", "他们在公园里玩得非常开心。")])

    # Reviewer 2: reject and write, then accept the rest until nothing is left.
    rev2, watch2 = open_as(second.username)
    rev2.goto(f"/scoring/closest-gold/{task.pk}/next/")
    _verify_by_keyboard(rev2, [("r", "他们在公园里玩得十分开心。"), ("a", ""), ("a", "")])
    rev2.wait_for_selector("[data-testid=closest-gold-progress]")
    assert "Nothing left for you to verify" in rev2.content()
    assert rev2.locator("[data-testid=closest-gold-complete]").inner_text() == "6 of 6"

    verifications = ClosestGoldVerification.objects.order_by("id")
    assert [v.decision for v in verifications] == [
        "accepted",
        "output-correct",
        "edited",
        "rewritten",
        "accepted",
        "accepted",
    ]
    assert [v.verifier.username for v in verifications] == ["cg-rev1"] * 3 + ["cg-rev2"] * 3
    for system in version.system_outputs.all():
        assert closest_gold_coverage(system) == (3, 3)
        golds = closest_golds(system)
        assert all(len(texts) == 1 for texts in golds)
    # gamma shares sentence 2's output with beta and has its own items for 1 and 3.
    assert closest_golds(version.system_outputs.get(name="gamma")) == [
        ["我明天要去学校了。"],
        ["他们在公园里玩得十分开心。"],
        ["这个问题很难回答。"],
    ]
    assert closest_golds(version.system_outputs.get(name="alpha")) == [
        ["我明天去学校。"],
        ["他们在公园里玩得非常开心。"],
        ["这个问题很难回答。"],
    ]

    # Scoring under the three reference sets (docs/closest-gold.md): the admin's button on
    # the leaderboard, then gamma's system page shows golden, closest-gold and pooled side
    # by side with its rank under each and the change against golden.
    page.goto(f"/scoring/releases/{version.pk}/")
    page.click("[data-testid=score-reference-sets]")
    scoring_job = wait_for(
        lambda: BackgroundJob.objects.filter(
            kind="scoring.reference_sets", status__in=[JobStatus.DONE, JobStatus.FAILED]
        ).first(),
        timeout=90,
        what="the reference-set scoring job on the worker",
    )
    assert scoring_job.status == JobStatus.DONE, scoring_job.message
    page.reload()
    page.wait_for_selector("[data-testid=reference-set-table] [data-testid=closest-gold-f05]")
    gamma = version.system_outputs.get(name="gamma")
    page.goto(f"/scoring/systems/{gamma.pk}/")
    card = page.locator("[data-testid=reference-sets]")
    for name in ("golden", "closest-gold", "pooled"):
        assert card.locator(f"[data-testid={name}-rank]").inner_text().strip()[0].isdigit(), name
    for name in ("closest-gold", "pooled"):
        change = card.locator(f"[data-testid={name}-change]").inner_text().strip()
        assert change == "=" or change[0] in "\u2191\u2193", change
        assert f"refs:{name}" in card.locator(f"[data-testid={name}-signature]").inner_text()
    rows = card.locator("tbody tr").all_inner_texts()
    assert any(row.startswith("ChERRANT F0.5") and row.count(".") >= 3 for row in rows), rows
    page.screenshot(path=str(_shot("closest-gold-reference-sets")), full_page=True)

    page.goto(f"/scoring/closest-gold/{task.pk}/")
    shown = page.content()
    assert f"{MODEL}, cg-zh-1" in shown and "by cg-rev1" in shown and "by cg-rev2" in shown
    page.screenshot(path=str(_shot("closest-gold-task")), full_page=True)
    for watch in (admin_watch, watch1, watch2):
        assert watch.violations() == []


def _shot(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"
