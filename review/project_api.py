"""REST API of annotation projects (admins): the same services as the project page.

GET/PATCH /api/projects/<dataset>/            k, stale deadline, pools, who is assigned what
POST      /api/projects/<dataset>/<pool>/     {"names": [...] or "a, b"} adds to a pool
DELETE    /api/projects/<dataset>/<pool>/<username>/  takes a user out of a pool
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.suggestions import blind_total
from core.exceptions import ServiceError
from core.permissions import IsPlatformAdmin
from datasets.models import Dataset
from datasets.selectors import get_dataset
from datasets.services.projects import (
    add_to_pool,
    parse_pool,
    remove_from_pool,
    set_annotation_mode,
    set_annotator_reference_style,
    update_project_settings,
)
from review import selectors


def project_body(dataset: Dataset) -> dict[str, Any]:
    members = selectors.project_members(dataset)
    return {
        "dataset": dataset.name,
        "annotators_per_sentence": dataset.annotators_per_sentence,
        "stale_after_hours": dataset.stale_after_hours,
        "annotator_reference_style": dataset.annotator_reference_style,
        "annotation_mode": dataset.annotation_mode,
        "suggestion_source": dataset.suggestion_source,
        "blind_assignments": blind_total(dataset),
        "annotators": [m.user.username for m in members if m.in_annotator_pool],
        "reviewers": [m.user.username for m in members if m.in_reviewer_pool],
        "members": [
            {
                "username": m.user.username,
                "active": m.user.is_active,
                "open": m.open,
                "submitted": m.submitted,
                "withdrawn": m.withdrawn,
                "reviews_waiting": m.reviews_waiting,
                "reviews_open": m.reviews_open,
                "reviews_done": m.reviews_done,
            }
            for m in members
        ],
    }


class ProjectAPI(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT, description="A dataset's annotation project.")
    def get(self, request: Request, name: str) -> Response:
        return Response(project_body(get_dataset(name)))

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses=OpenApiTypes.OBJECT,
        description="Set annotators_per_sentence (k), stale_after_hours and/or "
        "annotator_reference_style (minimal / fluency / empty: the style of the references "
        "taken from the annotator pool's corrections) and/or annotation_mode (rewrite / "
        "post-edit).",
    )
    def patch(self, request: Request, name: str) -> Response:
        dataset = get_dataset(name)
        data = request.data if isinstance(request.data, dict) else {}
        fields = {
            "annotators_per_sentence",
            "stale_after_hours",
            "annotator_reference_style",
            "annotation_mode",
        }
        unknown = sorted(set(data) - fields)
        if unknown:
            raise ServiceError(f"unknown field(s): {', '.join(unknown)}", field=unknown[0])
        with transaction.atomic():  # all the fields or none
            dataset = update_project_settings(
                dataset=dataset,
                by=request.user,
                annotators_per_sentence=data.get(
                    "annotators_per_sentence", dataset.annotators_per_sentence
                ),
                stale_after_hours=data.get("stale_after_hours", dataset.stale_after_hours),
            )
            if "annotator_reference_style" in data:
                set_annotator_reference_style(
                    dataset=dataset, by=request.user, style=data["annotator_reference_style"]
                )
                dataset.refresh_from_db()
            if "annotation_mode" in data:
                dataset = set_annotation_mode(
                    dataset=dataset, by=request.user, mode=data["annotation_mode"]
                )
        return Response(project_body(dataset))


class PoolAPI(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses=OpenApiTypes.OBJECT,
        description='Add users to a pool: {"names": ["alice", "bob@example.org"]}.',
    )
    def post(self, request: Request, name: str, pool: str) -> Response:
        dataset = get_dataset(name)
        names = request.data.get("names", "") if isinstance(request.data, dict) else ""
        if isinstance(names, list):
            if not all(isinstance(n, str) for n in names):
                raise ServiceError("names must be usernames or e-mail addresses", field="names")
            names = "\n".join(names)
        change = add_to_pool(dataset=dataset, by=request.user, pool=pool, names=names)
        return Response({"added": change.added, "already": change.already, **project_body(dataset)})


class PoolMemberAPI(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT, description="Take a user out of a pool.")
    def delete(self, request: Request, name: str, pool: str, username: str) -> Response:
        dataset = get_dataset(name)
        members = getattr(dataset, parse_pool(pool).value)
        user = members.filter(username=username).first()
        if user is None:
            raise ServiceError(f"{username} is not in the {pool} pool", field=pool)
        remove_from_pool(dataset=dataset, by=request.user, pool=pool, user_id=user.pk)
        return Response(project_body(dataset))


urlpatterns = [
    path("projects/<slug:name>/", ProjectAPI.as_view(), name="api-project"),
    path("projects/<slug:name>/<str:pool>/", PoolAPI.as_view(), name="api-project-pool"),
    path(
        "projects/<slug:name>/<str:pool>/<str:username>/",
        PoolMemberAPI.as_view(),
        name="api-project-pool-member",
    ),
]
