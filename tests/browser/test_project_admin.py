"""A new admin runs a project from an empty database on the platform's own pages:
creates accounts, imports a dataset, sets its pools and k, assigns, and the annotators start,
without ever opening Django admin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotate.models import Assignment
from core.models import User
from core.roles import Role
from datasets.models import Dataset
from review.models import ReviewTask
from tests.browser.conftest import created_passwords, login
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCES = ["我昨天去了图书馆借书了三本。", "他对中国的历史很感兴趣。", "我们应该保护环境。"]


def test_new_admin_sets_up_a_project_and_annotators_start(
    browser: Any, live_server: Any, page: Any, screenshot: Any, tmp_path: Path, settings: Any
) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    assert not Dataset.objects.exists() and not User.objects.exists()
    admin = make_user(Role.ADMIN, username="newadmin")  # an admin, not a superuser
    visited: list[str] = []
    page.on("request", lambda request: visited.append(request.url))
    login(page, admin.username, PASSWORD)

    # 1. Accounts: three annotators (generated passwords, shown once) and a reviewer.
    page.goto("/users/")
    page.fill("#id_accounts", "ann1 ann1@example.org\nann2\nann3")
    page.check("[data-testid=new-role-annotator]")
    page.click("[data-testid=create-accounts] button[type=submit]")
    page.wait_for_selector("[data-testid=created-accounts]")
    passwords = created_passwords(page)
    assert sorted(passwords) == ["ann1", "ann2", "ann3"]
    screenshot("project-admin-accounts")
    page.fill("#id_accounts", "rev1")
    page.check("[data-testid=new-role-reviewer]")
    page.click("[data-testid=create-accounts] button[type=submit]")
    page.wait_for_selector("[data-testid=created-accounts]")
    passwords.update(created_passwords(page))
    assert page.locator("[data-testid=user-row]").count() == 5

    # 2. A dataset, imported on the page.
    data = tmp_path / "sentences.txt"
    data.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    page.goto("/datasets/import/")
    page.fill("#id_name", "firstproject")
    page.select_option("#id_format", "text")
    page.set_input_files("#id_files", str(data))
    page.click("[data-testid=import-form] button[type=submit]")
    page.wait_for_selector("[data-testid=dataset-link]")
    assert Dataset.objects.get(name="firstproject").sentences.count() == 3

    # 3. Assigning with empty pools is refused with a link to the page that fixes it.
    page.goto("/annotate/admin/")
    page.select_option("select[name=dataset]", label="firstproject (k=3)")
    page.click("form[action='/annotate/admin/assign/'] button[type=submit]")
    page.wait_for_selector("text=has 0 active user(s)")
    page.click("[data-testid=fix-pools]")
    page.wait_for_selector("[data-testid=not-ready]")
    assert page.url.endswith("/annotate/admin/projects/firstproject/")

    # 4. k = 2, a 24 h deadline, annotators picked from the list (only annotators offered),
    #    the reviewer pasted by name.
    page.fill("#id_k", "2")
    page.fill("#id_stale", "24")
    page.click("[data-testid=save-settings]")
    page.wait_for_selector("text=k = 2, assignments count as stale after 24 h")
    offered = page.locator("#id_pick_annotators option").all_inner_texts()
    assert [o.split(" ")[0] for o in offered] == ["ann1", "ann2", "ann3"]
    page.select_option("#id_pick_annotators", label=["ann1 (ann1@example.org)", "ann2", "ann3"])
    page.click("[data-testid=pool-pick-annotators] button[type=submit]")
    page.wait_for_selector("text=Added to the annotators pool: ann1, ann2, ann3.")
    page.fill("#id_names_reviewers", "rev1")
    page.click("[data-testid=pool-pick-reviewers] button[type=submit]")
    page.wait_for_selector("text=Added to the reviewers pool: rev1.")
    assert page.locator("[data-testid=not-ready]").count() == 0
    screenshot("project-admin-pools")

    # 5. Assign from the project page; who is assigned what is shown there.
    page.click("[data-testid=assign]")
    page.wait_for_selector("text=Assigned 3 sentence(s) of firstproject: 6 assignments")
    open_counts = {
        name: int(
            page.locator(f"[data-testid=member-row][data-username={name}]")
            .locator("[data-testid=member-open]")
            .inner_text()
        )
        for name in ("ann1", "ann2", "ann3")
    }
    assert sum(open_counts.values()) == 6 and set(open_counts.values()) == {2}
    assert ReviewTask.objects.filter(reviewer__username="rev1").count() == 3
    screenshot("project-admin-assigned")

    # 6. Each annotator signs in with the password handed out and starts annotating.
    for name in ("ann1", "ann2", "ann3"):
        context = browser.new_context(base_url=live_server.url)
        annotator = context.new_page()
        login(annotator, name, passwords[name])
        annotator.goto("/annotate/next/")
        annotator.wait_for_selector("[data-testid=source]")
        assert annotator.inner_text("[data-testid=source]") in SENTENCES
        annotator.click("#tag-error-free")
        with annotator.expect_navigation():
            annotator.click("#submit-button")
        context.close()
    assert Assignment.objects.filter(status="submitted").count() == 3

    assert not [url for url in visited if "/django-admin" in url]
