"""Django admin for datasets (superusers only). Sentences, references and releases are
read-only here: services write them (checking the rules and writing the audit log)."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin
from datasets.models import (
    Dataset,
    DatasetVersion,
    GoldenReference,
    ReferenceM2Cache,
    Sentence,
    Source,
)


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


@admin.register(GoldenReference)
class GoldenReferenceAdmin(ReadOnlyAdmin):
    list_display = ("sentence", "revision", "position", "kind", "text", "origin", "is_current")
    list_filter = ("origin", "kind", "is_current")


@admin.register(DatasetVersion)
class DatasetVersionAdmin(ReadOnlyAdmin):
    list_display = ("dataset", "number", "split", "checksum", "created_at")


admin.site.register(ReferenceM2Cache, ReadOnlyAdmin)
