"""Role checks for pages and API endpoints: one place, used by every app."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.http.response import HttpResponseBase
from rest_framework.permissions import BasePermission

from core.roles import Role, has_role

R = TypeVar("R", bound=HttpResponseBase)


def role_required(
    *roles: Role,
) -> Callable[[Callable[..., R]], Callable[..., R | HttpResponseRedirect]]:
    """Page decorator: anonymous users go to the login page, others need one of `roles`."""

    def decorator(view: Callable[..., R]) -> Callable[..., R | HttpResponseRedirect]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> R | HttpResponseRedirect:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not any(has_role(request.user, role) for role in roles):
                raise PermissionDenied(
                    f"This page is for {' or '.join(r.value for r in roles)} accounts."
                )
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


class _HasRole(BasePermission):
    roles: tuple[Role, ...] = ()
    message = "Your account does not have the role this endpoint needs."

    def has_permission(self, request: Any, view: Any) -> bool:
        return any(has_role(request.user, role) for role in self.roles)


class IsAnnotator(_HasRole):
    roles = (Role.ANNOTATOR,)


class IsPlatformAdmin(_HasRole):
    roles = (Role.ADMIN,)


class IsReviewerOrAdmin(_HasRole):
    """For what the reviewer-or-admin pages show (the leaderboard): page and API agree."""

    roles = (Role.REVIEWER, Role.ADMIN)
