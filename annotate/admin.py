"""Django admin for the annotation models.

Workflow rows (assignments, submissions) are read-only here: they are written by services
that check the rules and write the audit log; the admin is for looking.
"""

from __future__ import annotations

from django.contrib import admin

from annotate.models import Assignment, Correction, Guideline, Submission
from core.admin import ReadOnlyAdmin


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "sentence",
        "annotator",
        "status",
        "created_at",
        "opened_at",
        "submitted_at",
        "time_spent_seconds",
    )
    list_filter = ("status", "sentence__dataset")
    search_fields = ("annotator__username", "sentence__external_id")


class CorrectionInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Correction
    extra = 0
    can_delete = False
    readonly_fields = ("position", "text")


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = ("id", "assignment", "revision", "tag", "created_at", "time_spent_seconds")
    list_filter = ("revision", "tag")
    inlines = [CorrectionInline]


@admin.register(Guideline)
class GuidelineAdmin(ReadOnlyAdmin):
    list_display = ("title", "task", "language", "archived", "version", "updated_at", "updated_by")
    list_filter = ("archived", "task", "language")
