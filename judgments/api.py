"""REST API of judgment campaigns (DRF; session or token auth).

Judges see their own items only: the source and the outputs in their shown order, never a
system name, never another judge's answer. Campaign admins (role admin, named on the
campaign) see systems, results and exports. Others' objects answer 404.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.http import HttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import NotFound, ServiceError
from core.jobs import job_state
from core.models import User
from core.params import MAX_ID, MAX_INT32, bounded_float
from core.permissions import IsPlatformAdmin
from datasets.models import DatasetVersion
from datasets.selectors import get_dataset, get_version
from judgments import esa as esa_mode
from judgments import results, selectors, services
from judgments.jobs import request_judgments_import
from judgments.models import Assignment, Campaign, CampaignMode

# --- serializers ---------------------------------------------------------------------------


class CampaignCreateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=100)
    mode = serializers.ChoiceField(choices=CampaignMode.values, default=CampaignMode.RANKING)
    release = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="DatasetVersion id")
    systems = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="names of the release's stored system outputs to judge",
    )
    system_outputs = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True)),
        required=False,
        help_text="{name: one line per released sentence}, instead of `systems`",
    )
    judges = serializers.ListField(child=serializers.CharField(), help_text="user names")
    admins = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    judges_per_item = serializers.IntegerField(
        default=2, min_value=1, max_value=selectors.MAX_JUDGES_PER_ITEM
    )
    outputs_per_item = serializers.IntegerField(
        default=5, min_value=2, max_value=selectors.MAX_OUTPUTS_PER_ITEM
    )
    agreement_share = serializers.FloatField(default=0.0, min_value=0, max_value=1)
    consistency_share = serializers.FloatField(default=0.1, min_value=0, max_value=1)
    seed = serializers.IntegerField(default=0, min_value=0, max_value=MAX_INT32)
    include_references = serializers.BooleanField(
        default=False, help_text="add the release's references as a hidden control system REF"
    )
    guideline = serializers.CharField(required=False, default="", allow_blank=True)


def users_named(names: list[str], field: str) -> list[User]:
    users = list(User.objects.filter(username__in=names, is_active=True))
    missing = sorted(set(names) - {u.username for u in users})
    if missing:
        raise ServiceError(f"no active user {', '.join(missing)}", field=field)
    return users


def admin_campaign_data(campaign: Campaign) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "mode": campaign.mode,
        "release": campaign.release.label if campaign.release else None,
        "release_id": campaign.release_id,
        "language": campaign.language,
        "judges_per_item": campaign.judges_per_item,
        "outputs_per_item": campaign.outputs_per_item,
        "agreement_share": campaign.agreement_share,
        "consistency_share": campaign.consistency_share,
        "systems": list(campaign.systems.values_list("name", flat=True)),
        "judges": list(campaign.judges.values_list("username", flat=True)),
        "items": campaign.items.count(),
        "assignments": campaign.assignments.count(),
    }


def judge_item_data(assignment: Assignment) -> dict[str, Any]:
    """What a judge gets: no system name, no repeat flag, no other judge."""
    campaign = assignment.campaign
    done, total = selectors.judge_progress(campaign, assignment.judge)
    view = (
        esa_mode.esa_view(assignment)
        if campaign.mode == CampaignMode.ESA
        else selectors.judge_view_of_item(assignment.item, language=campaign.language)
    )
    return {
        "assignment": assignment.pk,
        "campaign": campaign.pk,
        "mode": campaign.mode,
        "language": campaign.language,
        "status": assignment.status,
        "progress": {"done": done, "total": total},
        **view,
    }


# --- views ---------------------------------------------------------------------------------


class CampaignListView(APIView):
    """GET: campaigns you administer (with systems) and campaigns you judge (your progress).
    POST (admin): create a campaign on a release."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="judgment_campaigns_list", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        return Response(
            {
                "administered": [
                    admin_campaign_data(c)
                    for c in selectors.campaigns_administered_by(request.user)
                ],
                "judging": selectors.campaigns_judged_by(request.user),
            }
        )

    @extend_schema(request=CampaignCreateSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request) -> Response:
        if not IsPlatformAdmin().has_permission(request, self):
            return Response({"detail": "only admins create campaigns"}, status=403)
        data = CampaignCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        release = DatasetVersion.objects.filter(pk=values["release"]).first()
        if release is None:
            raise NotFound(f"no release {values['release']}", field="release")
        outputs = values.get("system_outputs")
        if outputs is None:
            stored = selectors.release_system_outputs(release)
            names = values.get("systems") or []
            unknown = [n for n in names if n not in stored]
            if unknown:
                raise ServiceError(
                    f"{release.label} has no system output {', '.join(unknown)}", field="systems"
                )
            outputs = {n: stored[n] for n in names}
        campaign = services.create_campaign(
            name=values["name"],
            mode=values["mode"],
            release=release,
            system_outputs=outputs,
            judges=users_named(values["judges"], "judges"),
            admins=users_named(values["admins"], "admins"),
            judges_per_item=values["judges_per_item"],
            outputs_per_item=values["outputs_per_item"],
            agreement_share=values["agreement_share"],
            consistency_share=values["consistency_share"],
            seed=values["seed"],
            include_references=values["include_references"],
            guideline=values["guideline"],
            created_by=request.user,
        )
        return Response(admin_campaign_data(campaign), status=201)


