"""Services that write users, roles and notifications."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from core.exceptions import ServiceError
from core.models import Notification, User
from core.roles import GROUP_PERMISSIONS, Role


@transaction.atomic
def create_user(
    *,
    username: str,
    password: str,
    roles: list[Role] | tuple[Role, ...] = (),
    email: str = "",
    display_name: str = "",
    is_superuser: bool = False,
) -> User:
    if User.objects.filter(username=username).exists():
        raise ServiceError(f"user {username!r} already exists", field="username")
    user = User(
        username=username,
        email=email,
        display_name=display_name,
        is_staff=is_superuser or Role.ADMIN in roles,
        is_superuser=is_superuser,
    )
    user.set_password(password)
    user.save()
    set_roles(user=user, roles=roles)
    return user


def ensure_role_groups() -> list[Group]:
    """The role groups with their permissions (created by a migration; recreated here if a
    database flush removed them, as test databases do)."""
    from django.contrib.auth.models import Permission

    groups = []
    for role, codenames in GROUP_PERMISSIONS.items():
        group, created = Group.objects.get_or_create(name=role.value)
        if created:
            group.permissions.set(
                Permission.objects.filter(content_type__app_label="core", codename__in=codenames)
            )
        groups.append(group)
    return groups


@transaction.atomic
def set_roles(*, user: User, roles: list[Role] | tuple[Role, ...]) -> None:
    """Replace the user's role groups with exactly `roles`."""
    wanted = {Role(role).value for role in roles}
    role_groups = ensure_role_groups()
    user.groups.remove(*[g for g in role_groups if g.name not in wanted])
    user.groups.add(*[g for g in role_groups if g.name in wanted])
    # has_perm caches per instance; a changed role must show at once.
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)


def mark_notifications_read(*, user: Any) -> int:
    return Notification.objects.filter(user_id=user.pk, read_at__isnull=True).update(
        read_at=timezone.now()
    )
