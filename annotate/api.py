"""REST API for the annotation side (DRF; session or token auth; schema at /api/schema/).

Every endpoint: parse with a serializer, call a service or selector, answer. Service errors
become `{"detail", "field"}` with their status through core.api.exception_handler.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import selectors, services
from annotate.models import Assignment, Submission
from annotate.suggestions import opening_for
from core.exceptions import ServiceError
from core.markdown import render_markdown
from core.models import User
from core.params import MAX_INT32, bounded_int
from core.permissions import IsAnnotator, IsPlatformAdmin
from core.roles import Role, has_role
from core.web import parse_id
from datasets.extraction import diff_segments, edits_between, segments_as_dicts

# --- serializers ---------------------------------------------------------------------------


class EditSerializer(serializers.Serializer):  # type: ignore[type-arg]
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    target_start = serializers.IntegerField()
    target_end = serializers.IntegerField()
    type = serializers.CharField()
    source_text = serializers.CharField(allow_blank=True)
    target_text = serializers.CharField(allow_blank=True)


class DiffRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    source = serializers.CharField(allow_blank=True, trim_whitespace=False)
    target = serializers.CharField(allow_blank=True, trim_whitespace=False)
    language = serializers.ChoiceField(choices=["zh", "en"], default="zh")


class DiffResponseSerializer(serializers.Serializer):  # type: ignore[type-arg]
    edits = EditSerializer(many=True)
    segments = serializers.ListField(child=serializers.DictField())


class SentenceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    external_id = serializers.CharField()
    dataset = serializers.CharField(source="dataset.name")
    source = serializers.CharField(source="source.name", default="")
    split = serializers.CharField()
    text = serializers.CharField()


class AssignmentSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    sentence = SentenceSerializer()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "sentence",
            "status",
            "created_at",
            "opened_at",
            "submitted_at",
            "time_spent_seconds",
        ]


class SuggestionSerializer(serializers.Serializer):  # type: ignore[type-arg]
    text = serializers.CharField()
    source = serializers.CharField(
        help_text="the suggestion source's label: system:NAME or llm:MODEL"
    )
    kind = serializers.CharField(help_text="system or llm")
    signature = serializers.CharField(
        help_text="what reproduces the text: system:NAME|release:LABEL|sha:... or "
        "llm:MODEL|prompt:VERSION|backend:..."
    )


class OpenedAssignmentSerializer(AssignmentSerializer):
    """An assignment as its annotator opens it: with what the box starts from. Built with
    `context={"opening": annotate.suggestions.Opening}`, the page's own decision."""

    opens_with = serializers.SerializerMethodField()
    suggestion = serializers.SerializerMethodField()

    class Meta(AssignmentSerializer.Meta):
        fields = [*AssignmentSerializer.Meta.fields, "opens_with", "suggestion"]

    def get_opens_with(self, assignment: Assignment) -> str:
        return str(self.context["opening"].text)

    @extend_schema_field(SuggestionSerializer(allow_null=True))
    def get_suggestion(self, assignment: Assignment) -> dict[str, str] | None:
        presented = self.context["opening"].suggestion
        if presented is None:
            return None
        return {
            "text": presented.text,
            "source": presented.source,
            "kind": presented.kind,
            "signature": presented.signature,
        }


def opened_assignment_data(assignment: Assignment) -> dict[str, Any]:
    return dict(
        OpenedAssignmentSerializer(assignment, context={"opening": opening_for(assignment)}).data
    )


class SubmissionSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    texts = serializers.SerializerMethodField()
    assignment = serializers.IntegerField(source="assignment_id")

    class Meta:
        model = Submission
        fields = [
            "id",
            "assignment",
            "revision",
            "tag",
            "texts",
            "created_at",
            "time_spent_seconds",
        ]

    def get_texts(self, submission: Submission) -> list[str]:
        return [c.text for c in submission.corrections.all()]


class SubmitRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]
    texts = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        required=False,
        default=list,
    )
    tag = serializers.ChoiceField(
        choices=["", "error_free", "not_annotatable"], required=False, default=""
    )
    time_spent_seconds = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=MAX_INT32
    )


class SubmitResponseSerializer(serializers.Serializer):  # type: ignore[type-arg]
    submission = SubmissionSerializer()
    notes = serializers.ListField(child=serializers.CharField())


