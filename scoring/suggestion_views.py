"""The post-edit project's "Suggest corrections" action (admins): the form on the project page
(templates/review/project.html) and `POST /api/scoring/projects/<dataset>/suggestions/`, over
scoring/services/suggestions.py. Here rather than in review because system outputs live in
scoring. A system output is applied at once; the LLM runs as a job (progress, cancel and
retry at /jobs/<id>/)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsPlatformAdmin, role_required
from core.roles import Role
from core.web import call_service, lookup
from datasets.selectors import get_dataset
from scoring.services.suggestions import SuggestionRequest, request_suggestions


@role_required(Role.ADMIN)
@require_POST
def suggest_corrections(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    outcome = call_service(
        request,
        request_suggestions,
        dataset=dataset,
        choice=request.POST.get("source", ""),
        user=request.user,
        blind_share=request.POST.get("blind_share", "").strip() or None,
        seed=request.POST.get("seed", "").strip() or 0,
    )
    if outcome is not None and outcome.run is not None:
        run = outcome.run
        messages.success(
            request,
            f"{run.suggested} sentences have a suggestion from {run.source} "
            f"({run.unsuggested} without); {run.blind} blind assignments.",
        )
    elif outcome is not None and outcome.job is not None:
        messages.success(
            request,
            f"LLM suggestions queued (job {outcome.job.pk}: "
            f"{reverse('job-detail', args=[outcome.job.pk])}).",
        )
    return redirect("review:project", name=name)


def _body(outcome: SuggestionRequest) -> tuple[dict[str, object], int]:
    if outcome.run is not None:
        return {**outcome.run.as_json(), "unsuggested": outcome.run.unsuggested}, 200
    assert outcome.job is not None
    return {"job_id": outcome.job.pk, "status": outcome.job.status}, 202


class SuggestionsAPI(APIView):
    """{"source": "system:NAME" | "llm", "blind_share"?: F, "seed"?: S}: a system output
    answers 200 with {"dataset", "source", "suggested", "blind", "signature", "unsuggested"};
    the LLM answers 202 with the job's id."""

    permission_classes = [IsAuthenticated, IsPlatformAdmin]

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, name: str) -> Response:
        dataset = get_dataset(name)
        data = request.data if isinstance(request.data, dict) else {}
        outcome = request_suggestions(
            dataset=dataset,
            choice=data.get("source"),
            user=request.user,
            blind_share=data.get("blind_share"),
            seed=data.get("seed", 0),
        )
        body, status = _body(outcome)
        return Response(body, status=status)
