from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from core.roles import Role, has_role, works_in_role


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str
    active: bool


# (label, URL name, fragment) per role, in the order the bar shows them. A URL name that does
# not resolve (an app not installed, a page another change has not added yet) is left out,
# so the bar never breaks a page; the first name of a tuple that resolves is used.
ANNOTATOR_LINKS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("My tasks", ("annotate:dashboard",), ""),
    ("Next sentence", ("annotate:next",), ""),
    ("Study", ("annotate:dashboard",), "#study-items"),
)
REVIEWER_LINKS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Review queue", ("review:queue",), ""),
)
SHARED_LINKS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Complaints", ("review:complaints",), ""),
    ("Guidelines", ("annotate:guidelines",), ""),
)
# Judgment campaigns (the judgments app): any account with a role may judge; admins create
# and read campaigns on the same page.
JUDGE_LINKS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Judgments", ("judgments:index",), ""),
)
ADMIN_LINKS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Datasets", ("datasets:list",), ""),
    ("Projects", ("review:projects", "datasets:projects", "projects", "projects:list"), ""),
    ("Users", ("users",), ""),
    ("Progress", ("review:admin-dashboard",), ""),
    ("Scoring", ("scoring:index",), ""),
    ("Pay", ("scoring:pay",), ""),
    ("API docs", ("api-docs",), ""),
)


def _reverse_first(names: tuple[str, ...]) -> str | None:
    for name in names:
        try:
            return reverse(name)
        except NoReverseMatch:
            continue
    return None


def navigation_links(user: Any, path: str) -> list[NavLink]:
    """The links of the navigation bar for `user`'s roles; the link of the current page
    (the longest matching prefix) is marked active."""
    groups: list[tuple[tuple[str, tuple[str, ...], str], ...]] = []
    annotator = works_in_role(user, Role.ANNOTATOR)
    if annotator:
        groups.append(ANNOTATOR_LINKS)
    if has_role(user, Role.REVIEWER):
        groups.append(REVIEWER_LINKS)
    if annotator or has_role(user, Role.REVIEWER):
        groups.append(SHARED_LINKS)
    if has_role(user, Role.ADMIN):
        groups.append(ADMIN_LINKS)
    if any(has_role(user, role) for role in Role):
        groups.append(JUDGE_LINKS)
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for group in groups:
        for label, names, fragment in group:
            url = _reverse_first(names)
            if url is None or url + fragment in seen:
                continue
            seen.add(url + fragment)
            found.append((label, url + fragment))
    candidates = [url for _label, url in found if "#" not in url and path.startswith(url)]
    current = max(candidates, key=len, default=None)
    return [NavLink(label, url, url == current) for label, url in found]


def roles(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    unread = 0
    if user is not None and user.is_authenticated:
        unread = user.notifications.filter(read_at__isnull=True).count()
    return {
        "is_annotator": works_in_role(user, Role.ANNOTATOR),
        "is_reviewer": has_role(user, Role.REVIEWER),
        "is_platform_admin": has_role(user, Role.ADMIN),
        "unread_notifications": unread,
        "nav_links": navigation_links(user, request.path) if user is not None else [],
    }
