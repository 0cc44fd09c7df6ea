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
