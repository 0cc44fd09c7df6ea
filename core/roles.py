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


def roles_of(user: Any) -> list[Role]:
    return [role for role in Role if has_role(user, role)]
