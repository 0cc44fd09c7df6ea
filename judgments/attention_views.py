"""Attention checks and dynamic assignment, the pieces of the pages and API for them: the
attention and assignment options of a new campaign, the pass-rate threshold under which judges
are left out of the results (campaign admins), the loud feedback after a check. Thin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import ServiceError
from core.models import User
from core.params import bounded_float
from core.permissions import IsPlatformAdmin, role_required
from core.roles import Role
from core.web import call_service, lookup
from judgments import attention, selectors, services
from judgments.models import Assignment, AttentionFeedback, Campaign
from judgments.services.dynamic import RULE_IN_WORDS


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


class AttentionOptionsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """The attention and assignment options of a new campaign (the API's create)."""

    attention_share = serializers.FloatField(
        default=0.0,
        min_value=0,
        max_value=1,
        help_text="share of each judge's items that are attention checks (at most 0.5)",
    )
    attention_feedback = serializers.ChoiceField(
        choices=AttentionFeedback.values, default=AttentionFeedback.SILENT
    )
    dynamic = serializers.BooleanField(
        default=False, help_text="choose each judge's next item by the dynamic-assignment rule"
    )


def creation_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The create service's attention and assignment arguments from a form's or API's data."""
    return {
        "attention_share": values["attention_share"],
        "attention_feedback": values["attention_feedback"],
        "dynamic": values["dynamic"],
    }


def campaign_settings(campaign: Campaign) -> dict[str, Any]:
    return {
        "attention_share": campaign.attention_share,
        "attention_feedback": campaign.attention_feedback,
        "attention_threshold": campaign.attention_threshold,
        "dynamic": campaign.dynamic,
    }


def campaign_attention(campaign: Campaign) -> dict[str, Any]:
    """For the campaign's admins: per judge the checks answered and passed, the pass rate and
    whether they are left out; the rule behind a dynamic campaign, in words."""
    return {
        "attention": attention.attention_summary(campaign),
        "assignment_rule": RULE_IN_WORDS if campaign.dynamic else None,
    }


def tell_loud_check(
    request: HttpRequest, assignment: Assignment, answer: dict[str, Any] | None = None
) -> None:
    """In a loud campaign, once a check is answered, what was expected: on the next page (a
    message; the ESA page posts to the API, then opens the next item) and in the API's
    answer. Silent campaigns and ordinary items: nothing."""
    text = attention.feedback(assignment)
    if not text:
        return
    if answer is not None:
        answer["feedback"] = text
    if hasattr(request, "session"):
        messages.info(request, text, extra_tags="attention-feedback")


def parse_threshold(raw: str | None) -> float | None:
    """The pass-rate threshold as typed: a percentage (0-100) or empty for none."""
    text = (raw or "").strip()
    if not text:
        return None
    value = bounded_float(text, field="attention_threshold", low=0, high=100, default=0)
    return value / 100.0


@role_required(Role.ADMIN)
@require_POST
def attention_threshold(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Set the pass rate (percent) under which judges are left out of the results."""
    campaign = lookup(selectors.campaign_for_admin, campaign_id, _user(request))
    try:
        threshold = parse_threshold(request.POST.get("threshold"))
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("judgments:results", campaign_id=campaign.pk)
    done = call_service(
        request,
        services.set_attention_threshold,
        campaign=campaign,
        threshold=threshold,
        by=_user(request),
    )
    if done is not None:
        summary = attention.attention_summary(campaign)
        messages.success(
            request,
            "Every judge counts in the results."
            if threshold is None
            else f"Judges under {threshold:.0%} left out: {len(summary['excluded_judges'])}"
            f" judges, {summary['excluded_judgments']} judgments.",
        )
    return redirect("judgments:results", campaign_id=campaign.pk)


class AttentionThresholdView(APIView):
    """POST {threshold: 0-1 or null} (campaign admins): judges whose attention-check pass
    rate is under it are left out of the results (recomputed); null counts everyone. The
    answer is the campaign's attention summary (pass rates, who is left out, how many
    judgments that removed)."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = selectors.campaign_for_admin(campaign_id, request.user)
        raw = request.data.get("threshold") if hasattr(request.data, "get") else None
        threshold = (
            None
            if raw in (None, "")
            else bounded_float(raw, field="threshold", low=0, high=1, default=0)
        )
        services.set_attention_threshold(campaign=campaign, threshold=threshold, by=request.user)
        return Response(attention.attention_summary(campaign))
