"""What a published release carries besides its sentences: the metadata a dataset card and
Croissant need (licence, citation, reference styles, ...), the release report's findings,
and the reference files (known test sets) a release is checked against for leakage.

The top app (`core` <- `datasets` <- `annotate` <- `review` <- `judgments` <- `scoring` <-
`publishing`): a card states the annotation process, agreement and time spent, which the
lower apps know, so publishing reads them all and nothing reads publishing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from datasets.models import DatasetVersion, ReferenceStyle

__all__ = ["ReferenceStyle", "ReleaseMetadata", "ReferenceFile", "ReleaseReport"]


class ReleaseMetadata(models.Model):
    """Metadata of one release (a release's sentences never change; its description may be
    corrected, and each save is kept in the audit log)."""

    version = models.OneToOneField(
        DatasetVersion, on_delete=models.CASCADE, related_name="metadata"
    )
    description = models.TextField(blank=True)
    license = models.CharField(
        max_length=64, blank=True, help_text="SPDX identifier, e.g. CC-BY-4.0 or Apache-2.0"
    )
    # [{"name": "MuCGEC", "license": "Apache-2.0", "url": "..."}]: data this release builds on.
    upstream_licenses = models.JSONField(default=list, blank=True)
    citation = models.TextField(blank=True, help_text="BibTeX")
    contact = models.CharField(max_length=200, blank=True)
    homepage = models.URLField(blank=True)
    # Default style of reference k (1-based, as text keys) for references that carry no
    # style of their own (a reference's stored style wins; docs/publishing.md).
    reference_styles = models.JSONField(default=dict, blank=True)
    # Checks whose findings block publishing (names from publishing.checks.CHECKS).
    blocking_checks = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"metadata of {self.version.label}"


class ReferenceFile(models.Model):
    """Sentences a release must not contain (a known test set, another corpus's dev set),
    uploaded by an admin; one sentence a line (or the source column of a MuCGEC/M2 file)."""

    name = models.SlugField(max_length=100, unique=True)
    sentences = models.JSONField(default=list)
    uploaded_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ReleaseReport(models.Model):
    """The findings of every check on a release, computed as a job."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="reports")
    findings = models.JSONField(default=list)
    # What the release was checked against: dataset names and reference file names.
    compared_with = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["version", "-created_at"]

    def counts(self) -> dict[str, int]:
        return {finding["check"]: finding["count"] for finding in self.findings}
