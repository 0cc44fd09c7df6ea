from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from core.models import AuditLog, Notification, User

admin.site.register(User, UserAdmin)


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "actor", "action", "object_type", "object_id")
    list_filter = ("action", "object_type")
    readonly_fields = ("created_at", "actor", "action", "object_type", "object_id", "data")


admin.site.register(Notification)