def _validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        field, problems = next(iter(serializer.errors.items()))
        raise ServiceError(f"{field}: {' '.join(str(p) for p in problems)}", field=str(field))
    return dict(serializer.validated_data)


# --- diff ---------------------------------------------------------------------------------


class DiffView(APIView):
    """Edits between a source and a corrected text, from the scoring core's extractor of
    the language (the same function the scorer and the M2 export use): char-level for
    Chinese, ERRANT for English."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=DiffRequestSerializer, responses=DiffResponseSerializer)
    def post(self, request: Request) -> Response:
        data = _validated(DiffRequestSerializer, request.data)
        language = data["language"]
        edits = edits_between(data["source"], data["target"], language=language)
        segments = diff_segments(data["source"], edits, language=language)
        return Response({"edits": edits, "segments": segments_as_dicts(segments)})


# --- annotator ----------------------------------------------------------------------------


class AssignmentListView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=AssignmentSerializer(many=True))
    def get(self, request: Request) -> Response:
        assignments = selectors.assignments_for(request.user)
        status = request.query_params.get("status")
        if status:
            assignments = assignments.filter(status=status)
        return Response(AssignmentSerializer(assignments.order_by("id")[:1000], many=True).data)


class AssignmentDetailView(APIView):
    """The assignment with what its box opens with. Reading it opens the assignment, as the
    page does: a later blind draw must not change an item whose annotator has seen whether
    a suggestion came with it (the list leaves the suggestion out for the same reason)."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses=OpenedAssignmentSerializer)
    def get(self, request: Request, assignment_id: int) -> Response:
        assignment = selectors.get_assignment_for(request.user, assignment_id)
        services.open_assignment(assignment=assignment, user=request.user)
        return Response(opened_assignment_data(assignment))


class NextAssignmentView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=None, responses={200: OpenedAssignmentSerializer, 204: None})
    def post(self, request: Request) -> Response:
        assignment = services.next_assignment(user=request.user)
        if assignment is None:
            return Response(status=204)
        return Response(opened_assignment_data(assignment))


class SubmitView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=SubmitRequestSerializer, responses={201: SubmitResponseSerializer})
    def post(self, request: Request, assignment_id: int) -> Response:
        data = _validated(SubmitRequestSerializer, request.data)
        result = services.submit_correction(
            assignment_id=assignment_id,
            user=request.user,
            texts=data["texts"],
            tag=data["tag"],
            time_spent_seconds=data["time_spent_seconds"],
        )
        return Response(
            {"submission": SubmissionSerializer(result.submission).data, "notes": result.notes},
            status=201,
        )


class SubmissionListView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            SubmissionSerializer(
                selectors.submissions_for(request.user).order_by("id")[:1000], many=True
            ).data
        )


class SubmissionDetailView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, submission_id: int) -> Response:
        return Response(
            SubmissionSerializer(selectors.get_submission_for(request.user, submission_id)).data
        )


class ProgressView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        responses=inline_serializer(
            "Progress",
            {
                "done": serializers.IntegerField(),
                "assigned": serializers.IntegerField(),
                "time_spent_seconds": serializers.IntegerField(),
            },
        )
    )
    def get(self, request: Request) -> Response:
        progress = selectors.progress_for(request.user)
        return Response(
            {
                "done": progress.done,
                "assigned": progress.assigned,
                "time_spent_seconds": progress.time_spent_seconds,
            }
        )


# --- admin --------------------------------------------------------------------------------


class StaleAssignmentsView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses=AssignmentSerializer(many=True))
    def get(self, request: Request) -> Response:
        hours = bounded_int(
            request.query_params.get("hours"),
            field="hours",
            low=0,
            high=services.MAX_STALE_HOURS,
            default=48,
        )
        stale = selectors.stale_assignments(opened_before=services.stale_cutoff(hours))[:1000]
        rows = AssignmentSerializer(stale, many=True).data
        for row, assignment in zip(rows, stale, strict=True):
            row["annotator"] = assignment.annotator.username
        return Response(rows)


