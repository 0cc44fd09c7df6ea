"""The review workflow: review tasks, verdicts, self-study, complaints, guidelines.

GoldenReference rows are never edited in place: a review or an accepted complaint writes a
new revision (is_current=True) and marks the previous rows is_current=False, so every
version a score or an export used can be reconstructed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from datasets.models import GoldenReference, ReferenceKind, Sentence

# --- Review workflow ---------------------------------------------------------------------
# Self-study, complaints and guidelines live here beside the review models (rather than in
# annotate/models.py) so this workflow's migrations never race the dataset/import ones.


class ReviewStatus(models.TextChoices):
    WAITING = "waiting", "waiting for annotators"
    OPEN = "open", "ready for review"
    DONE = "done", "reviewed"


class ReviewTask(models.Model):
    """One sentence given to one reviewer (a senior annotator who did not annotate it).

    `version` is the optimistic-concurrency counter: a save names the version it was built
    on, and only one save per version can win.
    """

    sentence = models.OneToOneField(Sentence, on_delete=models.CASCADE, related_name="review_task")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_tasks"
    )
    status = models.CharField(
        max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.WAITING, db_index=True
    )
    version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    time_spent_seconds = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["sentence__position", "id"]

    def __str__(self) -> str:
        return f"review of {self.sentence}"


class Verdict(models.Model):
    """The reviewer's judgement of one merged candidate (a distinct correction or tag)."""

    task = models.ForeignKey(ReviewTask, on_delete=models.CASCADE, related_name="verdicts")
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=ReferenceKind.choices)
    text = models.TextField(help_text="the candidate as the annotators wrote it")
    is_correct = models.BooleanField()
    edited_text = models.TextField(blank=True, help_text="the reviewer's edit, if any")
    submissions = models.ManyToManyField("annotate.Submission", related_name="verdicts")

    class Meta:
        ordering = ["task", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="unique_verdict_slot")
        ]


class StudyStatus(models.TextChoices):
    OPEN = "open", "to study"
    DONE = "done", "revised"


class StudyReason(models.TextChoices):
    WRONG_CORRECTION = "wrong_correction", "a correction was judged wrong"
    TAG_DISAGREED = "tag_disagreed", "the tag disagreed with the review"


class StudyItem(models.Model):
    """A reviewed sentence an annotator got wrong and must study and revise."""

    assignment = models.ForeignKey(
        "annotate.Assignment", on_delete=models.CASCADE, related_name="study_items"
    )
    task = models.ForeignKey(ReviewTask, on_delete=models.CASCADE, related_name="study_items")
    reason = models.CharField(max_length=24, choices=StudyReason.choices)
    status = models.CharField(
        max_length=8, choices=StudyStatus.choices, default=StudyStatus.OPEN, db_index=True
    )
    revision = models.ForeignKey(
        "annotate.Submission", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "task"], name="unique_study_item")
        ]


class ComplaintStatus(models.TextChoices):
    OPEN = "open", "open"
    ACCEPTED = "accepted", "accepted (references revised)"
    REJECTED = "rejected", "rejected"


class Complaint(models.Model):
    """An annotator's objection to a golden reference, discussed in a thread."""

    study_item = models.ForeignKey(StudyItem, on_delete=models.CASCADE, related_name="complaints")
    reference = models.ForeignKey(
        GoldenReference,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="complaints",
        help_text="the reference complained about; empty = the reference set as a whole",
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="complaints"
    )
    status = models.CharField(
        max_length=8, choices=ComplaintStatus.choices, default=ComplaintStatus.OPEN, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolution_note = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class ComplaintMessage(models.Model):
    complaint = models.ForeignKey(Complaint, on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class ReviewAmendment(models.Model):
    """A saved review replaced by a new one: who amended it, when, why, and the
    review before and after (sentence status, verdicts, current golden references). The
    golden references themselves keep every revision; a frozen release is never changed."""

    task = models.ForeignKey(ReviewTask, on_delete=models.CASCADE, related_name="amendments")
    amended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    amended_at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)
    before = models.JSONField(help_text="{judgement, verdicts, references, saved_by, saved_at}")
    after = models.JSONField(help_text="the same, as amended")

    class Meta:
        ordering = ["-amended_at", "-id"]

    def __str__(self) -> str:
        return f"amendment of {self.task}"
