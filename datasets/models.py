"""Datasets and what they hold: sources, sentences, golden references, frozen releases
(DatasetVersion + ReleasedSentence) and each release's reference M2.

The lowest domain app (`core` <- `datasets` <- `annotate` <- `review` <- `scoring`):
annotation, review and scoring point at these models, never the other way round.
Invariants live here (uniqueness, choices); workflows live in `datasets/services/`.
GoldenReference rows are never edited in place: a review or an accepted complaint writes a
new revision (is_current=True) and marks the previous rows is_current=False, so every
version a score or an export used can be reconstructed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Language(models.TextChoices):
    CHINESE = "zh", "Chinese"
    ENGLISH = "en", "English"


class Split(models.TextChoices):
    NONE = "", "(none)"
    DEV = "dev", "dev"
    TEST = "test", "test"
    TRAIN = "train", "train"


class ReferenceStyle(models.TextChoices):
    """How a reference corrects (MultiGEC and SEEDA label each reference): minimal edits or
    a fluent rewrite. Stored per golden reference, set by the import or the annotator pool
    it came from (docs/publishing.md, "Reference styles")."""

    UNSPECIFIED = "", "unspecified"
    MINIMAL = "minimal", "minimal edits"
    FLUENCY = "fluency", "fluency edits"


class AnnotationMode(models.TextChoices):
    """How the annotation box opens: with the source (rewrite, MuCGEC style) or with a
    suggested correction to post-edit (docs/workflow.md, "Post-edit annotation")."""

    REWRITE = "rewrite", "rewrite the source"
    POST_EDIT = "post-edit", "post-edit a suggestion"


class Dataset(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.CHINESE)
    annotators_per_sentence = models.PositiveSmallIntegerField(default=3)
    # The project's deadline: an open assignment (or a review ready) untouched for this many
    # hours counts as stale on the admin's progress page, where it can be reassigned.
    stale_after_hours = models.PositiveIntegerField(default=48)
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotation_datasets"
    )
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="review_datasets"
    )
    # The style of the references the annotator pool writes: a review stores it on every
    # golden reference taken from an annotator's correction (accepted or edited).
    annotator_reference_style = models.CharField(
        max_length=8, blank=True, default="", choices=ReferenceStyle.choices
    )
    annotation_mode = models.CharField(
        max_length=16, choices=AnnotationMode.choices, default=AnnotationMode.REWRITE
    )
    # The label (`system:NAME` or `llm:MODEL`) of the suggestions the post-edit mode opens
    # with: the last source `suggest_corrections` ran; "" before any.
    suggestion_source = models.CharField(max_length=120, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Source(models.Model):
    """Where sentences came from (NLPCC18, CGED, Lang8, ...), per dataset."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="sources")
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="unique_source_per_dataset")
        ]

    def __str__(self) -> str:
        return self.name


class SentenceStatus(models.TextChoices):
    PENDING = "pending", "waiting for annotators"
    ANNOTATING = "annotating", "being annotated"
    IN_REVIEW = "in_review", "waiting for review"
    REVIEWED = "reviewed", "reviewed"


class Judgement(models.TextChoices):
    """The reviewer's (or an imported dataset's) verdict on the sentence as a whole."""

    UNSET = "", "not yet decided"
    ANNOTATABLE = "annotatable", "annotatable (has errors)"
    ERROR_FREE = "error_free", "error free"
    NOT_ANNOTATABLE = "not_annotatable", "not annotatable"


class Sentence(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="sentences")
    source = models.ForeignKey(
        Source, null=True, blank=True, on_delete=models.PROTECT, related_name="sentences"
    )
    split = models.CharField(max_length=8, choices=Split.choices, blank=True, default=Split.NONE)
    external_id = models.CharField(max_length=100, help_text="id in the imported file")
    position = models.PositiveIntegerField(help_text="order within the dataset (import order)")
    text = models.TextField()
    status = models.CharField(
        max_length=16, choices=SentenceStatus.choices, default=SentenceStatus.PENDING, db_index=True
    )
    judgement = models.CharField(
        max_length=16, choices=Judgement.choices, blank=True, default=Judgement.UNSET
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "external_id"], name="unique_sentence_id_per_dataset"
            ),
            models.UniqueConstraint(
                fields=["dataset", "position"], name="unique_sentence_position_per_dataset"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}:{self.external_id}"


