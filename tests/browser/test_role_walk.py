"""A walk by every role, through the pages only, each user in a browser context of
their own: the admin creates the accounts, imports ten MuCGEC-dev sentences, sets the pools
and k = 2 and assigns; three annotators correct by keyboard; the reviewer reviews by
keyboard; the admin releases, exports M2, uploads three system outputs, scores them and opens
the leaderboard; a judge ranks the outputs in a campaign; the admin opens the human ranking
and runs the meta-evaluation page on it.

Every step checks what the page shows, every page is watched for JavaScript errors and
Content-Security-Policy violations, and the main pages are shot at 1024 x 640 and 1400 x 900
with no horizontal overflow (artifacts/screenshots/walk-*.png).

On the embedded default (`make test`) the jobs run in-process; with DATABASE_URL
(PostgreSQL) and REDIS_URL set, as .ci/run's stage 4 sets them, every job (import, export,
scoring, meta-evaluation) goes through Redis to a real Celery worker process."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gecscore.m2 import read_m2

from annotate.models import Assignment
from core.models import User
from core.roles import Role
from datasets.models import Dataset, GoldenReference
from gecscore import extract_edits
from judgments.models import Campaign, Judgment
from scoring.models import MetaEvaluation, ScoreStatus
from tests.browser.conftest import ARTIFACTS, created_passwords, login, release_and_download_m2
from tests.browser.test_nav_and_edits import ConsoleWatch
from tests.conftest import services_configured
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCES = 10
ANNOTATORS = ("walk-ann1", "walk-ann2", "walk-ann3")
SIZES = ((1024, 640), (1400, 900))
DEFAULT_SIZE = {"width": 1280, "height": 900}


@pytest.fixture
def tasks(request: pytest.FixtureRequest, settings: Any, tmp_path: Path) -> None:
    """A real Celery worker (through Redis) where the services are configured; in-process
    tasks on the embedded default, with uploads and exports in the test's own folder (the
    worker process writes exports under the MEDIA_ROOT it was started with, which the web
    side must read: there the setting is left as it is)."""
    if services_configured():
        request.getfixturevalue("celery_worker")
    else:
        settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def walk(browser: Any, live_server: Any) -> Iterator[dict[str, Any]]:
    """Opens a logged-in page per user (its own context); every page is watched."""
    contexts: list[Any] = []
    watches: dict[str, ConsoleWatch] = {}

    def open_as(username: str, password: str = PASSWORD) -> Any:
        context = browser.new_context(base_url=live_server.url, viewport=DEFAULT_SIZE)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30000)
        watches[username] = ConsoleWatch(page)
        login(page, username, password)
        return page

    yield {"open": open_as, "watches": watches}
    for context in contexts:
        context.close()


def _mucgec(shared_data: Path) -> list[tuple[str, list[str]]]:
    """The first ten MuCGEC-dev sentences with their references (id, source, refs...)."""
    rows = (shared_data / "mucgec-dev" / "MuCGEC_dev.txt").read_text(encoding="utf-8")
    parsed = [line.split("\t") for line in rows.splitlines()[:SENTENCES]]
    return [(fields[1], fields[2:]) for fields in parsed]


def _layout(page: Any, name: str) -> None:
    """At 1024 x 640 and 1400 x 900: no horizontal overflow; a screenshot of each."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, (name, width, overflow)
        page.screenshot(path=str(ARTIFACTS / f"walk-{name}-{width}x{height}.png"))
    page.set_viewport_size(DEFAULT_SIZE)


