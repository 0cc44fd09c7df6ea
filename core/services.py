"""Services that write users and roles."""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import transaction

from core.exceptions import ServiceError
from core.models import User
from core.roles import Role


@transaction.atomic
def create_user(
    *, username: str, password: str, roles: list[Role] | tuple[Role, ...] = (), email: str = "",
    display_name: str = "", is_superuser: bool = False,
) -> User:
    if User.objects.filter(username=username).exists():
        raise ServiceError(f"user {username!r} already exists", field="username")
    user = User(username=username, email=email, display_name=display_name,
                is_staff=is_superuser or Role.ADMIN in roles, is_superuser=is_superuser)
    user.set_password(password)
    user.save()
    set_roles(user=user, roles=roles)
    return user


@transaction.atomic
def set_roles(*, user: User, roles: list[Role] | tuple[Role, ...]) -> None:
    """Replace the user's role groups with exactly `roles`."""
    wanted = {Role(role).value for role in roles}
    role_groups = Group.objects.filter(name__in=[role.value for role in Role])
    missing = wanted - set(role_groups.values_list("name", flat=True))
    if missing:
        raise ServiceError(f"role group(s) {sorted(missing)} do not exist; run migrations")
    user.groups.remove(*[g for g in role_groups if g.name not in wanted])
    user.groups.add(*[g for g in role_groups if g.name in wanted])
    # has_perm caches per instance; a changed role must show at once.
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)
