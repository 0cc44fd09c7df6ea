"""The admins' users page: list accounts, create them (one or many, with the password shown
once), change roles, deactivate and reactivate. Thin: parse, call a core service, render.
Django admin is for superusers only (core/admin.py); this page is how admins manage people."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.login_throttle import locked_usernames
from core.permissions import role_required
from core.roles import Role
from core.selectors import user_directory
from core.services import change_roles, create_accounts, set_user_active, unlock_logins
from core.web import call_service

MAX_QUERY_CHARS = 150
USERS_SHOWN = 500


def _users_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    role = request.GET.get("role", "")
    query = request.GET.get("q", "")[:MAX_QUERY_CHARS].strip()
    return {
        "rows": user_directory(role=role, query=query, limit=USERS_SHOWN),
        "users_shown": USERS_SHOWN,
        "roles": [r.value for r in Role],
        "role_filter": role if role in {r.value for r in Role} else "",
        "query": query,
        "locked": locked_usernames(),
        **extra,
    }


@role_required(Role.ADMIN)
@require_http_methods(["GET", "POST"])
def users_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        created = call_service(
            request,
            create_accounts,
            by=request.user,
            accounts=request.POST.get("accounts", ""),
            roles=request.POST.getlist("roles"),
            password=request.POST.get("password", ""),
        )
        if created is None:
            context = _users_context(
                request, posted=request.POST, posted_roles=request.POST.getlist("roles")
            )
            return render(request, "core/users.html", context, status=400)
        messages.success(request, f"Created {len(created)} account(s).")
        # Rendered, not redirected: generated passwords are shown this once and never stored.
        return render(request, "core/users.html", _users_context(request, created=created))
    return render(request, "core/users.html", _users_context(request))


@role_required(Role.ADMIN)
@require_POST
def user_roles(request: HttpRequest, user_id: int) -> HttpResponse:
    user = call_service(
        request, change_roles, by=request.user, user_id=user_id, roles=request.POST.getlist("roles")
    )
    if user is not None:
        roles = ", ".join(request.POST.getlist("roles")) or "no role"
        messages.success(request, f"{user.username}: {roles}.")
    return redirect("users")


@role_required(Role.ADMIN)
@require_POST
def user_active(request: HttpRequest, user_id: int) -> HttpResponse:
    active = request.POST.get("active") == "1"
    user = call_service(request, set_user_active, by=request.user, user_id=user_id, active=active)
    if user is not None:
        messages.success(request, f"{user.username} {'reactivated' if active else 'deactivated'}.")
    return redirect("users")


@role_required(Role.ADMIN)
@require_POST
def user_unlock(request: HttpRequest, user_id: int) -> HttpResponse:
    unlocked = call_service(request, unlock_logins, by=request.user, user_id=user_id)
    if unlocked is not None:
        messages.success(request, f"{unlocked[0].username} can log in again.")
    return redirect("users")
