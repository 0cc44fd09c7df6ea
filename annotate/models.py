"""The annotators' work on a dataset's sentences: assignments, submissions, corrections,
and the annotation guideline they follow.

Invariants live here (uniqueness, choices); workflows live in annotate/services.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from datasets.models import Sentence


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
        max_length=16,
        choices=AssignmentStatus.choices,
        default=AssignmentStatus.OPEN,
        db_index=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    time_spent_seconds = models.PositiveIntegerField(default=0)
    # A blind control item of a post-edit project: it opens with the source, not the
    # suggestion, and the annotator is not told (docs/workflow.md, "Post-edit annotation").
    blind = models.BooleanField(default=False)

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
    # Provenance, set by the service (never from the browser): the suggestion's label
    # ("" when none was applied, i.e. rewrite mode; "blind" for a blind item), its
    # signature and text as shown, and whether the submission is exactly one correction
    # equal to the suggestion.
    suggestion_source = models.CharField(max_length=120, blank=True, default="")
    suggestion_signature = models.CharField(max_length=255, blank=True, default="")
    suggestion_text = models.TextField(null=True, blank=True)
    unchanged = models.BooleanField(default=False)

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
    # Character edit distances (Levenshtein over characters) from the suggestion shown
    # (None when none was) and from the source to this text.
    distance_from_suggestion = models.PositiveIntegerField(null=True, blank=True)
    distance_from_source = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["submission", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "position"], name="unique_correction_slot"
            )
        ]


class Suggestion(models.Model):
    """A suggested correction of a sentence from one source: a system output of a release
    (`system:NAME`) or the configured LLM (`llm:MODEL`). One per (sentence, source), so a
    retried job updates instead of duplicating. A suggestion equal to the source is kept:
    it says "no error"."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="suggestions")
    source = models.CharField(max_length=120)
    # What reproduces the text: `system:NAME|release:LABEL|sha:...` or
    # `llm:MODEL|prompt:zh-v1|...`.
    signature = models.CharField(max_length=255)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sentence", "source"]
        constraints = [
            models.UniqueConstraint(
                fields=["sentence", "source"], name="unique_sentence_suggestion"
            )
        ]


class LLMSuggestionCache(models.Model):
    """The LLM's correction of one source text under one model and prompt version, so a
    retried or repeated run asks the model only about sources it has not answered."""

    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=40)
    source_sha256 = models.CharField(max_length=64)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["model", "prompt_version", "source_sha256"], name="unique_llm_suggestion"
            )
        ]


class GuidelineTask(models.TextChoices):
    ANNOTATION = "annotation", "annotation"
    REVIEW = "review", "review"
    RANKING = "ranking", "ranking outputs"
    EDITS = "edits", "judging edits"


class Guideline(models.Model):
    """A guideline (Markdown) for one task in one language, edited by admins; `version`
    counts edits. The Chinese annotation guideline keeps its historical slug "main"."""

    slug = models.SlugField(max_length=50, unique=True)
    task = models.CharField(
        max_length=16, choices=GuidelineTask.choices, default=GuidelineTask.ANNOTATION
    )
    language = models.CharField(max_length=2, default="zh", help_text="a dataset language")
    title = models.CharField(max_length=200)
    body = models.TextField(help_text="Markdown")
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A database from before guidelines had a task and language could hold several for one
    # (task, language); migration 0007 archived all but one instead of deleting them.
    archived = models.BooleanField(
        default=False,
        help_text="kept from before guidelines had a task and language; shown to no one but admins",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "language"],
                condition=models.Q(archived=False),
                name="unique_live_guideline_task_language",
            )
        ]

    def __str__(self) -> str:
        return self.title
