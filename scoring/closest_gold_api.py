"""REST API of closest-gold tasks (docs/closest-gold.md).

    POST /api/scoring/releases/<id>/closest-gold/      admins: {"systems": [ids], "per_item"?,
                                                       "verifiers"?: [user ids]} -> the task (201)
    GET  /api/scoring/closest-gold/<id>/               the task and its progress
    GET  /api/scoring/closest-gold/<id>/next/          reviewers: the next item to verify (204: none)
    POST /api/scoring/closest-gold/items/<id>/verify/  reviewers: {"decision", "text"?,
                                                       "time_spent_seconds"?} (201)

ServiceError becomes ``{"detail", "field"}`` with its status (core.api.exception_handler).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import ServiceError
from core.models import User
from core.params import MAX_ID
from core.permissions import IsPlatformAdmin, IsReviewerOrAdmin
from datasets.selectors import release_by_id
from scoring import closest_gold_selectors as cg_selectors
from scoring import services
from scoring.models import ClosestGoldItem, ClosestGoldTask, SystemOutput, VerificationDecision
from scoring.services.closest_gold import MAX_PER_ITEM, check_verifier


class TaskCreateSerializer(serializers.Serializer):
    systems = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), allow_empty=False
    )
    per_item = serializers.IntegerField(min_value=1, max_value=MAX_PER_ITEM, default=1)
    verifiers = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), default=list
    )


class VerifySerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=VerificationDecision.values)
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    time_spent_seconds = serializers.IntegerField(min_value=0, max_value=10**6, default=0)


TASK_SCHEMA = inline_serializer(
    name="ClosestGoldTask",
    fields={
        "id": serializers.IntegerField(),
        "release": serializers.CharField(),
        "systems": serializers.ListField(child=serializers.CharField()),
        "per_item": serializers.IntegerField(),
        "llm_model": serializers.CharField(),
        "prompt_version": serializers.CharField(),
        "job_id": serializers.IntegerField(allow_null=True),
        "progress": serializers.DictField(child=serializers.IntegerField()),
    },
)
ITEM_SCHEMA = inline_serializer(
    name="ClosestGoldItem",
    fields={
        "id": serializers.IntegerField(),
        "position": serializers.IntegerField(),
        "source": serializers.CharField(),
        "output": serializers.CharField(),
        "proposal": serializers.CharField(allow_null=True),
        "proposal_model": serializers.CharField(),
        "proposal_prompt_version": serializers.CharField(),
    },
)


def task_body(task: ClosestGoldTask) -> dict[str, Any]:
    return {
        "id": task.pk,
        "release": task.version.label,
        "systems": [system.name for system in task.systems.order_by("name")],
        "per_item": task.per_item,
        "llm_model": task.llm_model,
        "prompt_version": task.prompt_version,
        "job_id": task.background_job_id,
        "progress": cg_selectors.task_progress(task),
    }


def item_body(item: ClosestGoldItem) -> dict[str, Any]:
    return {
        "id": item.pk,
        "position": item.position,
        "source": cg_selectors.source_of(item),
        "output": item.output,
        "proposal": item.proposal,
        "proposal_model": item.proposal_model,
        "proposal_prompt_version": item.proposal_prompt_version,
    }


def _by_ids(model: type[Any], ids: list[int], field: str) -> list[Any]:
    found = list(model.objects.filter(pk__in=ids))
    missing = sorted(set(ids) - {row.pk for row in found})
    if missing:
        raise ServiceError(f"unknown {field}: {', '.join(map(str, missing))}", field=field)
    return found


class TaskCreateView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=TaskCreateSerializer, responses={201: TASK_SCHEMA})
    def post(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        form = TaskCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        task = services.create_closest_gold_task(
            version=version,
            systems=_by_ids(SystemOutput, data["systems"], "systems"),
            verifiers=_by_ids(User, data["verifiers"], "verifiers"),
            per_item=data["per_item"],
            user=request.user,
        )
        return Response(task_body(task), status=201)


class TaskDetailView(APIView):
    permission_classes = [IsReviewerOrAdmin]

    @extend_schema(responses={200: TASK_SCHEMA})
    def get(self, request: Request, task_id: int) -> Response:
        return Response(task_body(cg_selectors.get_task(task_id)))


class NextItemView(APIView):
    permission_classes = [IsReviewerOrAdmin]

    @extend_schema(responses={200: ITEM_SCHEMA, 204: OpenApiResponse(description="none left")})
    def get(self, request: Request, task_id: int) -> Response:
        task = cg_selectors.get_task(task_id)
        item = services.next_item(task=task, verifier=request.user)
        if item is None:
            return Response(status=204)
        return Response(item_body(item))


class VerifyView(APIView):
    permission_classes = [IsReviewerOrAdmin]

    @extend_schema(
        request=VerifySerializer,
        responses={
            201: inline_serializer(
                name="ClosestGoldVerification",
                fields={
                    "id": serializers.IntegerField(),
                    "item": serializers.IntegerField(),
                    "decision": serializers.CharField(),
                    "text": serializers.CharField(),
                },
            )
        },
    )
    def post(self, request: Request, item_id: int) -> Response:
        item = cg_selectors.get_item(item_id)
        check_verifier(item.task, request.user)
        form = VerifySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        verification = services.submit_verification(
            item_id=item.pk,
            verifier=request.user,
            decision=data["decision"],
            text=data.get("text", ""),
            time_spent_seconds=data["time_spent_seconds"],
        )
        return Response(
            {
                "id": verification.pk,
                "item": item.pk,
                "decision": verification.decision,
                "text": verification.text,
            },
            status=201,
        )
