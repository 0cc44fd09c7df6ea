"""Pay rates per dataset (used by the annotator report)."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.db import transaction

from core.audit import log_action
from core.exceptions import ServiceError
from scoring.models import (
    PayRates,
)

logger = logging.getLogger("scoring.services")


def set_pay_rates(
    *,
    user: Any,
    per_submission: Decimal,
    per_review: Decimal,
    target_f05: float,
    min_factor: float,
    max_factor: float,
    currency: str = "CNY",
) -> PayRates:
    if per_submission < 0 or per_review < 0:
        raise ServiceError(
            "rates cannot be negative",
            field="per_submission" if per_submission < 0 else "per_review",
        )
    if not 0 < target_f05 <= 1:
        raise ServiceError("target F0.5 must be in (0, 1]", field="target_f05")
    if min_factor < 0 or max_factor < min_factor:
        raise ServiceError("need 0 <= min factor <= max factor", field="min_factor")
    with transaction.atomic():
        rates = PayRates.objects.create(
            per_submission=per_submission,
            per_review=per_review,
            target_f05=target_f05,
            min_factor=min_factor,
            max_factor=max_factor,
            currency=currency,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        log_action(
            rates,
            user,
            "scoring.pay_rates",
            {
                "per_submission": str(per_submission),
                "per_review": str(per_review),
                "target_f05": target_f05,
                "min_factor": min_factor,
                "max_factor": max_factor,
            },
        )
    return rates