def _admin_sets_up(admin: Any, data: list[tuple[str, list[str]]], tmp_path: Path) -> dict:
    """Accounts, the import, pools, k = 2 and the assignment, on the admin's pages."""
    admin.goto("/users/")
    admin.fill("#id_accounts", "\n".join([*ANNOTATORS, "walk-judge"]))
    admin.check("[data-testid=new-role-annotator]")
    admin.click("[data-testid=create-accounts] button[type=submit]")
    admin.wait_for_selector("[data-testid=created-accounts]")
    passwords = created_passwords(admin)
    admin.fill("#id_accounts", "walk-rev")
    admin.check("[data-testid=new-role-reviewer]")
    admin.click("[data-testid=create-accounts] button[type=submit]")
    admin.wait_for_selector("[data-testid=created-accounts]")
    passwords.update(created_passwords(admin))
    assert sorted(passwords) == sorted([*ANNOTATORS, "walk-judge", "walk-rev"])
    _layout(admin, "users")

    source_file = tmp_path / "mucgec10.txt"
    source_file.write_text("".join(source + "\n" for source, _ in data), encoding="utf-8")
    admin.goto("/datasets/import/")
    admin.fill("#id_name", "walk")
    admin.select_option("#id_format", "text")
    admin.set_input_files("#id_files", str(source_file))
    admin.click("[data-testid=import-form] button[type=submit]")
    admin.wait_for_selector("[data-testid=dataset-link]")
    assert list(
        Dataset.objects.get(name="walk")
        .sentences.order_by("position")
        .values_list("text", flat=True)
    ) == [source for source, _ in data]

    admin.goto("/annotate/admin/projects/walk/")
    admin.fill("#id_k", "2")
    admin.click("[data-testid=save-settings]")
    admin.wait_for_selector("text=k = 2")
    admin.select_option("#id_pick_annotators", label=list(ANNOTATORS))
    admin.click("[data-testid=pool-pick-annotators] button[type=submit]")
    admin.wait_for_selector(f"text=Added to the annotators pool: {', '.join(ANNOTATORS)}.")
    admin.fill("#id_names_reviewers", "walk-rev")
    admin.click("[data-testid=pool-pick-reviewers] button[type=submit]")
    admin.wait_for_selector("text=Added to the reviewers pool: walk-rev.")
    admin.click("[data-testid=assign]")
    admin.wait_for_selector(f"text=Assigned {SENTENCES} sentence(s) of walk: {2 * SENTENCES}")
    shown = sum(
        int(row.inner_text())
        for row in admin.locator("[data-testid=member-row] [data-testid=member-open]").all()
    )
    assert shown == 2 * SENTENCES
    _layout(admin, "project")
    return passwords


def _annotator_corrects(page: Any, number: int, refs: dict[str, list[str]]) -> int:
    """Annotator `number` types reference `number % 2` of each sentence and submits with
    Ctrl+Enter, keyboard only (the box has the focus when the page opens)."""
    page.goto("/annotate/next/")
    done = 0
    while page.locator("[data-testid=source]").count():
        source = page.inner_text("[data-testid=source]")
        correction = refs[source][min(number % 2, len(refs[source]) - 1)]
        assert page.evaluate(
            "document.activeElement === document.querySelector('[data-testid=box] textarea')"
        )
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(correction)
        edits = len(extract_edits(source, correction))
        page.locator(f"[data-testid=box] [data-testid=diff][data-edits='{edits}']").wait_for()
        if done == 0 and number == 0:
            _layout(page, "annotate")
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
        done += 1
        assert done <= SENTENCES
    page.wait_for_selector("text=Nothing left to annotate")
    return done


def _reviewer_reviews(page: Any) -> int:
    """Every correction marked correct with C, saved with Ctrl+Enter, sentence after
    sentence, until the queue is empty."""
    page.goto("/review/")
    page.click("[data-testid=start-review]")
    reviewed = 0
    while page.locator("[data-testid=shortcut-legend]").count():
        page.wait_for_selector("[data-testid=candidate]")
        if reviewed == 0:
            _layout(page, "review")
        for _ in range(page.locator("[data-testid=candidate].correction").count()):
            page.keyboard.press("c")
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
        reviewed += 1
        assert reviewed <= SENTENCES
    return reviewed


