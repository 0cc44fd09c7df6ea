"""Roles are groups with permissions; code asks for a role, never for a group name."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Role(StrEnum):
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    ADMIN = "admin"


# The permission (app_label.codename) that makes a user act in a role.
ROLE_PERMISSION: dict[Role, str] = {
    Role.ANNOTATOR: "core.annotate_sentences",
    Role.REVIEWER: "core.review_sentences",
    Role.ADMIN: "core.manage_platform",
}

# Which permissions each role's group carries (admins may also review and annotate pages).
GROUP_PERMISSIONS: dict[Role, tuple[str, ...]] = {
    Role.ANNOTATOR: ("annotate_sentences",),
    Role.REVIEWER: ("review_sentences",),
    Role.ADMIN: ("manage_platform", "review_sentences"),
}


def has_role(user: Any, role: Role | str) -> bool:
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return bool(user.has_perm(ROLE_PERMISSION[Role(role)]))


def works_in_role(user: Any, role: Role | str) -> bool:
    """`user` holds `role` through a group, not only through a superuser's blanket
    permissions: what the navigation and home page offer. A superuser who was never made an
    annotator has no to-do list and should not be shown one; access checks
    keep using `has_role`."""
    if not has_role(user, role) or not user.is_superuser:
        return has_role(user, role)
    # Django answers "all permissions" for a superuser even from get_group_permissions.
    app_label, codename = ROLE_PERMISSION[Role(role)].split(".")
    return bool(
        user.groups.filter(
            permissions__content_type__app_label=app_label, permissions__codename=codename
        ).exists()
    )


def roles_of(user: Any) -> list[Role]:
    return [role for role in Role if has_role(user, role)]