class DatasetVersion(models.Model):
    """A frozen release: the golden references of a dataset (or a subset) at one moment.

    The content lives in `ReleasedSentence` rows that are never updated after creation;
    `checksum` is the sha256 of the canonical MuCGEC-format text of the release.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    note = models.TextField(blank=True)
    split = models.CharField(max_length=8, blank=True, default="")
    source_names = models.JSONField(default=list, blank=True)
    checksum = models.CharField(max_length=64)
    counts = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["dataset", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="unique_version_number")
        ]

    @property
    def label(self) -> str:
        return f"{self.dataset.name}@v{self.number}"

    def __str__(self) -> str:
        return self.label


class ReleasedSentence(models.Model):
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="sentences")
    sentence = models.ForeignKey(Sentence, null=True, on_delete=models.SET_NULL, related_name="+")
    position = models.PositiveIntegerField()
    external_id = models.CharField(max_length=100)
    source_name = models.CharField(max_length=100, blank=True)
    split = models.CharField(max_length=8, blank=True)
    text = models.TextField()
    judgement = models.CharField(max_length=16, blank=True)
    references = models.JSONField(default=list, help_text="list of reference texts, in order")
    # Per reference, frozen with the release: its stored style ("" unspecified) and the
    # user id of the annotator whose correction it is (None: imported or the reviewer's).
    # Empty lists in releases made before these were recorded.
    reference_styles = models.JSONField(default=list, blank=True)
    reference_annotators = models.JSONField(default=list, blank=True)
    # Per reference, frozen with the release: how its text came to be (GoldenReference.entry:
    # typed / post-edited / accepted-unchanged) and the suggestion's label ("" none). Empty
    # lists in releases made before post-edit annotation: every reference then was typed.
    reference_entries = models.JSONField(default=list, blank=True)
    reference_suggestion_sources = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "position"], name="unique_release_position")
        ]


class ReferenceKind(models.TextChoices):
    CORRECTION = "correction", "corrected text"
    ERROR_FREE = "error_free", "error free"
    NOT_ANNOTATABLE = "not_annotatable", "not annotatable"


class ReferenceOrigin(models.TextChoices):
    ANNOTATORS = "annotators", "from annotators as-is"
    EDITED = "edited", "edited by the reviewer"
    ADDED = "added", "added by the reviewer"
    IMPORTED = "imported", "imported with the dataset"
    COMPLAINT = "complaint", "revised after a complaint"


class ReferenceEntry(models.TextChoices):
    """How the text of a reference taken from an annotator came to be: typed from the source,
    post-edited from a suggestion (or edited by the reviewer), or a suggestion accepted
    unchanged by both the annotator and the reviewer."""

    TYPED = "typed", "typed"
    POST_EDITED = "post-edited", "post-edited"
    ACCEPTED_UNCHANGED = "accepted-unchanged", "accepted unchanged"


class GoldenReference(models.Model):
    sentence = models.ForeignKey(
        Sentence, on_delete=models.CASCADE, related_name="golden_references"
    )
    revision = models.PositiveIntegerField(default=1)
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(
        max_length=16, choices=ReferenceKind.choices, default=ReferenceKind.CORRECTION
    )
    text = models.TextField(help_text="the corrected sentence; for markers the marker text")
    origin = models.CharField(max_length=16, choices=ReferenceOrigin.choices)
    style = models.CharField(max_length=8, blank=True, default="", choices=ReferenceStyle.choices)
    # The annotator whose correction this reference is (a review accepted it as-is or
    # edited it); None for imported references and ones the reviewer added.
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entry = models.CharField(
        max_length=24, choices=ReferenceEntry.choices, default=ReferenceEntry.TYPED
    )
    # The suggestion's label when the annotator saw one ("" for typed references).
    suggestion_source = models.CharField(max_length=120, blank=True, default="")
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


class ReferenceM2Cache(models.Model):
    """The reference M2 of a release, per resources signature: a release never changes, so
    its references are extracted once and every later system score reuses them."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="+")
    resources_key = models.CharField(max_length=200)
    m2_text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "resources_key"], name="unique_reference_m2")
        ]