class ReassignView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        request=inline_serializer(
            "ReassignRequest", {"annotator": serializers.IntegerField(required=False)}
        ),
        responses=AssignmentSerializer,
    )
    def post(self, request: Request, assignment_id: int) -> Response:
        to_user = None
        if request.data.get("annotator") not in (None, ""):
            to_user = User.objects.filter(pk=parse_id(str(request.data["annotator"])) or 0).first()
            if to_user is None:
                raise ServiceError("annotator: no such user", field="annotator")
        replacement = services.reassign_assignment(
            assignment_id=assignment_id, by=request.user, to_user=to_user
        )
        return Response(AssignmentSerializer(replacement).data, status=201)


class AdminProgressView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        responses=inline_serializer(
            "AdminProgress",
            {
                "datasets": serializers.ListField(child=serializers.DictField()),
                "annotators": serializers.ListField(child=serializers.DictField()),
            },
        )
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "datasets": [
                    {
                        "dataset": p.dataset.name,
                        "total": p.total,
                        "by_status": p.by_status,
                        "by_source": p.by_source,
                    }
                    for p in selectors.dataset_progress()
                ],
                "annotators": selectors.annotator_stats(),
            }
        )


# --- guideline ----------------------------------------------------------------------------


class GuidelineSerializer(serializers.Serializer):  # type: ignore[type-arg]
    title = serializers.CharField()
    body = serializers.CharField()
    version = serializers.IntegerField(min_value=0, max_value=MAX_INT32)
    html = serializers.CharField(read_only=True)


class GuidelineView(APIView):
    """Everyone signed in reads a guideline (?task=annotation|review|ranking|edits &
    language=zh|en; default the Chinese annotation guideline); admins replace it (PUT with
    the same two parameters, version = the one read)."""

    permission_classes = [IsAuthenticated]

    @staticmethod
    def _data(guideline: Any) -> dict[str, Any]:
        return {
            "task": guideline.task,
            "language": guideline.language,
            "title": guideline.title,
            "body": guideline.body,
            "version": guideline.version,
            "html": render_markdown(guideline.body),
        }

    @staticmethod
    def _which(request: Request) -> tuple[str, str]:
        values = {
            **request.query_params.dict(),
            **(request.data if request.method == "PUT" else {}),
        }
        return str(values.get("task") or "annotation"), str(values.get("language") or "zh")

    @extend_schema(responses=GuidelineSerializer)
    def get(self, request: Request) -> Response:
        task, language = self._which(request)
        return Response(self._data(selectors.guideline_for(task, language)))

    @extend_schema(request=GuidelineSerializer, responses=GuidelineSerializer)
    def put(self, request: Request) -> Response:
        if not has_role(request.user, Role.ADMIN):
            raise ServiceError("only admins edit the guideline", status=403)
        task, language = self._which(request)
        guideline = services.update_guideline(
            user=request.user,
            title=request.data.get("title"),
            body=request.data.get("body"),
            version=request.data.get("version"),
            task=task,
            language=language,
        )
        return Response(self._data(guideline))


# --- routes (included under /api/ by config/urls.py) ----------------------------------------
from django.urls import path  # noqa: E402

from core.token_api import TokenLoginView  # noqa: E402

urlpatterns = [
    # username + password -> {"token", "expires"}; send it as "Authorization: Token <key>".
    path("auth/token/", TokenLoginView.as_view(), name="api-token"),
    path("diff/", DiffView.as_view(), name="api-diff"),
    path("assignments/", AssignmentListView.as_view(), name="api-assignments"),
    path("assignments/next/", NextAssignmentView.as_view(), name="api-assignment-next"),
    path("assignments/stale/", StaleAssignmentsView.as_view(), name="api-assignments-stale"),
    path("assignments/<int:assignment_id>/", AssignmentDetailView.as_view(), name="api-assignment"),
    path(
        "assignments/<int:assignment_id>/submit/",
        SubmitView.as_view(),
        name="api-assignment-submit",
    ),
    path(
        "assignments/<int:assignment_id>/reassign/",
        ReassignView.as_view(),
        name="api-assignment-reassign",
    ),
    path("submissions/", SubmissionListView.as_view(), name="api-submissions"),
    path("submissions/<int:submission_id>/", SubmissionDetailView.as_view(), name="api-submission"),
    path("progress/", ProgressView.as_view(), name="api-progress"),
    path("annotation-progress/", AdminProgressView.as_view(), name="api-annotation-progress"),
    path("guideline/", GuidelineView.as_view(), name="api-guideline"),
]
