"""Read-only Django admin for review rows: they are written only by services (which check
the rules and write the audit log). The guideline is edited on its own page."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin
from review.models import Complaint, ComplaintMessage, ReviewTask, StudyItem, Verdict


@admin.register(ReviewTask)
class ReviewTaskAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "sentence",
        "reviewer",
        "status",
        "version",
        "submitted_at",
        "submitted_by",
    )
    list_filter = ("status",)


@admin.register(Verdict)
class VerdictAdmin(ReadOnlyAdmin):
    list_display = ("task", "position", "kind", "text", "is_correct", "edited_text")


@admin.register(StudyItem)
class StudyItemAdmin(ReadOnlyAdmin):
    list_display = ("id", "assignment", "reason", "status", "created_at", "done_at")


class ComplaintMessageInline(admin.TabularInline):  # type: ignore[type-arg]
    model = ComplaintMessage
    extra = 0
    can_delete = False
    readonly_fields = ("author", "text", "created_at")


@admin.register(Complaint)
class ComplaintAdmin(ReadOnlyAdmin):
    list_display = ("id", "author", "status", "created_at", "resolved_at", "resolved_by")
    list_filter = ("status",)
    inlines = [ComplaintMessageInline]