def _release_and_export(admin: Any, tmp_path: Path, golden: dict[str, list[str]]) -> None:
    """Release v1 and export its M2: every block's annotators are the golden references,
    with exactly the edits the extractor finds."""
    exported = tmp_path / "walk.m2"
    release_and_download_m2(admin, "walk", exported)
    blocks = read_m2(exported)
    assert ["".join(block.source_tokens) for block in blocks] == list(golden)
    for block in blocks:
        source = "".join(block.source_tokens)
        assert [
            [(e.start, e.end, e.correction.replace(" ", "")) for e in target.edits]
            for target in block.targets
        ] == [
            [(e.start, e.end, e.target_text or "-NONE-") for e in extract_edits(source, ref)]
            for ref in golden[source]
        ], source


def _upload_systems(admin: Any, tmp_path: Path, outputs: dict[str, list[str]]) -> dict[str, str]:
    """Each output uploaded and scored on the release's page; the F0.5 each system page shows."""
    shown: dict[str, str] = {}
    for name, lines in outputs.items():
        admin.goto("/scoring/")
        admin.click("text=walk@v1")
        admin.wait_for_selector("[data-testid=upload-card]")
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        admin.fill("#id_name", name)
        admin.set_input_files("#id_file", str(path))
        admin.click("[data-testid=upload-card] button[type=submit]")
        admin.wait_for_selector("[data-testid=headline]")
        shown[name] = admin.inner_text("[data-testid=f05]").strip()
        if name == "perfect":
            _layout(admin, "system")
    return shown


def _judge_ranks(page: Any, golden: dict[str, list[str]], sources: set[str]) -> int:
    """Better ranks for an output equal to a golden reference, worse for the unchanged
    source; one key per output, Enter to submit (keyboard only)."""
    page.goto("/judgments/")
    page.click("[data-testid=start-judging]")
    judged = 0
    while page.locator("[data-testid=judge-form]").count():
        source = page.inner_text("[data-testid=source]").strip()
        outputs = page.locator("[data-testid=output]")
        texts = [
            "".join(output.locator(".diff > .edit-eq, .diff .edit-ins").all_inner_texts())
            for output in outputs.all()
        ]
        wanted = [1 if t in golden[source] else 3 if t in sources else 2 for t in texts]
        order = sorted(set(wanted))  # dense ranks: a key above the outputs' count is ignored
        for preference in wanted:
            page.keyboard.press(str(order.index(preference) + 1))
        if judged == 0:
            _layout(page, "judge")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        judged += 1
        assert judged <= SENTENCES + 2
    return judged


def _campaign(admin: Any, judge_pk: int) -> Campaign:
    admin.goto("/judgments/")
    admin.click("[data-testid=new-campaign]")
    admin.select_option("[data-testid=pick-release]", label="walk@v1")
    admin.click("[data-testid=choose-release]")
    form = admin.locator("[data-testid=campaign-form]")
    form.locator("#id_name").fill("walk-ranking")
    form.locator("#id_mode").select_option("ranking")
    for name in ("perfect", "half", "source"):
        form.locator(f"input[name=systems][value={name}]").check()
    form.locator(f"input[name=judges][value='{judge_pk}']").check()
    form.locator("#id_judges_per_item").fill("1")
    form.locator("#id_outputs_per_item").fill("3")
    form.locator("#id_consistency_share").fill("0")
    admin.click("[data-testid=create-campaign]")
    admin.wait_for_selector("[data-testid=campaign-progress]")
    return Campaign.objects.get(name="walk-ranking")


