"""Project administration on the platform's own pages: accounts and roles, a
dataset's pools, k and stale deadline, who is assigned what; Django admin for superusers only.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from annotate.models import Assignment
from core.exceptions import PermissionDenied, ServiceError
from core.models import AuditLog, User
from core.roles import Role, has_role
from core.services import change_roles, create_accounts, create_user, set_user_active
from datasets.models import Dataset
from datasets.services.projects import (
    add_to_pool,
    add_users_to_pool,
    remove_from_pool,
    update_project_settings,
)
from review.models import ReviewTask
from review.workflow import assign_dataset
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db


def _login(user: User) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


# --- accounts and roles (services) ------------------------------------------------------------


def test_create_accounts_gives_each_a_generated_password_that_signs_in() -> None:
    admin = make_user(Role.ADMIN)
    created = create_accounts(
        by=admin, accounts="ann1 ann1@example.org\nann2\n\n", roles=["annotator"]
    )
    assert [c.user.username for c in created] == ["ann1", "ann2"]
    assert created[0].user.email == "ann1@example.org"
    assert all(c.generated for c in created)
    assert created[0].password != created[1].password
    for account in created:
        assert has_role(account.user, Role.ANNOTATOR)
        assert not has_role(account.user, Role.ADMIN)
        assert Client().login(username=account.user.username, password=account.password)
    assert AuditLog.objects.filter(action="user.created").count() == 2


def test_create_accounts_is_all_or_nothing_and_names_the_bad_lines() -> None:
    admin = make_user(Role.ADMIN)
    make_user(Role.ANNOTATOR, username="taken")
    with pytest.raises(ServiceError, match="line 2: 'bad!name' is not a valid username"):
        create_accounts(by=admin, accounts="fine1\nbad!name x@y.z\n", roles=["annotator"])
    with pytest.raises(ServiceError, match="taken: TAKEN"):
        create_accounts(by=admin, accounts="fine1\nTAKEN\n", roles=["annotator"])
    with pytest.raises(ServiceError, match="not an e-mail"):
        create_accounts(by=admin, accounts="fine1 nope", roles=["annotator"])
    with pytest.raises(ServiceError, match="choose at least one role"):
        create_accounts(by=admin, accounts="fine1", roles=[])
    with pytest.raises(ServiceError, match="unknown role 'boss'"):
        create_accounts(by=admin, accounts="fine1", roles=["boss"])
    with pytest.raises(ServiceError, match="listed twice"):
        create_accounts(by=admin, accounts="fine1\nFINE1", roles=["annotator"])
    with pytest.raises(ServiceError, match="too short|too common"):
        create_accounts(by=admin, accounts="fine1", roles=["annotator"], password="abc")
    assert not User.objects.filter(username__iexact="fine1").exists()


def test_change_roles_and_deactivate_with_self_protection() -> None:
    admin = make_user(Role.ADMIN)
    user = make_user(Role.ANNOTATOR)
    change_roles(by=admin, user_id=user.pk, roles=["annotator", "reviewer"])
    user = User.objects.get(pk=user.pk)
    assert has_role(user, Role.REVIEWER) and has_role(user, Role.ANNOTATOR)
    change_roles(by=admin, user_id=user.pk, roles=["reviewer"])
    user = User.objects.get(pk=user.pk)
    assert has_role(user, Role.REVIEWER) and not has_role(user, Role.ANNOTATOR)
    with pytest.raises(ServiceError, match="your own admin role"):
        change_roles(by=admin, user_id=admin.pk, roles=["reviewer"])
    with pytest.raises(ServiceError, match="your own account"):
        set_user_active(by=admin, user_id=admin.pk, active=False)
    set_user_active(by=admin, user_id=user.pk, active=False)
    assert not User.objects.get(pk=user.pk).is_active
    assert not Client().login(username=user.username, password=PASSWORD)
    set_user_active(by=admin, user_id=user.pk, active=True)
    assert Client().login(username=user.username, password=PASSWORD)
    actions = list(AuditLog.objects.values_list("action", flat=True))
    assert actions.count("user.roles_changed") == 2
    assert {"user.deactivated", "user.activated"} <= set(actions)


# Every endpoint that changes an existing account: (url, form data).
USER_CHANGES = [
    ("/users/{id}/active/", {"active": "0"}),
    ("/users/{id}/roles/", {"roles": ["annotator"]}),
]


def _superuser_state(user: User) -> tuple[bool, bool, list[str]]:
    user = User.objects.get(pk=user.pk)
    return user.is_active, user.is_superuser, sorted(user.groups.values_list("name", flat=True))


def test_an_admin_who_is_no_superuser_cannot_change_a_superuser() -> None:
    admin = make_user(Role.ADMIN)
    root = create_user(username="root", password=PASSWORD, roles=[Role.ADMIN], is_superuser=True)
    before = _superuser_state(root)
    with pytest.raises(PermissionDenied, match="root is a superuser; only a superuser") as caught:
        set_user_active(by=admin, user_id=root.pk, active=False)
    assert caught.value.status == 403 and caught.value.field == "active"
    with pytest.raises(PermissionDenied, match="only a superuser") as caught:
        change_roles(by=admin, user_id=root.pk, roles=["annotator"])
    assert caught.value.field == "roles"
    client = _login(admin)
    for url, data in USER_CHANGES:
        page = client.post(url.format(id=root.pk), data, follow=True)
        assert page.status_code == 200, url
        assert "root is a superuser; only a superuser can change that account" in (
            page.content.decode()
        ), url
    assert _superuser_state(root) == before
    assert _login(root).get("/django-admin/").status_code == 200
    assert (
        not AuditLog.objects.filter(action__startswith="user.")
        .exclude(action="user.created")
        .exists()
    )


def test_a_superuser_may_change_another_superuser() -> None:
    root = create_user(username="root", password=PASSWORD, roles=[Role.ADMIN], is_superuser=True)
    other = create_user(username="root2", password=PASSWORD, is_superuser=True)
    client = _login(root)
    for url, data in USER_CHANGES:
        assert client.post(url.format(id=other.pk), data).status_code == 302, url
    assert _superuser_state(other) == (False, True, ["annotator"])


# --- pools, k, deadline (services) ------------------------------------------------------------


def test_pools_take_only_active_users_of_the_pool_role() -> None:
    admin = make_user(Role.ADMIN)
    dataset = make_dataset(sentences=["一句话。"])
    annotator = make_user(Role.ANNOTATOR, username="pool-ann")
    reviewer = make_user(Role.REVIEWER, username="pool-rev")
    gone = make_user(Role.ANNOTATOR, username="pool-gone")
    set_user_active(by=admin, user_id=gone.pk, active=False)

    with pytest.raises(ServiceError, match="not an active annotator.*pool-rev"):
        add_users_to_pool(dataset=dataset, by=admin, pool="annotators", user_ids=[reviewer.pk])
    with pytest.raises(ServiceError, match="not an active annotator.*pool-gone"):
        add_users_to_pool(dataset=dataset, by=admin, pool="annotators", user_ids=[gone.pk])
    with pytest.raises(ServiceError, match="unknown pool"):
        add_users_to_pool(dataset=dataset, by=admin, pool="owners", user_ids=[annotator.pk])
    assert not dataset.annotators.exists()

    add_users_to_pool(dataset=dataset, by=admin, pool="annotators", user_ids=[str(annotator.pk)])
    add_users_to_pool(dataset=dataset, by=admin, pool="reviewers", user_ids=[reviewer.pk])
    assert list(dataset.annotators.all()) == [annotator]
    assert list(dataset.reviewers.all()) == [reviewer]
    remove_from_pool(dataset=dataset, by=admin, pool="annotators", user_id=annotator.pk)
    assert not dataset.annotators.exists()
    with pytest.raises(ServiceError, match="not in the annotators pool"):
        remove_from_pool(dataset=dataset, by=admin, pool="annotators", user_id=annotator.pk)


def test_pasted_usernames_and_emails_are_added_all_or_nothing() -> None:
    admin = make_user(Role.ADMIN)
    dataset = make_dataset()
    first = create_user(
        username="paste1", password=PASSWORD, roles=[Role.ANNOTATOR], email="p1@example.org"
    )
    second = make_user(Role.ANNOTATOR, username="paste2")
    with pytest.raises(ServiceError, match="nothing was added; unknown: nobody"):
        add_to_pool(dataset=dataset, by=admin, pool="annotators", names="paste2, nobody")
    assert not dataset.annotators.exists()

    change = add_to_pool(
        dataset=dataset, by=admin, pool="annotators", names="P1@example.org;\npaste2  paste2"
    )
    assert change.added == ["paste1", "paste2"]
    assert set(dataset.annotators.all()) == {first, second}
    again = add_to_pool(dataset=dataset, by=admin, pool="annotators", names="paste1")
    assert again.added == [] and again.already == ["paste1"]
    assert AuditLog.objects.filter(action="project.pool_added").count() == 1


def test_project_settings_are_checked_and_bounded() -> None:
    admin = make_user(Role.ADMIN)
    dataset = make_dataset(k=3)
    update_project_settings(
        dataset=dataset, by=admin, annotators_per_sentence="2", stale_after_hours=" 12 "
    )
    dataset.refresh_from_db()
    assert (dataset.annotators_per_sentence, dataset.stale_after_hours) == (2, 12)
    for k, hours, message in [
        ("0", "12", "k\\) must be a whole number from 1 to 20"),
        ("x", "12", "whole number"),
        ("2", "99999999999", "deadline in hours must be a whole number from 1 to 8760"),
        ("2", "-1", "from 1 to 8760"),
    ]:
        with pytest.raises(ServiceError, match=message):
            update_project_settings(
                dataset=dataset, by=admin, annotators_per_sentence=k, stale_after_hours=hours
            )
    dataset.refresh_from_db()
    assert (dataset.annotators_per_sentence, dataset.stale_after_hours) == (2, 12)


def test_the_stale_list_uses_each_datasets_own_deadline() -> None:
    from annotate.selectors import overdue_assignments

    admin = make_user(Role.ADMIN)
    annotator = make_user(Role.ANNOTATOR)
    reviewer = make_user(Role.REVIEWER)
    quick = make_dataset(name="quick", sentences=["句子一。"], k=1)
    slow = make_dataset(name="slow", sentences=["句子二。"], k=1)
    for dataset, hours in ((quick, 2), (slow, 100)):
        dataset.annotators.set([annotator])
        dataset.reviewers.set([reviewer])
        update_project_settings(
            dataset=dataset, by=admin, annotators_per_sentence=1, stale_after_hours=hours
        )
        assign_dataset(dataset=dataset, seed=0, by=admin)
    Assignment.objects.update(created_at=timezone.now() - timedelta(hours=5))
    overdue = list(overdue_assignments(now=timezone.now()))
    assert [a.sentence.dataset.name for a in overdue] == ["quick"]

    page = _login(admin).get("/annotate/admin/").content.decode()
    assert "past their project" in page
    stale_section = page.split('data-testid="stale"')[1].split("</section>")[0]
    assert "quick" in stale_section and "slow" not in stale_section
    # An explicit ?stale_hours= still applies one threshold to all; absurd values are refused.
    everything = _login(admin).get("/annotate/admin/?stale_hours=1").content.decode()
    assert "slow" in everything.split('data-testid="stale"')[1].split("</section>")[0]
    refused = _login(admin).get("/annotate/admin/?stale_hours=99999999999")
    assert refused.status_code == 200
    assert "stale_hours must be a whole number from 0 to 8760" in refused.content.decode()


# --- pages: permissions and the loop ----------------------------------------------------------

ADMIN_GETS = ["/users/", "/annotate/admin/projects/", "/annotate/admin/projects/{name}/"]
ADMIN_POSTS: list[tuple[str, dict[str, Any]]] = [
    ("/users/", {"accounts": "x1", "roles": ["annotator"]}),
    ("/users/{user}/roles/", {"roles": ["admin"]}),
    ("/users/{user}/active/", {"active": "0"}),
    (
        "/annotate/admin/projects/{name}/settings/",
        {"annotators_per_sentence": "1", "stale_after_hours": "5"},
    ),
    ("/annotate/admin/projects/{name}/pool/add/", {"pool": "annotators", "names": "{username}"}),
    ("/annotate/admin/projects/{name}/pool/remove/", {"pool": "annotators", "user": "{user}"}),
]


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.REVIEWER])
def test_annotators_and_reviewers_get_403_on_every_admin_page(role: Role) -> None:
    dataset = make_dataset(name="perm")
    victim = make_user(Role.ANNOTATOR)
    dataset.annotators.add(victim)
    client = _login(make_user(role))
    fill = {"name": dataset.name, "user": str(victim.pk), "username": victim.username}
    for url in ADMIN_GETS:
        assert client.get(url.format(**fill)).status_code == 403, url
    for url, data in ADMIN_POSTS:
        body = {k: v.format(**fill) if isinstance(v, str) else v for k, v in data.items()}
        assert client.post(url.format(**fill), body).status_code == 403, url
    # Nothing changed.
    victim.refresh_from_db()
    dataset.refresh_from_db()
    assert victim.is_active and has_role(victim, Role.ANNOTATOR)
    assert list(dataset.annotators.all()) == [victim]
    assert not User.objects.filter(username="x1").exists()
    # Anonymous callers are sent to the login page.
    for url in ADMIN_GETS:
        response = Client().get(url.format(**fill))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_django_admin_is_for_superusers_only() -> None:
    admin = make_user(Role.ADMIN)  # is_staff, as every platform admin
    assert admin.is_staff
    response = _login(admin).get("/django-admin/")
    assert response.status_code == 302 and "/django-admin/login/" in response["Location"]
    assert _login(admin).get("/django-admin/core/user/").status_code == 302
    superuser = create_user(username="root", password=PASSWORD, is_superuser=True)
    assert _login(superuser).get("/django-admin/").status_code == 200


def test_an_admin_sets_up_a_project_on_the_pages_and_assigns() -> None:
    admin = make_user(Role.ADMIN)
    client = _login(admin)
    dataset = make_dataset(name="pagesds", sentences=["我们应该保护环境。", "他很高兴。"], k=3)

    response = client.post(
        "/users/",
        {"accounts": "pa1\npa2 pa2@example.org\npa3", "roles": ["annotator"], "password": ""},
    )
    page = response.content.decode()
    assert response.status_code == 200 and page.count('data-testid="created-account"') == 3
    client.post("/users/", {"accounts": "pr1", "roles": ["reviewer"], "password": "x-" + PASSWORD})

    # Assign with empty pools: the error links to the project page that fixes it.
    response = client.post(
        "/annotate/admin/assign/", {"dataset": dataset.pk, "seed": "0"}, follow=True
    )
    text = response.content.decode()
    assert "has 0 active user(s)" in text
    assert 'href="/annotate/admin/projects/pagesds/"' in text

    project = client.get("/annotate/admin/projects/pagesds/").content.decode()
    assert 'data-testid="not-ready"' in project
    # The navigation bar marks Projects (not Progress, a shorter prefix) as the current page.
    assert '<a href="/annotate/admin/projects/" aria-current="page">Projects</a>' in project
    # Only annotators are offered for the annotator pool.
    picker = project.split('data-testid="pool-pick-annotators"')[1].split("</form>")[0]
    assert "pa1" in picker and "pr1" not in picker

    url = "/annotate/admin/projects/pagesds/"
    client.post(url + "settings/", {"annotators_per_sentence": "2", "stale_after_hours": "24"})
    ids = list(User.objects.filter(username__in=["pa1", "pa2"]).values_list("pk", flat=True))
    client.post(url + "pool/add/", {"pool": "annotators", "users": ids})
    client.post(url + "pool/add/", {"pool": "annotators", "names": "pa3"})
    client.post(url + "pool/add/", {"pool": "reviewers", "names": "pr1"})
    dataset.refresh_from_db()
    assert dataset.annotators_per_sentence == 2 and dataset.stale_after_hours == 24
    assert {u.username for u in dataset.annotators.all()} == {"pa1", "pa2", "pa3"}

    response = client.post(
        "/annotate/admin/assign/",
        {"dataset": dataset.pk, "seed": "0", "return_to": "project"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == url
    assert Assignment.objects.filter(sentence__dataset=dataset).count() == 4
    assert (
        ReviewTask.objects.filter(sentence__dataset=dataset, reviewer__username="pr1").count() == 2
    )
    page = response.content.decode()
    assert "Assigned 2 sentence(s)" in page
    rows = page.split('data-testid="who-does-what"')[1]
    opened = {
        name: rows.split(f'data-username="{name}"')[1].split('data-testid="member-open">')[1][:1]
        for name in ("pa1", "pa2", "pa3")
    }
    assert sum(int(n) for n in opened.values()) == 4
    assert Dataset.objects.get(pk=dataset.pk).annotators.count() == 3


# --- REST API ---------------------------------------------------------------------------------


def test_project_api_sets_k_and_pools_for_admins_only() -> None:
    admin = make_user(Role.ADMIN)
    dataset = make_dataset(name="apids", sentences=["一句话。"], k=3)
    make_user(Role.ANNOTATOR, username="api-ann1")
    make_user(Role.ANNOTATOR, username="api-ann2")
    make_user(Role.REVIEWER, username="api-rev")
    client = _login(admin)
    url = "/api/projects/apids/"

    body = client.patch(
        url, {"annotators_per_sentence": 2, "stale_after_hours": 6}, content_type="application/json"
    ).json()
    assert (body["annotators_per_sentence"], body["stale_after_hours"]) == (2, 6)
    refused = client.patch(url, {"annotators_per_sentence": 0}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["field"] == "annotators_per_sentence"
    assert client.patch(url, {"k": 2}, content_type="application/json").status_code == 400

    added = client.post(
        url + "annotators/", {"names": ["api-ann1", "api-ann2"]}, content_type="application/json"
    ).json()
    assert added["added"] == ["api-ann1", "api-ann2"]
    wrong_role = client.post(
        url + "reviewers/", {"names": "api-ann1"}, content_type="application/json"
    )
    assert wrong_role.status_code == 400 and "not an active reviewer" in wrong_role.json()["detail"]
    client.post(url + "reviewers/", {"names": "api-rev"}, content_type="application/json")
    assign_dataset(dataset=Dataset.objects.get(pk=dataset.pk), seed=0, by=admin)
    body = client.get(url).json()
    assert body["annotators"] == ["api-ann1", "api-ann2"] and body["reviewers"] == ["api-rev"]
    assert {m["username"]: m["open"] for m in body["members"]} == {
        "api-ann1": 1,
        "api-ann2": 1,
        "api-rev": 0,
    }
    assert client.delete(url + "annotators/api-ann2/").json()["annotators"] == ["api-ann1"]
    assert client.delete(url + "annotators/api-ann2/").status_code == 400
    assert client.get("/api/projects/nope/").status_code == 404

    for role in (Role.ANNOTATOR, Role.REVIEWER):
        other = _login(make_user(role))
        assert other.get(url).status_code == 403
        assert (
            other.patch(
                url, {"annotators_per_sentence": 1}, content_type="application/json"
            ).status_code
            == 403
        )
        assert (
            other.post(
                url + "annotators/", {"names": "api-ann2"}, content_type="application/json"
            ).status_code
            == 403
        )
        assert other.delete(url + "annotators/api-ann1/").status_code == 403
    assert Client().get(url).status_code == 403
    assert [u.username for u in Dataset.objects.get(pk=dataset.pk).annotators.all()] == ["api-ann1"]


def test_users_page_filters_by_role_and_name() -> None:
    admin = make_user(Role.ADMIN, username="filter-admin")
    make_user(Role.ANNOTATOR, username="filter-ann")
    make_user(Role.REVIEWER, username="filter-rev")
    client = _login(admin)

    def listed(query: str) -> set[str]:
        page = client.get("/users/" + query).content.decode()
        return {part.split('"')[0] for part in page.split('data-username="')[1:]}

    assert {"filter-admin", "filter-ann", "filter-rev"} <= listed("")
    assert listed("?role=reviewer") == {"filter-rev"}
    assert listed("?q=ANN") == {"filter-ann"}
    assert listed("?role=nonsense&q=filter-") == {"filter-admin", "filter-ann", "filter-rev"}
