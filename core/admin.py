from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from core.models import AuditLog, Notification, User

admin.site.register(User, UserAdmin)


def superusers_only(request: Any) -> bool:
    """Django admin is a superuser's tool: admins run the platform on its own pages (users,
    annotation projects), which check the rules and write the audit log."""
    return bool(request.user.is_active and request.user.is_superuser)


admin.site.has_permission = superusers_only  # type: ignore[method-assign]


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """For rows written only by services (which check the rules and write the audit log):
    the admin is for looking."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "actor", "action", "object_type", "object_id")
    list_filter = ("action", "object_type")
    readonly_fields = ("created_at", "actor", "action", "object_type", "object_id", "data")


admin.site.register(Notification)
