"""Django admin for the annotation models.

Workflow rows (assignments, submissions) are read-only here: they are written by services
that check the rules and write the audit log; the admin is for looking, and for editing a
dataset's pools and k.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from annotate.models import Assignment, Correction, Dataset, Sentence, Source, Submission


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "language", "annotators_per_sentence", "created_at")
    filter_horizontal = ("annotators", "reviewers")
    readonly_fields = ("created_at", "created_by")


@admin.register(Source)
class SourceAdmin(ReadOnlyAdmin):
    list_display = ("name", "dataset")


@admin.register(Sentence)
class SentenceAdmin(ReadOnlyAdmin):
    list_display = ("external_id", "dataset", "source", "split", "status", "judgement")
    list_filter = ("dataset", "status", "judgement", "split")
    search_fields = ("external_id", "text")


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ("id", "sentence", "annotator", "status", "created_at", "opened_at", "submitted_at", "time_spent_seconds")
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
