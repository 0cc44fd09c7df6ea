"""REST API of the datasets part (admins only): the same services as the pages."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.dataset_selectors import get_dataset, get_version
from annotate.exporting import request_export
from annotate.importing import request_import
from annotate.models import DatasetVersion
from annotate.releases import release_dataset
from core.jobs import job_state
from core.permissions import IsPlatformAdmin


def version_data(version: DatasetVersion) -> dict[str, Any]:
    return {
        "id": version.pk, "label": version.label, "number": version.number, "note": version.note,
        "split": version.split, "source_names": version.source_names, "checksum": version.checksum,
        "counts": version.counts, "created_at": version.created_at.isoformat(),
        "created_by": version.created_by.username if version.created_by else None,
    }


class AdminAPIView(APIView):
    permission_classes = [IsAuthenticated, IsPlatformAdmin]


class DatasetListAPI(AdminAPIView):
    def get(self, request: Request) -> Response:
        from annotate.dataset_selectors import dataset_summaries

        return Response([
            {"name": row["dataset"].name, "language": row["dataset"].language,
             "sentences": row["sentences"], "versions": [v.label for v in row["versions"]]}
            for row in dataset_summaries()
        ])


class ImportAPI(AdminAPIView):
    """multipart: name, format, files (one or more; parallel: sources first), source, split,
    language. Answers 202 with the job; poll /jobs/<id>/ (the quick start runs it at once)."""

    parser_classes = [MultiPartParser, FormParser]

    def post(self, request: Request) -> Response:
        job = request_import(
            user=request.user, name=str(request.data.get("name", "")).strip(),
            fmt=str(request.data.get("format", "")),
            uploads=[(f.name, f) for f in request.FILES.getlist("files")],
            source_name=str(request.data.get("source", "")).strip(),
            split=str(request.data.get("split", "")), language=str(request.data.get("language", "zh")),
        )
        job.refresh_from_db()
        return Response(job_state(job), status=status.HTTP_202_ACCEPTED)


class ReleaseListAPI(AdminAPIView):
    parser_classes = [JSONParser, FormParser]

    def get(self, request: Request, name: str) -> Response:
        dataset = get_dataset(name)
        return Response([version_data(v) for v in dataset.versions.order_by("-number")])

    def post(self, request: Request, name: str) -> Response:
        sources = request.data.get("source_names") or []
        if isinstance(sources, str):
            sources = [sources]
        version = release_dataset(
            dataset=get_dataset(name), user=request.user, note=str(request.data.get("note", "")),
            split=str(request.data.get("split", "")), source_names=list(sources),
        )
        return Response(version_data(version), status=status.HTTP_201_CREATED)


class ExportAPI(AdminAPIView):
    """JSON: format, release (optional), include_annotations. 202 with the job; when it is
    done, its result has `download` (GET it to stream the file)."""

    parser_classes = [JSONParser, FormParser]

    def post(self, request: Request, name: str) -> Response:
        dataset = get_dataset(name)
        version = get_version(dataset, request.data.get("release") or None)
        include = request.data.get("include_annotations") in (True, "true", "1", "on")
        job = request_export(user=request.user, dataset=dataset, fmt=str(request.data.get("format", "")),
                             version=version, include_annotations=include)
        job.refresh_from_db()
        data = job_state(job)
        data["download"] = request.build_absolute_uri(f"/datasets/exports/{job.pk}/download/")
        return Response(data, status=status.HTTP_202_ACCEPTED)


class StatsAPI(AdminAPIView):
    def get(self, request: Request, name: str) -> Response:
        from annotate.dataset_views import statistics_for

        dataset = get_dataset(name)
        version = get_version(dataset, request.query_params.get("release") or None)
        return Response(statistics_for(dataset, version))
