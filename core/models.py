from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """The platform's user. Roles come from groups (see core.roles)."""

    display_name = models.CharField(max_length=150, blank=True)

    class Meta:
        permissions = [
            ("annotate_sentences", "Can annotate assigned sentences"),
            ("review_sentences", "Can review merged corrections"),
            ("manage_platform", "Can manage datasets, users, exports and scoring"),
        ]

    def __str__(self) -> str:
        return self.display_name or self.username


class AuditLog(models.Model):
    """Who did what to which object, and with which data: written by services only."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=64, db_index=True)
    object_type = models.CharField(max_length=100)
    object_id = models.CharField(max_length=64)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.object_type}#{self.object_id}"


class Notification(models.Model):
    """A message on a user's dashboard (complaint answered, study item due, ...)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    text = models.CharField(max_length=500)
    url = models.CharField(max_length=500, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class JobStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


class BackgroundJob(models.Model):
    """Progress of one long piece of work (an import, an export, a scoring run).

    Generic on purpose: `kind` says what the work is ("datasets.import", "scoring.run", ...),
    `result` holds whatever the finished work wants to hand back (ids, counts, a file path).
    Written only through core/jobs.py so pages can poll one JSON endpoint for any job.
    """

    kind = models.CharField(max_length=64, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="background_jobs",
    )
    status = models.CharField(
        max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The lease: a running job's worker pushes `lease_expires_at` forward (every progress
    # report and a heartbeat thread); once it lies in the past the worker is gone and the
    # sweeper (core.jobs.sweep_expired_jobs) fails the job as retryable. Null = not leased
    # (work run in-process on SQLite, the quick start), never swept.
    lease_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Which claim (worker host, pid, random part) runs the job: a re-delivered task or a
    # worker whose lease was taken over cannot finish or fail someone else's run.
    claim = models.CharField(max_length=128, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    retryable = models.BooleanField(default=False)
    # The Celery task (name and arguments) that runs the job, so "Retry" can queue it again.
    task_name = models.CharField(max_length=128, blank=True)
    task_args = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def is_finished(self) -> bool:
        return self.status in (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)

    @property
    def percent(self) -> int:
        if self.status == JobStatus.DONE:
            return 100
        if not self.total:
            return 0
        return min(100, int(100 * self.done / self.total))

    def __str__(self) -> str:
        return f"{self.kind}#{self.pk} {self.status} {self.done}/{self.total}"
