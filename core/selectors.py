"""Read-only queries of the core app."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from core.models import Notification


def recent_notifications(user: Any, limit: int = 20) -> QuerySet[Notification]:
    """A signed-in user's newest notifications (none for anyone else)."""
    return Notification.objects.filter(user_id=getattr(user, "pk", None) or 0)[:limit]
