"""Services that write users, roles and notifications."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.audit import log_action
from core.exceptions import Conflict, NotFound, PermissionDenied, ServiceError
from core.models import Notification, User
from core.roles import GROUP_PERMISSIONS, Role
from core.unique import create_unique


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
    existing = User.objects.filter(username=username).first()
    if existing is not None:
        raise Conflict(_username_taken(existing), field="username")
    if is_superuser and Role.ADMIN not in roles:
        roles = (*roles, Role.ADMIN)  # a superuser is an admin, and shows so on the users page
    user = User(
        username=username,
        email=email,
        display_name=display_name,
        is_staff=is_superuser or Role.ADMIN in roles,
        is_superuser=is_superuser,
    )
    user.set_password(password)
    # Two requests for a new username both find none above; the second insert loses.
    create_unique(
        User,
        lambda: _inserted(user),
        unique=["username"],
        values={"username": username},
        message=_username_taken,
        field="username",
    )
    set_roles(user=user, roles=roles)
    return user


def _username_taken(existing: User) -> str:
    return f"user {existing.username!r} already exists (user {existing.pk})"


def _inserted(user: User) -> User:
    user.save(force_insert=True)
    return user


def ensure_role_groups() -> list[Group]:
    """The role groups with their permissions (created by a migration; recreated here if a
    database flush removed them, as test databases do)."""

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


def give_superuser_admin_role(user: User) -> None:
    """A superuser holds the admin role as a group too, so the users page shows it ticked
    and the account works as an admin like any other (createsuperuser makes such accounts)."""
    if not user.is_superuser:
        return
    admin_group = next(g for g in ensure_role_groups() if g.name == Role.ADMIN.value)
    if not user.groups.filter(pk=admin_group.pk).exists():
        user.groups.add(admin_group)
        for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
            user.__dict__.pop(cache, None)


def mark_notifications_read(*, user: Any) -> int:
    return Notification.objects.filter(user_id=user.pk, read_at__isnull=True).update(
        read_at=timezone.now()
    )


def mark_notifications_done(*, url: str, user_id: int | None = None) -> int:
    """Mark read the unread notifications that point at `url` (of `user_id`, or of everyone
    when None): the work they announced is done or gone. The number marked."""
    unread = Notification.objects.filter(url=url, read_at__isnull=True)
    if user_id is not None:
        unread = unread.filter(user_id=user_id)
    return unread.update(read_at=timezone.now())


# --- user administration (the platform's own users page; Django admin is for superusers) ---

MAX_ACCOUNTS_PER_REQUEST = 200
_username_validator = UnicodeUsernameValidator()


def parse_roles(values: Any) -> list[Role]:
    """Role names from a form (checkboxes) or JSON; an unknown name is an error."""
    roles: list[Role] = []
    for value in values or ():
        try:
            role = Role(value)
        except ValueError:
            raise ServiceError(
                f"unknown role {value!r}: use {', '.join(r.value for r in Role)}", field="roles"
            ) from None
        if role not in roles:
            roles.append(role)
    return roles


def parse_account_lines(text: Any) -> list[tuple[str, str]]:
    """`username` or `username e-mail` one a line (commas or semicolons also separate the
    two); blank lines are skipped. Each line is checked, and the errors name their lines."""
    if not isinstance(text, str):
        raise ServiceError("list the new accounts as text, one a line", field="accounts")
    accounts: list[tuple[str, str]] = []
    errors: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = [p for p in re.split(r"[\s,;]+", line.strip()) if p]
        if not parts:
            continue
        if len(parts) > 2:
            errors.append(f"line {number}: expected 'username' or 'username e-mail'")
            continue
        username, email = parts[0], parts[1] if len(parts) == 2 else ""
        try:
            _username_validator(username)
        except ValidationError:
            errors.append(
                f"line {number}: {username!r} is not a valid username "
                "(letters, digits and @ . + - _ only)"
            )
            continue
        if len(username) > 150:
            errors.append(f"line {number}: the username is longer than 150 characters")
            continue
        if email:
            try:
                validate_email(email)
            except ValidationError:
                errors.append(f"line {number}: {email!r} is not an e-mail address")
                continue
        if any(username.lower() == seen.lower() for seen, _ in accounts):
            errors.append(f"line {number}: {username} is listed twice")
            continue
        accounts.append((username, email))
    if errors:
        raise ServiceError("; ".join(errors[:20]), field="accounts")
    if not accounts:
        raise ServiceError(
            "list at least one account: 'username' or 'username e-mail'", field="accounts"
        )
    if len(accounts) > MAX_ACCOUNTS_PER_REQUEST:
        raise ServiceError(
            f"at most {MAX_ACCOUNTS_PER_REQUEST} accounts at a time; got {len(accounts)}",
            field="accounts",
        )
    return accounts


@dataclass(frozen=True)
class CreatedAccount:
    user: User
    password: str  # shown once to the admin, who hands it to the person (the invitation)
    generated: bool


@transaction.atomic
def create_accounts(
    *, by: Any, accounts: Any, roles: Any, password: Any = ""
) -> list[CreatedAccount]:
    """Create several accounts with the same roles, all or nothing. Without `password`
    each account gets its own generated one; with it, every account gets that one."""
    lines = parse_account_lines(accounts)
    chosen_roles = parse_roles(roles)
    if not chosen_roles:
        raise ServiceError("choose at least one role for the new accounts", field="roles")
    if not isinstance(password, str):
        raise ServiceError("the password must be text", field="password")
    # Usernames differing only in case would be two accounts a person cannot tell apart.
    taken = [u for u, _ in lines if User.objects.filter(username__iexact=u).exists()]
    if taken:
        raise Conflict(
            f"nothing was created; these usernames are taken: {', '.join(sorted(set(taken)))}",
            field="accounts",
        )
    if password:
        try:
            validate_password(password)
        except ValidationError as error:
            raise ServiceError(" ".join(error.messages), field="password") from None
    created = []
    for username, email in lines:
        secret = password or secrets.token_urlsafe(12)
        user = create_user(username=username, password=secret, roles=chosen_roles, email=email)
        created.append(CreatedAccount(user=user, password=secret, generated=not password))
        log_action(
            user,
            by,
            "user.created",
            {"username": username, "email": email, "roles": [r.value for r in chosen_roles]},
        )
    return created


def _managed_user(user_id: Any, *, by: Any, field: str) -> User:
    """The account to change. A superuser account is changed by superusers only: a platform
    admin who is not one must not lock the superuser out of Django admin."""
    try:
        user = User.objects.select_for_update().get(pk=int(user_id))
    except (TypeError, ValueError, OverflowError, User.DoesNotExist):
        raise NotFound("no such user") from None
    if user.is_superuser and not getattr(by, "is_superuser", False):
        raise PermissionDenied(
            f"{user.username} is a superuser; only a superuser can change that account",
            field=field,
        )
    return user


@transaction.atomic
def change_roles(*, by: Any, user_id: Any, roles: Any) -> User:
    """Give a user exactly `roles`. An admin cannot take the admin role from themself (the
    platform would be left without the person making the change)."""
    user = _managed_user(user_id, by=by, field="roles")
    chosen = parse_roles(roles)
    if user.pk == getattr(by, "pk", None) and Role.ADMIN not in chosen:
        raise ServiceError(
            "you cannot remove your own admin role; ask another admin", field="roles"
        )
    before = [g for g in user.groups.values_list("name", flat=True)]
    set_roles(user=user, roles=chosen)
    log_action(
        user,
        by,
        "user.roles_changed",
        {"before": sorted(before), "after": [r.value for r in chosen]},
    )
    return user


@transaction.atomic
def set_user_active(*, by: Any, user_id: Any, active: bool) -> User:
    """Deactivate (no sign-in, left out of new assignments) or reactivate an account. Work
    already handed to a deactivated user shows as stale on the progress page."""
    user = _managed_user(user_id, by=by, field="active")
    if user.pk == getattr(by, "pk", None) and not active:
        raise ServiceError("you cannot deactivate your own account", field="active")
    if user.is_active != active:
        user.is_active = active
        user.save(update_fields=["is_active"])
        log_action(user, by, "user.activated" if active else "user.deactivated", {})
    return user


@transaction.atomic
def unlock_logins(*, by: Any, user_id: Any) -> tuple[User, int]:
    """Clear the failed logins counted against an account (every address it was tried
    from), so a locked account can log in at once. The number of records cleared."""
    user = _managed_user(user_id, by=by, field="unlock")
    cleared = AxesProxyHandler.reset_attempts(username=user.username)
    log_action(user, by, "login.unlocked", {"username": user.username, "records": cleared})
    return user, cleared


def token_expires_at(token: Token) -> datetime:
    return token.created + timedelta(hours=settings.GEC_API_TOKEN_HOURS)


@transaction.atomic
def issue_api_token(*, user: User) -> Token:
    """The user's API token: the current one while it lives, else a new one."""
    token = Token.objects.select_for_update().filter(user=user).first()
    if token is not None and token_expires_at(token) > timezone.now():
        return token
    if token is not None:
        token.delete()
    token, _created = Token.objects.get_or_create(user=user)
    return token
