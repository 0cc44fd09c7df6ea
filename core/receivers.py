"""core's answers to signals: a superuser holds the admin role; a login lockout is audited."""

from __future__ import annotations

import logging
from typing import Any

from axes.models import AccessAttempt
from django.http import HttpRequest

from core.audit import log_action
from core.login_throttle import lockout_minutes
from core.models import User
from core.services import give_superuser_admin_role

logger = logging.getLogger(__name__)


def superuser_holds_admin_role(
    sender: type[User], instance: User, created: bool = False, raw: bool = False, **kwargs: Any
) -> None:
    """An account created as a superuser (`createsuperuser`, Django admin's add form, a
    shell) starts with the admin role, so the users page shows it ticked. Roles changed
    later on the users page stay as changed."""
    if created and not raw and instance.is_superuser:
        give_superuser_admin_role(instance)


def audit_lockout(
    sender: Any, request: HttpRequest, username: str | None, ip_address: str | None, **kwargs: Any
) -> None:
    """One audit entry when a lockout begins. django-axes sends the same signal for every
    attempt refused during the lockout; those carry no failure count and are skipped."""
    failures = getattr(request, "axes_failures_since_start", None)
    if failures is None:
        return
    subject: User | AccessAttempt | None = (
        User.objects.filter(username=username).first() if username else None
    )
    if subject is None:  # an unknown username: the attempt record itself is the subject
        subject = (
            AccessAttempt.objects.filter(username=username, ip_address=ip_address)
            .order_by("-attempt_time")
            .first()
        )
    if subject is None:
        logger.warning("login lockout of %r from %s left no attempt record", username, ip_address)
        return
    log_action(
        subject,
        None,
        "login.locked_out",
        {
            "username": username or "",
            "ip_address": ip_address or "",
            "failures": failures,
            "path": request.path,
            "minutes": lockout_minutes(),
        },
    )
