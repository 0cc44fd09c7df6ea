"""REST API of the datasets part (admins only): the same services as the pages."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.jobs import job_state
from core.permissions import IsPlatformAdmin
from datasets.formats import ImportFormat
from datasets.jobs import request_export, request_import
from datasets.models import DatasetVersion
from datasets.selectors import dataset_summaries, get_dataset, get_version
from datasets.services.exports import ExportFormat
from datasets.services.imports import natural_key
from datasets.services.releases import release_dataset
from datasets.views import statistics_for


class JobStateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    message = serializers.CharField()
    result = serializers.JSONField()
    finished = serializers.BooleanField()
    created_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    download = serializers.URLField(required=False)


class DatasetSummarySerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField()
    language = serializers.CharField()
    sentences = serializers.IntegerField()
    versions = serializers.ListField(child=serializers.CharField())


class ImportRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=100)
    format = serializers.ChoiceField(choices=[f.value for f in ImportFormat])
    files = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text="parallel: sources first, or give them as source_file",
    )
    source_file = serializers.FileField(required=False, help_text="parallel: the source file")
    source = serializers.CharField(required=False, allow_blank=True, default="")
    split = serializers.ChoiceField(
        choices=["", "dev", "test", "train"], required=False, default=""
    )
    language = serializers.ChoiceField(choices=["zh", "en"], required=False, default="zh")
    reference_style = serializers.ChoiceField(
        choices=["", "minimal", "fluency"],
        required=False,
        default="",
        help_text="stored on every imported reference; empty: unspecified",
    )


class ReleaseRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    note = serializers.CharField(required=False, allow_blank=True, default="")
    split = serializers.ChoiceField(
        choices=["", "dev", "test", "train"], required=False, default=""
    )
    source_names = serializers.ListField(
        child=serializers.CharField(), required=False, default=list
    )


class VersionSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    label = serializers.CharField()
    number = serializers.IntegerField()
    note = serializers.CharField()
    split = serializers.CharField()
    source_names = serializers.ListField(child=serializers.CharField())
    checksum = serializers.CharField()
    counts = serializers.JSONField()
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)


class ExportRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    format = serializers.ChoiceField(choices=[f.value for f in ExportFormat])
    release = serializers.CharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        default=None,
        help_text="release number; empty = live golden references",
    )
    include_annotations = serializers.BooleanField(required=False, default=False)


def version_data(version: DatasetVersion) -> dict[str, Any]:
    return {
        "id": version.pk,
        "label": version.label,
        "number": version.number,
        "note": version.note,
        "split": version.split,
        "source_names": version.source_names,
        "checksum": version.checksum,
        "counts": version.counts,
        "created_at": version.created_at.isoformat(),
        "created_by": version.created_by.username if version.created_by else None,
    }


class AdminAPIView(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]


class DatasetListAPI(AdminAPIView):
    @extend_schema(responses=DatasetSummarySerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    "name": row["dataset"].name,
                    "language": row["dataset"].language,
                    "sentences": row["sentences"],
                    "versions": [v.label for v in row["versions"]],
                }
                for row in dataset_summaries()
            ]
        )


class ImportAPI(AdminAPIView):
    """multipart: name, format, files (one or more; parallel: sources first), source, split,
    language, reference_style (minimal / fluency / empty: stored on every imported reference). Answers 202 with the job; poll /jobs/<id>/ (the quick start runs it at once)."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=ImportRequestSerializer, responses={202: JobStateSerializer})
    def post(self, request: Request) -> Response:
        # Parallel: `source_file` (optional field) goes first, then `files` in name order.
        references = (
            sorted(request.FILES.getlist("files"), key=lambda f: natural_key(f.name))
            if request.FILES.getlist("source_file")
            else request.FILES.getlist("files")
        )
        data = ImportRequestSerializer(
            data={
                **request.data.dict(),
                "files": request.FILES.getlist("source_file") + references,
            }
        )
        data.is_valid(raise_exception=True)
        values = data.validated_data
        job = request_import(
            user=request.user,
            name=values["name"].strip(),
            fmt=values["format"],
            uploads=[(f.name, f) for f in values["files"]],
            source_name=values["source"].strip(),
            split=values["split"],
            language=values["language"],
            reference_style=values["reference_style"],
        )
        job.refresh_from_db()
        return Response(job_state(job), status=status.HTTP_202_ACCEPTED)


class ReleaseListAPI(AdminAPIView):
    parser_classes = [JSONParser, FormParser]

    @extend_schema(responses=VersionSerializer(many=True))
    def get(self, request: Request, name: str) -> Response:
        dataset = get_dataset(name)
        return Response([version_data(v) for v in dataset.versions.order_by("-number")])

    @extend_schema(request=ReleaseRequestSerializer, responses={201: VersionSerializer})
    def post(self, request: Request, name: str) -> Response:
        data = ReleaseRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        version = release_dataset(
            dataset=get_dataset(name),
            user=request.user,
            note=values["note"],
            split=values["split"],
            source_names=list(values["source_names"]),
        )
        return Response(version_data(version), status=status.HTTP_201_CREATED)


class ExportAPI(AdminAPIView):
    """JSON: format, release (optional), include_annotations. 202 with the job; when it is
    done, its result has `download` (GET it to stream the file)."""

    parser_classes = [JSONParser, FormParser]

    @extend_schema(request=ExportRequestSerializer, responses={202: JobStateSerializer})
    def post(self, request: Request, name: str) -> Response:
        data = ExportRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        dataset = get_dataset(name)
        version = get_version(dataset, values["release"] or None)
        job = request_export(
            user=request.user,
            dataset=dataset,
            fmt=values["format"],
            version=version,
            include_annotations=values["include_annotations"],
        )
        job.refresh_from_db()
        state = job_state(job)
        state["download"] = request.build_absolute_uri(f"/datasets/exports/{job.pk}/download/")
        return Response(state, status=status.HTTP_202_ACCEPTED)


class StatsAPI(AdminAPIView):
    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        description="MuCGEC Table 3 / Figure 1 statistics; ?release=N for a release.",
    )
    def get(self, request: Request, name: str) -> Response:

        dataset = get_dataset(name)
        version = get_version(dataset, request.query_params.get("release") or None)
        return Response(statistics_for(dataset, version))