class CampaignDetailView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(
            admin_campaign_data(selectors.campaign_for_admin(campaign_id, request.user))
        )


class CampaignImportView(APIView):
    """POST multipart {campaign: name, file: Appraise XML (.xml or .xml.gz), release?:
    "dataset@vN"}: 202 with the import job (poll /jobs/<id>/); a file above a limit
    (413), malformed XML (400) or another admin's campaign (404) is refused at once. The
    import is all or nothing; a failed job's message names the place in the file."""

    permission_classes = [IsPlatformAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request=inline_serializer(
            "JudgmentImport",
            {
                "campaign": serializers.CharField(),
                "file": serializers.FileField(),
                "release": serializers.CharField(required=False),
            },
        ),
        responses=OpenApiTypes.OBJECT,
    )
    def post(self, request: Request) -> Response:
        name = str(request.data.get("campaign", "")).strip()
        upload = request.FILES.get("file")
        if not name:
            raise ServiceError("name the campaign", field="campaign")
        if upload is None:
            raise ServiceError("attach the XML file", field="file")
        label = str(request.data.get("release", "")).strip()
        job = request_judgments_import(
            user=request.user,
            campaign_name=name,
            upload=upload,
            file_name=upload.name or "upload.xml",
            release=_release_from_label(label) if label else None,
        )
        job.refresh_from_db()
        return Response(job_state(job), status=202)


def _release_from_label(label: str) -> DatasetVersion:
    dataset_name, _, number = label.partition("@")
    version = get_version(get_dataset(dataset_name), number) if number else None
    if version is None:
        raise NotFound(f"no release {label!r} (write dataset@vN)", field="release")
    return version


