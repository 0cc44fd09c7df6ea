"""Golden references and the review workflow around them.

GoldenReference rows are never edited in place: a review or an accepted complaint writes a
new revision (is_current=True) and marks the previous rows is_current=False, so every
version a score or an export used can be reconstructed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotate.models import Sentence


class ReferenceKind(models.TextChoices):
    CORRECTION = "correction", "corrected text"
    ERROR_FREE = "error_free", "no error (没有错误)"
    NOT_ANNOTATABLE = "not_annotatable", "not annotatable (无法标注)"


class ReferenceOrigin(models.TextChoices):
    ANNOTATORS = "annotators", "from annotators as-is"
    EDITED = "edited", "edited by the reviewer"
    ADDED = "added", "added by the reviewer"
    IMPORTED = "imported", "imported with the dataset"
    COMPLAINT = "complaint", "revised after a complaint"


class GoldenReference(models.Model):
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="golden_references")
    revision = models.PositiveIntegerField(default=1)
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=ReferenceKind.choices, default=ReferenceKind.CORRECTION)
    text = models.TextField(help_text="the corrected sentence; for markers the marker text")
    origin = models.CharField(max_length=16, choices=ReferenceOrigin.choices)
    is_current = models.BooleanField(default=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["sentence", "revision", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["sentence", "revision", "position"], name="unique_reference_slot"
            ),
        ]
        indexes = [models.Index(fields=["sentence", "is_current"])]

    def __str__(self) -> str:
        return f"{self.sentence} r{self.revision}#{self.position}"

