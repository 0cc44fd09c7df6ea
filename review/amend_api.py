"""REST API of review amendments: a saved review amended by its reviewer or an
admin, and the task's amendment history."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from review import amendments, selectors
from review.api import ReferenceSerializer, ReviewSubmitSerializer, _RoleReviewerOrAdmin, _validated
from review.models import ReviewAmendment


class ReviewAmendSerializer(ReviewSubmitSerializer):
    reason = serializers.CharField(required=False, default="", allow_blank=True, max_length=2000)


def amendment_data(amendment: ReviewAmendment) -> dict[str, Any]:
    return {
        "id": amendment.pk,
        "amended_by": amendment.amended_by.username if amendment.amended_by else None,
        "amended_at": amendment.amended_at.isoformat(),
        "reason": amendment.reason,
        "before": amendment.before,
        "after": amendment.after,
    }


class ReviewAmendView(APIView):
    """GET: the task's amendment history (newest first). POST (the task's reviewer or an
    admin, on a saved review): the same body as submit plus `reason`, built on the task's
    current `version`; a new revision of the golden references (frozen releases unchanged)."""

    permission_classes = [_RoleReviewerOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = selectors.get_review_task_for(request.user, task_id)
        return Response([amendment_data(a) for a in task.amendments.select_related("amended_by")])

    @extend_schema(request=ReviewAmendSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        selectors.get_review_task_for(request.user, task_id)
        data = _validated(ReviewAmendSerializer, request.data)
        outcome = amendments.amend_review(
            task_id=task_id,
            user=request.user,
            version=data["version"],
            verdicts=[dict(v) for v in data["verdicts"]],
            added=data["added"],
            judgement=data["judgement"],
            time_spent_seconds=data["time_spent_seconds"],
            reason=data["reason"],
        )
        latest = outcome.task.amendments.select_related("amended_by").first()
        return Response(
            {
                "references": ReferenceSerializer(outcome.references, many=True).data,
                "study_items": [item.pk for item in outcome.study_items],
                "notes": outcome.notes,
                "amendment": amendment_data(latest) if latest else None,
            },
            status=201,
        )


urlpatterns = [
    path("review-tasks/<int:task_id>/amend/", ReviewAmendView.as_view(), name="api-review-amend"),
]
