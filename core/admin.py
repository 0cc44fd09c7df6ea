from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from core.models import AuditLog, Notification, User

admin.site.register(User, UserAdmin)


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
