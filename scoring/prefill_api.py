"""REST API of the post-edit anchoring report (admins): the report of a dataset, or of one
of its releases' sentences with ``?release=N``. Thin: parse, refresh the annotator samples,
read the report (scoring/prefill_rows.py)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsPlatformAdmin
from datasets.selectors import dataset_by_id, get_version
from scoring import services
from scoring.prefill_rows import prefill_report


class AnchoringReportView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        parameters=[OpenApiParameter("release", str, description="a release number (3 or v3)")],
        responses={
            200: inline_serializer(
                name="AnchoringReport",
                fields={
                    "dataset": serializers.CharField(),
                    "release": serializers.CharField(allow_null=True),
                    "metric": serializers.CharField(),
                    "resamples": serializers.IntegerField(),
                    "seed": serializers.IntegerField(),
                    "confidence": serializers.FloatField(),
                    "overall": serializers.DictField(),
                    "annotators": serializers.ListField(child=serializers.DictField()),
                    "flagged": serializers.ListField(child=serializers.CharField()),
                },
            )
        },
    )
    def get(self, request: Request, dataset_id: int) -> Response:
        dataset = dataset_by_id(dataset_id)
        version = get_version(dataset, request.query_params.get("release"))
        services.refresh_annotator_scores(dataset_id=dataset.pk, user=request.user)
        report = prefill_report(dataset, version=version)
        return Response(
            {
                "dataset": dataset.name,
                "release": version.label if version is not None else None,
                **report.as_dict(),
            }
        )