class CampaignExportView(APIView):
    """GET ?as=xml (Appraise, the default; edit verdicts as <edit> elements, ESA spans as
    <esa-span> elements) | csv (WMT pairwise, expanded) | csv-unexpanded | edits-csv (one row
    per judged edit) | esa-scores (an ESA campaign's mean scores, WMT human-score layout).
    (DRF keeps `format` for itself.)"""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={(200, "application/xml"): OpenApiTypes.STR})
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        campaign = selectors.campaign_for_admin(campaign_id, request.user)
        layout = request.query_params.get("as", "xml")
        if layout == "esa-scores":
            text = services.export_esa_scores(campaign=campaign, by=request.user)
            kind, suffix = "text/plain", "esa.txt"
        elif layout == "edits-csv":
            text = services.export_edit_verdicts_csv(campaign=campaign, by=request.user)
            kind, suffix = "text/csv", "edits.csv"
        elif layout in ("csv", "csv-unexpanded"):
            text = services.export_pairwise_csv(
                campaign=campaign, by=request.user, expanded=layout == "csv"
            )
            kind, suffix = "text/csv", "csv"
        else:
            text = services.export_judgments(campaign=campaign, by=request.user)
            kind, suffix = "application/xml", "xml"
        response = HttpResponse(text, content_type=f"{kind}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.name}.{suffix}"'
        return response


def results_query(params: Any) -> dict[str, Any]:
    """The results' parameters as a request gives them (query string or POST body)."""
    return {
        "method": params.get("method"),
        "bootstrap": params.get("bootstrap"),
        "seed": params.get("seed"),
        "runs": params.get("runs"),
    }


class CampaignResultsView(APIView):
    """The campaign's results, computed by a background job and served from storage
    (judgments/results.py, docs/judgments.md): never computed in the request.

    GET ?method=ew|trueskill|both (both)&bootstrap=N (200, as the page)&seed=S (the
    campaign's)&runs=R (1,000)&verdicts=1: 200 with the human_ranking JSON plus per-judge
    statistics, `edits` (null in a ranking campaign: edit precision per system with bootstrap
    intervals, kappa on verdicts and the verdict-based ranking), `status` "done",
    `computed_at`; with verdicts=1 also `edit_verdicts`, one row per judged edit. When the
    stored results are missing or stale (judgments came in, or other parameters), their
    computation is queued and the answer is 202: `status` queued|running, the `job`'s
    progress (poll /jobs/<id>/ or this URL) and the `previous` results, marked `stale`.
    A parameter out of range, or a campaign past a bound, is a 400 naming the field and the
    setting (GEC_RESULTS_MAX_*). POST (same parameters, query or body): compute again (202)."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = selectors.campaign_for_admin(campaign_id, request.user)
        params = results.parameters(results_query(request.query_params), campaign)
        outcome = results.results_for(campaign, params, user=request.user)
        return _results_answer(request, campaign, outcome)

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = selectors.campaign_for_admin(campaign_id, request.user)
        body = request.data if hasattr(request.data, "get") else {}
        given = {
            name: value for name, value in results_query(body).items() if value not in (None, "")
        }
        query = {**results_query(request.query_params), **given}
        params = results.parameters(query, campaign)
        outcome = results.results_for(campaign, params, user=request.user, force=True)
        return _results_answer(request, campaign, outcome)


def _results_answer(request: Request, campaign: Campaign, outcome: results.Outcome) -> Response:
    if outcome.status != "done" or outcome.report is None:
        return Response(results.outcome_state(outcome), status=outcome.http_status)
    row = outcome.row
    report = {
        **outcome.report,
        "status": "done",
        "stale": False,
        "computed_at": row.computed_at.isoformat() if row.computed_at else None,
        "compute_seconds": round(row.seconds, 2),
        "job": row.job_id,
    }
    if request.query_params.get("verdicts") in ("1", "true", "yes"):
        report["edit_verdicts"] = selectors.edit_verdict_rows(campaign)
    return Response(report)


class ReassignStaleView(APIView):
    """POST {minutes}: items opened longer ago than that and not finished go to other judges."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = selectors.campaign_for_admin(campaign_id, request.user)
        minutes = bounded_float(
            request.data.get("minutes"),
            field="minutes",
            low=0,
            high=selectors.MAX_STALE_MINUTES,
            default=60,
        )
        moved = services.reassign_stale(
            campaign=campaign, older_than=timedelta(minutes=minutes), by=request.user
        )
        return Response({"reassigned": [a.pk for a in moved]})


class NextItemView(APIView):
    """GET: your next item in the campaign (204 when you are done)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = Campaign.objects.filter(pk=campaign_id, judges=request.user).first()
        if campaign is None:
            raise NotFound(f"no judgment campaign {campaign_id} of yours", field="campaign")
        assignment = services.next_assignment(campaign=campaign, judge=request.user)
        if assignment is None:
            return Response(status=204)
        return Response(judge_item_data(assignment))


class AssignmentView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = selectors.assignment_for_judge(assignment_id, request.user)
        services.start_assignment(assignment)
        return Response(judge_item_data(assignment))


class SubmitSerializer(serializers.Serializer):  # type: ignore[type-arg]
    ranks = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_INT32),
        required=False,
        default=list,
    )
    edit_verdicts = serializers.ListField(
        child=serializers.DictField(), required=False, default=list
    )
    esa = serializers.JSONField(
        required=False,
        default=None,
        help_text='ESA mode: [{"output": position, "score": 0-100, "spans": [{"start", "end",'
        ' "severity", "origin"}], "dismissed": [{"start", "end"}]}]',
    )
    low_score_confirmed = serializers.BooleanField(required=False, default=False)
    active_seconds = serializers.FloatField(required=False, default=None, min_value=0)


class SubmitView(APIView):
    """POST {ranks: [rank per shown output], edit_verdicts?: [{output, edit, correct}]}; in
    ESA mode {esa: [...], low_score_confirmed?, active_seconds?} (docs/judgments.md)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    @extend_schema(request=SubmitSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, assignment_id: int) -> Response:
        data = SubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judgment = services.submit_judgment(
            assignment_id=assignment_id,
            judge=request.user,
            ranks=data.validated_data["ranks"],
            edit_verdicts=data.validated_data["edit_verdicts"],
            esa=data.validated_data["esa"],
            low_score_confirmed=data.validated_data["low_score_confirmed"],
            active_seconds=data.validated_data["active_seconds"],
        )
        return Response(
            {"assignment": assignment_id, "ranks": judgment.ranks, "esa": judgment.esa},
            status=201,
        )


class SkipView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, assignment_id: int) -> Response:
        services.skip_assignment(assignment_id=assignment_id, judge=request.user)
        return Response({"assignment": assignment_id, "status": "skipped"})


urlpatterns = [
    path("judgments/campaigns/", CampaignListView.as_view(), name="api-judgment-campaigns"),
    path(
        "judgments/campaigns/import/",
        CampaignImportView.as_view(),
        name="api-judgment-import",
    ),
    path(
        "judgments/campaigns/<int:campaign_id>/",
        CampaignDetailView.as_view(),
        name="api-judgment-campaign",
    ),
    path(
        "judgments/campaigns/<int:campaign_id>/export/",
        CampaignExportView.as_view(),
        name="api-judgment-export",
    ),
    path(
        "judgments/campaigns/<int:campaign_id>/results/",
        CampaignResultsView.as_view(),
        name="api-judgment-results",
    ),
    path(
        "judgments/campaigns/<int:campaign_id>/reassign-stale/",
        ReassignStaleView.as_view(),
        name="api-judgment-reassign-stale",
    ),
    path(
        "judgments/campaigns/<int:campaign_id>/next/",
        NextItemView.as_view(),
        name="api-judgment-next",
    ),
    path(
        "judgments/assignments/<int:assignment_id>/",
        AssignmentView.as_view(),
        name="api-judgment-assignment",
    ),
    path(
        "judgments/assignments/<int:assignment_id>/submit/",
        SubmitView.as_view(),
        name="api-judgment-submit",
    ),
    path(
        "judgments/assignments/<int:assignment_id>/skip/",
        SkipView.as_view(),
        name="api-judgment-skip",
    ),
]
