"""API of the three reference sets (docs/closest-gold.md). Admins only.

GET  /api/scoring/systems/<id>/reference-sets/[?partial=1]   golden, closest-gold, pooled
POST /api/scoring/systems/<id>/reference-sets/   {"refs": "closest-gold"|"pooled", "partial"?}
GET  /api/scoring/releases/<id>/reference-sets/  every system under each set, ranked
GET  /api/scoring/releases/<id>/closest-gold.jsonl  the closest-gold records (own kind)
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsPlatformAdmin
from datasets.selectors import release_by_id
from scoring import selectors
from scoring.models import SystemOutput
from scoring.reference_set_selectors import (
    SystemSets,
    reference_set_payload,
    release_sets,
    state_payload,
)
from scoring.services.closest_gold_files import closest_gold_records
from scoring.services.reference_sets import score_reference_set


def _truthy(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "yes", "on")


def _sets_payload(row: SystemSets, *, partial: bool) -> dict[str, Any]:
    return {
        "system": row.system.name,
        "system_id": row.system.pk,
        "sets": {
            name: state_payload(state, with_partial=partial) for name, state in row.sets.items()
        },
    }


class SystemReferenceSetsView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: dict})
    def get(self, request: Request, system_id: int) -> Response:
        system = selectors.get_system(system_id)
        rows = release_sets(list(SystemOutput.objects.filter(version=system.version)))
        mine = next(row for row in rows if row.system.pk == system.pk)
        partial = _truthy(request.query_params.get("partial", ""))
        return Response(_sets_payload(mine, partial=partial))

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request: Request, system_id: int) -> Response:
        system = selectors.get_system(system_id)
        score = score_reference_set(
            system=system,
            reference_set=str(request.data.get("refs", "")),
            partial=_truthy(request.data.get("partial", request.query_params.get("partial"))),
            user=request.user,
        )
        return Response(reference_set_payload(score))


class ReleaseReferenceSetsView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: dict})
    def get(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        rows = release_sets(list(SystemOutput.objects.filter(version=version).order_by("name")))
        partial = _truthy(request.query_params.get("partial", ""))
        return Response(
            {
                "release": version.label,
                "systems": [_sets_payload(row, partial=partial) for row in rows],
            }
        )


class ClosestGoldExportView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: str})
    def get(self, request: Request, version_id: int) -> HttpResponse:
        version = release_by_id(version_id)
        body = "".join(
            json.dumps(record.as_json(), ensure_ascii=False) + "\n"
            for record in closest_gold_records(version)
        )
        response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="closest_gold_release_{version.pk}.jsonl"'
        )
        return response
