from __future__ import annotations

from typing import Any

from django.db import models

from core.models import AuditLog


def log_action(
    obj: models.Model, user: Any, action: str, data: dict[str, Any] | None = None
) -> AuditLog:
    """Record one auditable action; called from services inside their transaction."""
    actor = user if getattr(user, "is_authenticated", False) else None
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        object_type=obj._meta.label_lower,
        object_id=str(obj.pk),
        data=data or {},
    )
