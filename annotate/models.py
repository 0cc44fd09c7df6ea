"""Datasets, their sentences, and the annotators' work on them.

Invariants live here (uniqueness, choices); workflows live in annotate/services.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Language(models.TextChoices):
    CHINESE = "zh", "Chinese"
    ENGLISH = "en", "English"


class Split(models.TextChoices):
    NONE = "", "(none)"
    DEV = "dev", "dev"
    TEST = "test", "test"
    TRAIN = "train", "train"


class Dataset(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.CHINESE)
    annotators_per_sentence = models.PositiveSmallIntegerField(default=3)
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotation_datasets"
    )
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="review_datasets"
    )
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

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "position"], name="unique_release_position")
        ]


class AssignmentStatus(models.TextChoices):
    OPEN = "open", "open"
    SUBMITTED = "submitted", "submitted"
    WITHDRAWN = "withdrawn", "withdrawn (reassigned)"


class Assignment(models.Model):
    """One sentence given to one annotator. k distinct annotators per sentence."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments"
    )
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.OPEN, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    time_spent_seconds = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["sentence__position", "id"]
        constraints = [
            # An annotator holds at most one live assignment per sentence.
            models.UniqueConstraint(
                fields=["sentence", "annotator"],
                condition=~Q(status="withdrawn"),
                name="unique_live_assignment",
            )
        ]


class SubmissionTag(models.TextChoices):
    CORRECTED = "", "corrected"
    ERROR_FREE = "error_free", "ERROR FREE"
    NOT_ANNOTATABLE = "not_annotatable", "NOT ANNOTATABLE"


class Submission(models.Model):
    """What an annotator handed in. Revision 1 is the original and is never overwritten;
    self-study revisions are new rows with revision 2, 3, ..."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="submissions")
    revision = models.PositiveSmallIntegerField(default=1)
    tag = models.CharField(max_length=16, choices=SubmissionTag.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    time_spent_seconds = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["assignment", "revision"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "revision"], name="unique_revision")
        ]


class Correction(models.Model):
    """One corrected text box of a submission (an annotator may give several)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="corrections")
    position = models.PositiveSmallIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["submission", "position"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "position"], name="unique_correction_slot")
        ]
