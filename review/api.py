"""REST API for review, self-study and complaints (DRF; session or token auth)."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api import (
    EditSerializer,
    SentenceSerializer,
    SubmissionSerializer,
    SubmitRequestSerializer,
    _validated,
)
from annotate.selectors import first_submission
from core.exceptions import ServiceError
from core.models import User
from core.params import MAX_INT32, bounded_int
from core.permissions import IsAnnotator, IsPlatformAdmin
from core.roles import Role, has_role
from core.web import parse_id
from datasets.models import Dataset, GoldenReference
from review import selectors, services, verdicts
from review.models import Complaint, ReviewTask, StudyItem
from review.workflow import assign_dataset


class _RoleReviewerOrAdmin(IsAuthenticated):
    message = "Your account does not have the role this endpoint needs."

    def has_permission(self, request: Any, view: Any) -> bool:
        return has_role(request.user, Role.REVIEWER) or has_role(request.user, Role.ADMIN)


class ReferenceSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = GoldenReference
        fields = [
            "id",
            "revision",
            "position",
            "kind",
            "text",
            "origin",
            "entry",
            "suggestion_source",
            "is_current",
            "created_at",
        ]


class ReviewTaskSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    sentence = SentenceSerializer()
    reviewer = serializers.CharField(source="reviewer.username")

    class Meta:
        model = ReviewTask
        fields = ["id", "sentence", "reviewer", "status", "version", "opened_at", "submitted_at"]


class ProvenanceSerializer(serializers.Serializer):  # type: ignore[type-arg]
    annotator = serializers.CharField()
    shown = serializers.CharField(help_text='suggestion label, "blind", or "" (rewrite)')
    unchanged = serializers.BooleanField()
    distance_from_suggestion = serializers.IntegerField(allow_null=True)
    distance_from_source = serializers.IntegerField(allow_null=True)
    seconds = serializers.IntegerField()


class CandidateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    position = serializers.IntegerField()
    kind = serializers.CharField()
    text = serializers.CharField()
    annotators = serializers.ListField(child=serializers.CharField())
    support = serializers.IntegerField()
    of = serializers.IntegerField()
    edits = EditSerializer(many=True)
    provenance = ProvenanceSerializer(many=True)


class VerdictInputSerializer(serializers.Serializer):  # type: ignore[type-arg]
    position = serializers.IntegerField(min_value=0, max_value=MAX_INT32)
    correct = serializers.BooleanField()
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)


class ReviewSubmitSerializer(serializers.Serializer):  # type: ignore[type-arg]
    version = serializers.IntegerField(min_value=0, max_value=MAX_INT32)
    judgement = serializers.ChoiceField(choices=["annotatable", "error_free", "not_annotatable"])
    verdicts = VerdictInputSerializer(many=True)
    added = serializers.ListField(
        child=serializers.CharField(allow_blank=True), required=False, default=list
    )
    time_spent_seconds = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=MAX_INT32
    )


class ReviewTaskListView(APIView):
    permission_classes = [_RoleReviewerOrAdmin]

    @extend_schema(responses=ReviewTaskSerializer(many=True))
    def get(self, request: Request) -> Response:
        tasks = selectors.review_tasks_for(request.user)
        status = request.query_params.get("status")
        if status:
            tasks = tasks.filter(status=status)
        return Response(ReviewTaskSerializer(tasks.order_by("id")[:1000], many=True).data)


class ReviewTaskDetailView(APIView):
    permission_classes = [_RoleReviewerOrAdmin]

    @extend_schema(
        responses=inline_serializer(
            "ReviewTaskDetail",
            {
                "task": ReviewTaskSerializer(),
                "candidates": CandidateSerializer(many=True),
                "references": ReferenceSerializer(many=True),
            },
        )
    )
    def get(self, request: Request, task_id: int) -> Response:
        task = selectors.get_review_task_for(request.user, task_id)
        candidates = selectors.merged_candidates(task) if task.status != "waiting" else []
        return Response(
            {
                "task": ReviewTaskSerializer(task).data,
                "candidates": CandidateSerializer(candidates, many=True).data,
                "references": ReferenceSerializer(
                    selectors.current_references(task.sentence_id), many=True
                ).data,
            }
        )


class ReviewSubmitView(APIView):
    permission_classes = [_RoleReviewerOrAdmin]

    @extend_schema(
        request=ReviewSubmitSerializer,
        responses={
            201: inline_serializer(
                "ReviewOutcome",
                {
                    "references": ReferenceSerializer(many=True),
                    "study_items": serializers.ListField(child=serializers.IntegerField()),
                    "notes": serializers.ListField(child=serializers.CharField()),
                },
            )
        },
    )
    def post(self, request: Request, task_id: int) -> Response:
        # Look up first so that a task of someone else is a 404 before any validation error.
        selectors.get_review_task_for(request.user, task_id)
        data = _validated(ReviewSubmitSerializer, request.data)
        outcome = verdicts.submit_review(
            task_id=task_id,
            user=request.user,
            version=data["version"],
            verdicts=[dict(v) for v in data["verdicts"]],
            added=data["added"],
            judgement=data["judgement"],
            time_spent_seconds=data["time_spent_seconds"],
        )
        return Response(
            {
                "references": ReferenceSerializer(outcome.references, many=True).data,
                "study_items": [item.pk for item in outcome.study_items],
                "notes": outcome.notes,
            },
            status=201,
        )


class ReviewReassignView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        request=inline_serializer(
            "ReviewReassignRequest", {"reviewer": serializers.IntegerField(required=False)}
        ),
        responses=ReviewTaskSerializer,
    )
    def post(self, request: Request, task_id: int) -> Response:
        to_user = None
        if request.data.get("reviewer") not in (None, ""):
            to_user = User.objects.filter(pk=parse_id(str(request.data["reviewer"])) or 0).first()
            if to_user is None:
                raise ServiceError("reviewer: no such user", field="reviewer")
        task = services.reassign_review(task_id=task_id, by=request.user, to_user=to_user)
        return Response(ReviewTaskSerializer(task).data)


# --- self-study ---------------------------------------------------------------------------


class StudyItemSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    sentence = SentenceSerializer(source="task.sentence")

    class Meta:
        model = StudyItem
        fields = ["id", "sentence", "reason", "status", "created_at", "done_at"]


class StudyItemListView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=StudyItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            StudyItemSerializer(
                selectors.study_items_for(request.user).order_by("id"), many=True
            ).data
        )


class StudyItemDetailView(APIView):
    """The only way an annotator reads golden references: for a sentence they studied."""

    permission_classes = [IsAnnotator]

    @extend_schema(
        responses=inline_serializer(
            "StudyItemDetail",
            {
                "item": StudyItemSerializer(),
                "original": SubmissionSerializer(),
                "revisions": SubmissionSerializer(many=True),
                "references": serializers.ListField(child=serializers.DictField()),
            },
        )
    )
    def get(self, request: Request, item_id: int) -> Response:
        item = selectors.get_study_item_for(request.user, item_id)
        shown = selectors.references_with_edits(item.task.sentence)
        original = first_submission(item.assignment)
        return Response(
            {
                "item": StudyItemSerializer(item).data,
                "original": SubmissionSerializer(original).data if original else None,
                "revisions": SubmissionSerializer(
                    item.assignment.submissions.filter(revision__gt=1), many=True
                ).data,
                "references": [
                    dict(ReferenceSerializer(s.reference).data, edits=s.edits) for s in shown
                ],
            }
        )


class StudyReviseView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=SubmitRequestSerializer, responses={201: SubmissionSerializer})
    def post(self, request: Request, item_id: int) -> Response:
        selectors.get_study_item_for(request.user, item_id)
        data = _validated(SubmitRequestSerializer, request.data)
        submission = services.submit_study_revision(
            item_id=item_id,
            user=request.user,
            texts=data["texts"],
            tag=data["tag"],
            time_spent_seconds=data["time_spent_seconds"],
        )
        return Response(SubmissionSerializer(submission).data, status=201)


# --- complaints ---------------------------------------------------------------------------


class ComplaintSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    author = serializers.CharField(source="author.username")
    sentence = serializers.IntegerField(source="study_item.task.sentence_id")
    messages = serializers.SerializerMethodField()

    class Meta:
        model = Complaint
        fields = [
            "id",
            "study_item",
            "sentence",
            "reference",
            "author",
            "status",
            "created_at",
            "resolved_at",
            "resolution_note",
            "messages",
        ]

    def get_messages(self, complaint: Complaint) -> list[dict[str, Any]]:
        return [
            {"author": m.author.username, "text": m.text, "created_at": m.created_at}
            for m in complaint.messages.select_related("author")
        ]


class ComplaintListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ComplaintSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            ComplaintSerializer(
                selectors.complaints_for(request.user).order_by("id")[:1000], many=True
            ).data
        )

    @extend_schema(
        request=inline_serializer(
            "ComplaintNew",
            {
                "study_item": serializers.IntegerField(),
                "reference": serializers.IntegerField(required=False),
                "text": serializers.CharField(),
            },
        ),
        responses={201: ComplaintSerializer},
    )
    def post(self, request: Request) -> Response:
        if not has_role(request.user, Role.ANNOTATOR):
            raise ServiceError(
                "only annotators file complaints, from their study items", status=403
            )
        complaint = services.file_complaint(
            item_id=request.data.get("study_item"),
            user=request.user,
            text=request.data.get("text"),
            reference_id=request.data.get("reference"),
        )
        return Response(ComplaintSerializer(complaint).data, status=201)


class ComplaintDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ComplaintSerializer)
    def get(self, request: Request, complaint_id: int) -> Response:
        return Response(
            ComplaintSerializer(selectors.get_complaint_for(request.user, complaint_id)).data
        )


class ComplaintMessageView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=inline_serializer("ComplaintMessageNew", {"text": serializers.CharField()}),
        responses={201: ComplaintSerializer},
    )
    def post(self, request: Request, complaint_id: int) -> Response:
        services.post_complaint_message(
            complaint_id=complaint_id, user=request.user, text=request.data.get("text")
        )
        return Response(
            ComplaintSerializer(selectors.get_complaint_for(request.user, complaint_id)).data,
            status=201,
        )


class ComplaintResolveView(APIView):
    permission_classes = [_RoleReviewerOrAdmin]

    @extend_schema(
        request=inline_serializer(
            "ComplaintResolve",
            {
                "accept": serializers.BooleanField(),
                "note": serializers.CharField(required=False),
                "references": serializers.ListField(child=serializers.CharField(), required=False),
                "judgement": serializers.CharField(required=False),
            },
        ),
        responses=ComplaintSerializer,
    )
    def post(self, request: Request, complaint_id: int) -> Response:
        accept = request.data.get("accept")
        if not isinstance(accept, bool):
            raise ServiceError("accept must be true or false", field="accept")
        complaint = services.resolve_complaint(
            complaint_id=complaint_id,
            user=request.user,
            accept=accept,
            note=request.data.get("note", ""),
            references=request.data.get("references"),
            judgement=request.data.get("judgement"),
        )
        return Response(ComplaintSerializer(complaint).data)


# --- assignment of a dataset (annotators and reviewers) ---------------------------------


class AssignDatasetView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        request=inline_serializer(
            "AssignDatasetRequest",
            {"dataset": serializers.IntegerField(), "seed": serializers.IntegerField(default=0)},
        ),
        responses=inline_serializer(
            "AssignDatasetResponse",
            {
                "sentences": serializers.IntegerField(),
                "assignments": serializers.IntegerField(),
                "review_tasks": serializers.IntegerField(),
                "seed": serializers.IntegerField(),
            },
        ),
    )
    def post(self, request: Request) -> Response:
        dataset = Dataset.objects.filter(pk=parse_id(str(request.data.get("dataset"))) or 0).first()
        if dataset is None:
            raise ServiceError("dataset: no such dataset id", field="dataset", status=404)
        seed = bounded_int(request.data.get("seed"), field="seed", low=0, high=MAX_INT32, default=0)
        summary = assign_dataset(dataset=dataset, seed=seed, by=request.user)
        return Response(
            {
                "sentences": summary.sentences,
                "assignments": summary.assignments,
                "review_tasks": summary.review_tasks,
                "seed": summary.seed,
            },
            status=201,
        )


urlpatterns = [
    path("assignments/assign-dataset/", AssignDatasetView.as_view(), name="api-assign-dataset"),
    path("review-tasks/", ReviewTaskListView.as_view(), name="api-review-tasks"),
    path("review-tasks/<int:task_id>/", ReviewTaskDetailView.as_view(), name="api-review-task"),
    path(
        "review-tasks/<int:task_id>/submit/", ReviewSubmitView.as_view(), name="api-review-submit"
    ),
    path(
        "review-tasks/<int:task_id>/reassign/",
        ReviewReassignView.as_view(),
        name="api-review-reassign",
    ),
    path("study-items/", StudyItemListView.as_view(), name="api-study-items"),
    path("study-items/<int:item_id>/", StudyItemDetailView.as_view(), name="api-study-item"),
    path("study-items/<int:item_id>/revise/", StudyReviseView.as_view(), name="api-study-revise"),
    path("complaints/", ComplaintListView.as_view(), name="api-complaints"),
    path("complaints/<int:complaint_id>/", ComplaintDetailView.as_view(), name="api-complaint"),
    path(
        "complaints/<int:complaint_id>/messages/",
        ComplaintMessageView.as_view(),
        name="api-complaint-messages",
    ),
    path(
        "complaints/<int:complaint_id>/resolve/",
        ComplaintResolveView.as_view(),
        name="api-complaint-resolve",
    ),
]