def test_every_role_walks_the_whole_flow(  # type: ignore[no-untyped-def]
    walk, tasks, shared_data: Path, tmp_path: Path, settings
) -> None:
    started = time.perf_counter()
    phases: list[tuple[str, float]] = []

    def phase(name: str) -> None:
        phases.append((name, round(time.perf_counter() - started, 1)))

    data = _mucgec(shared_data)
    refs = {source: references for source, references in data}
    make_user(Role.ADMIN, username="walk-admin")
    admin = walk["open"]("walk-admin")

    # --- admin: accounts, import, pools, k = 2, assign.
    passwords = _admin_sets_up(admin, data, tmp_path)
    phase("admin set-up")

    # --- three annotators, keyboard only; each sentence gets two corrections.
    counts = []
    for number, name in enumerate(ANNOTATORS):
        page = walk["open"](name, passwords[name])
        counts.append(_annotator_corrects(page, number, refs))
    assert sum(counts) == 2 * SENTENCES and min(counts) >= 2 * SENTENCES // 3
    phase("annotators")
    assert Assignment.objects.filter(status="submitted").count() == 2 * SENTENCES

    # --- the reviewer accepts every correction by keyboard.
    reviewer = walk["open"]("walk-rev", passwords["walk-rev"])
    assert _reviewer_reviews(reviewer) == SENTENCES
    phase("reviewer")
    assert reviewer.url.endswith("/review/")
    golden = {
        source: list(
            GoldenReference.objects.filter(sentence__text=source, is_current=True)
            .order_by("position")
            .values_list("text", flat=True)
        )
        for source, _ in data
    }
    assert all(len(texts) in (1, 2) for texts in golden.values())
    assert all(set(texts) <= set(refs[source][:2]) for source, texts in golden.items()), [
        (texts, refs[source][:2]) for source, texts in golden.items()
    ]

    # --- admin: release, M2 export, three systems scored, leaderboard.
    _release_and_export(admin, tmp_path, golden)
    sources = [source for source, _ in data]
    perfect = [golden[s][0] for s in sources]
    outputs = {"perfect": perfect, "half": perfect[:5] + sources[5:], "source": sources}
    shown = _upload_systems(admin, tmp_path, outputs)
    assert shown["perfect"] == "1.0000" and shown["source"] == "0.0000"
    assert 0 < float(shown["half"]) < 1
    admin.click("text=walk@v1")
    admin.wait_for_selector("[data-testid=leaderboard-row]")
    names = [
        row.locator("td").nth(1).inner_text().strip()
        for row in admin.locator("[data-testid=leaderboard-row]").all()
    ]
    assert names[:3] == ["perfect", "half", "source"]
    _layout(admin, "leaderboard")
    phase("release, export, scoring, leaderboard")

    # --- a judge ranks the three outputs of every sentence in a campaign.
    campaign = _campaign(admin, User.objects.get(username="walk-judge").pk)
    judge = walk["open"]("walk-judge", passwords["walk-judge"])
    assert _judge_ranks(judge, golden, set(sources)) == SENTENCES
    assert Judgment.objects.filter(assignment__campaign=campaign).count() == SENTENCES
    phase("campaign and judge")

    # --- admin: the human ranking, then the meta-evaluation page on it.
    admin.goto(f"/judgments/{campaign.pk}/results/")
    ranking = admin.locator("[data-testid=human-ranking] tbody tr")
    assert [ranking.nth(i).get_attribute("data-system") for i in range(3)] == [
        "perfect",
        "half",
        "source",
    ]
    _layout(admin, "judgment-results")
    admin.click("[data-testid=meta-link]")
    admin.wait_for_selector("[data-testid=meta-run-card]")
    assert admin.locator("select[name=human] option:checked").get_attribute("value") == (
        f"campaign:{campaign.pk}"
    )
    admin.click("[data-meta-select=none]")
    admin.check("[data-testid=metric-f05]")
    admin.fill("#id_bootstrap", "50")
    admin.click("[data-testid=meta-run]")
    admin.wait_for_selector("[data-testid=meta-table]", timeout=60000)
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    pearson = evaluation.report["metrics"]["f05"]["pearson"]
    row = admin.locator("[data-testid=meta-row][data-metric=f05]")
    assert row.locator("[data-testid=pearson]").inner_text().strip() == f"{pearson:.3f}"
    _layout(admin, "meta-evaluation")
    phase("results and meta-evaluation")
    print("walk phases (s since start):", phases, "load", os.getloadavg())  # pytest -s

    problems = {user: watch.violations() for user, watch in walk["watches"].items()}
    assert not any(problems.values()), problems
