from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from core.roles import Role, has_role


def roles(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    unread = 0
    if user is not None and user.is_authenticated:
        unread = user.notifications.filter(read_at__isnull=True).count()
    return {
        "is_annotator": has_role(user, Role.ANNOTATOR),
        "is_reviewer": has_role(user, Role.REVIEWER),
        "is_platform_admin": has_role(user, Role.ADMIN),
        "unread_notifications": unread,
    }
