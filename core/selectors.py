"""Read-only queries of the core app."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from core.models import Notification, User
from core.roles import Role


def recent_notifications(user: Any, limit: int = 20) -> QuerySet[Notification]:
    """A signed-in user's newest notifications (none for anyone else)."""
    return Notification.objects.filter(user_id=getattr(user, "pk", None) or 0)[:limit]


@dataclass(frozen=True)
class UserRow:
    user: User
    roles: list[str]


def user_directory(*, role: str = "", query: str = "", limit: int = 500) -> list[UserRow]:
    """The accounts for the admins' users page (the first `limit` by username), with their
    role names; `role` and `query` (part of the username, name or e-mail) narrow the list."""
    users = User.objects.order_by("username").prefetch_related("groups")
    if role in {r.value for r in Role}:
        users = users.filter(groups__name=role)
    if query:
        users = users.filter(
            Q(username__icontains=query)
            | Q(email__icontains=query)
            | Q(display_name__icontains=query)
        )
    role_names = {r.value for r in Role}
    return [
        UserRow(user, sorted(g.name for g in user.groups.all() if g.name in role_names))
        for user in users.distinct()[:limit]
    ]
