"""REST API of a release's publication (platform admins): metadata, report, publish."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import NotFound, ServiceError
from core.jobs import job_state
from core.permissions import IsPlatformAdmin
from datasets.selectors import release_by_id
from publishing import facts, jobs, services
from publishing.models import ReleaseMetadata, ReleaseReport

METADATA_FIELDS = (
    "description",
    "license",
    "upstream_licenses",
    "citation",
    "contact",
    "homepage",
    "reference_styles",
    "blocking_checks",
)


def metadata_data(metadata: ReleaseMetadata) -> dict[str, Any]:
    return {
        "release": metadata.version.label,
        **{name: getattr(metadata, name) for name in METADATA_FIELDS},
        "updated_at": metadata.updated_at.isoformat() if metadata.updated_at else None,
    }


def report_data(report: ReleaseReport) -> dict[str, Any]:
    return {
        "id": report.pk,
        "release": report.version.label,
        "created_at": report.created_at.isoformat(),
        "compared_with": report.compared_with,
        "findings": report.findings,
        "blocking": services.blocking_findings(report.version, report),
    }


class PublishingAPIView(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]
    parser_classes = [JSONParser]


class MetadataAPI(PublishingAPIView):
    """GET the release's metadata; PATCH any of its fields (JSON)."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, version_id: int) -> Response:
        return Response(metadata_data(facts.metadata_of(release_by_id(version_id))))

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def patch(self, request: Request, version_id: int) -> Response:
        if not isinstance(request.data, dict):
            raise ServiceError("send a JSON object of metadata fields", field="body")
        unknown = sorted(set(request.data) - set(METADATA_FIELDS))
        if unknown:
            raise ServiceError(
                f"unknown metadata field {unknown[0]!r} (fields: {', '.join(METADATA_FIELDS)})",
                field=unknown[0],
            )
        metadata = services.update_metadata(
            version=release_by_id(version_id), user=request.user, data=dict(request.data)
        )
        return Response(metadata_data(metadata))


class ReportAPI(PublishingAPIView):
    """GET the newest report (404 when none); POST runs the checks as a job (202)."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        report = services.latest_report(version)
        if report is None:
            raise NotFound(f"{version.label} has no report yet; POST to run it", field="report")
        return Response(report_data(report))

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, version_id: int) -> Response:
        job = jobs.request_report(version=release_by_id(version_id), user=request.user)
        job.refresh_from_db()
        return Response(job_state(job), status=status.HTTP_202_ACCEPTED)


class PublishAPI(PublishingAPIView):
    """POST writes the publishable folder as a job (202); its result names the archive,
    downloaded from /publishing/jobs/<id>/download/."""

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, version_id: int) -> Response:
        job = jobs.request_publish(version=release_by_id(version_id), user=request.user)
        job.refresh_from_db()
        state = job_state(job)
        state["download"] = request.build_absolute_uri(f"/publishing/jobs/{job.pk}/download/")
        return Response(state, status=status.HTTP_202_ACCEPTED)


class ReferenceFileAPI(APIView):
    """multipart: name, file (one sentence a line, M2 or MuCGEC; gzip accepted). 201 with
    the stored file's name and sentence count; the next report checks releases against it."""

    permission_classes = [IsAuthenticated, IsPlatformAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        upload = request.FILES.get("file")
        if upload is None:
            raise ServiceError("attach the file as `file`", field="file")
        reference = services.add_reference_file(
            name=str(request.data.get("name", "")),
            upload=upload,
            file_name=upload.name,
            user=request.user,
        )
        return Response(
            {"name": reference.name, "sentences": len(reference.sentences)},
            status=status.HTTP_201_CREATED,
        )
