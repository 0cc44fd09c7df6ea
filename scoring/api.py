"""REST API of the scoring app (for scripts and model developers' CI). Admins only.

    POST /api/scoring/systems/                 multipart: dataset, release?, name, file, format?, replace?, wait?
    GET  /api/scoring/systems/<id>/            status + the score_system JSON when done
    POST /api/scoring/systems/<id>/score/      (re)score; wait=1 answers with the result
    POST /api/scoring/systems/<id>/cancel/
    GET  /api/scoring/releases/<id>/leaderboard/
    POST /api/scoring/ensembles/               {"systems": [ids], "name": ...}
    POST /api/scoring/releases/<id>/judges/    {"metrics"?: ["llm-s", "llm-e"]} -> the job (202)
    GET  /api/scoring/datasets/<id>/annotators/

Each endpoint parses, calls a service or selector and answers; ServiceError becomes
`{"detail", "field"}` with its status (core.api.exception_handler).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import NotFound, ServiceError
from core.params import MAX_ID, MAX_INT32
from core.permissions import IsPlatformAdmin, IsReviewerOrAdmin
from datasets.selectors import dataset_by_id, get_dataset, release_by_id
from scoring import selectors, services
from scoring.models import (
    HumanSystemScores,
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.services import meta as meta_services


def _truthy(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "yes", "on")


def system_state(system: SystemOutput, score: SystemScore | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "system_id": system.pk,
        "system": system.name,
        "release": system.version.label,
        "format": system.file_format,
        "sentences": len(system.hypotheses),
        "status": score.status if score else "not scored",
        "job_id": score.background_job_id if score else None,
        "error": score.error if score else "",
    }
    if score is not None and score.status == ScoreStatus.DONE:
        body.update(selectors.score_payload(score))
    return body


class UploadSerializer(serializers.Serializer):  # type: ignore[type-arg]
    dataset = serializers.CharField()
    release = serializers.CharField(required=False, allow_blank=True)
    name = serializers.CharField(max_length=100)
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["auto", "mucgec", "lines"], default="auto")
    replace = serializers.BooleanField(default=False)
    wait = serializers.BooleanField(default=False)


_STATE = inline_serializer(
    name="SystemScoreState",
    fields={
        "system_id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "tp": serializers.IntegerField(required=False),
        "fp": serializers.IntegerField(required=False),
        "fn": serializers.IntegerField(required=False),
        "f05": serializers.FloatField(required=False),
        "ref_count_curve": serializers.ListField(child=serializers.FloatField(), required=False),
        "categories": serializers.DictField(required=False),
        "by_source": serializers.DictField(required=False),
    },
)


class SystemListView(APIView):
    permission_classes = [IsPlatformAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=UploadSerializer, responses={201: _STATE})
    def post(self, request: Request) -> Response:
        form = UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        dataset = get_dataset(data["dataset"], field="dataset")
        version = selectors.get_release(dataset, data.get("release") or None)
        # Upload and queue in one transaction: with the broker down (503) nothing is stored.
        with transaction.atomic():
            system = services.upload_system_output(
                version=version,
                name=data["name"],
                data=data["file"],
                file_name=data["file"].name,
                user=request.user,
                file_format=data["format"],
                replace=data["replace"],
            )
            queued = (
                None if data["wait"] else services.request_scoring(system=system, user=request.user)
            )
        if queued is None:
            score = services.score_now(system=system, user=request.user)
        else:
            score = queued
            score.refresh_from_db()
        return Response(system_state(system, score), status=201)


class SystemDetailView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: _STATE})
    def get(self, request: Request, system_id: int) -> Response:
        system = selectors.get_system(system_id)
        return Response(system_state(system, selectors.score_of(system)))


class SystemScoreView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=None, responses={202: _STATE, 200: _STATE})
    def post(self, request: Request, system_id: int) -> Response:
        system = selectors.get_system(system_id)
        if _truthy(request.query_params.get("wait", request.data.get("wait", ""))):
            score = services.score_now(system=system, user=request.user)
            return Response(system_state(system, score))
        score = services.request_scoring(system=system, user=request.user)
        score.refresh_from_db()
        return Response(system_state(system, score), status=202)


class SystemCancelView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=None, responses={200: _STATE})
    def post(self, request: Request, system_id: int) -> Response:
        system = selectors.get_system(system_id)
        score = selectors.score_of(system)
        if score is None:
            raise ServiceError("this output has not been scored")
        score = services.cancel_scoring(score=score, user=request.user)
        return Response(system_state(system, score))


class LeaderboardView(APIView):
    # The leaderboard page is open to reviewers too (scoring.views.leaderboard).
    permission_classes = [IsReviewerOrAdmin]

    @extend_schema(
        responses={
            200: inline_serializer(
                name="Leaderboard",
                fields={
                    "release": serializers.CharField(),
                    "signatures": serializers.ListField(child=serializers.CharField()),
                    "systems": serializers.ListField(child=serializers.DictField()),
                },
            )
        }
    )
    def get(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        rows = selectors.leaderboard(version)
        return Response(
            {
                "release": version.label,
                "signatures": selectors.leaderboard_signatures(rows),
                "systems": [system_state(row.system, row.score) for row in rows],
            }
        )


class JudgeRunSerializer(serializers.Serializer):  # type: ignore[type-arg]
    metrics = serializers.ListField(
        child=serializers.ChoiceField(choices=list(services.JUDGE_METRICS)),
        required=False,
        min_length=1,
    )


class JudgeRunView(APIView):
    """Start the LLM judges over the release's scored systems (the `gpu` queue); the job's
    state is at /jobs/<id>/ (progress, cancel, retry), the scores, when done, in each
    system's ``extra`` (GET /api/scoring/releases/<id>/leaderboard/)."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        request=JudgeRunSerializer,
        responses={
            202: inline_serializer(
                name="JudgeRunJob",
                fields={
                    "job_id": serializers.IntegerField(),
                    "status": serializers.CharField(),
                    "metrics": serializers.ListField(child=serializers.CharField()),
                },
            )
        },
    )
    def post(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        form = JudgeRunSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        job = services.request_judge_run(
            version=version, user=request.user, metrics=form.validated_data.get("metrics")
        )
        return Response(
            {"job_id": job.pk, "status": job.status, "metrics": job.params["metrics"]},
            status=202,
        )


class EnsembleSerializer(serializers.Serializer):  # type: ignore[type-arg]
    systems = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=2
    )
    name = serializers.CharField(max_length=100)
    wait = serializers.BooleanField(default=False)


class EnsembleView(APIView):
    permission_classes = [IsPlatformAdmin]
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    @extend_schema(request=EnsembleSerializer, responses={201: _STATE})
    def post(self, request: Request) -> Response:
        form = EnsembleSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        ids = form.validated_data["systems"]
        systems = list(SystemOutput.objects.filter(pk__in=ids))
        missing = sorted(set(ids) - {s.pk for s in systems})
        if missing:
            raise NotFound(f"no system output {missing[0]}", field="systems")
        wait = form.validated_data["wait"]
        with transaction.atomic():
            combined = services.create_ensemble(
                systems=systems, name=form.validated_data["name"], user=request.user
            )
            queued = None if wait else services.request_scoring(system=combined, user=request.user)
        if queued is None:
            score = services.score_now(system=combined, user=request.user)
        else:
            score = queued
            score.refresh_from_db()
        return Response(system_state(combined, score), status=201)


class AnnotatorQualityView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        responses={
            200: inline_serializer(
                name="AnnotatorQuality",
                fields={
                    "dataset": serializers.CharField(),
                    "annotators": serializers.ListField(child=serializers.DictField()),
                    "human": serializers.DictField(),
                },
            )
        }
    )
    def get(self, request: Request, dataset_id: int) -> Response:
        dataset = dataset_by_id(dataset_id)
        services.refresh_annotator_scores(dataset_id=dataset.pk, user=request.user)
        rows = selectors.annotator_quality(
            dataset, source_name=request.query_params.get("source", "")
        )
        return Response(
            {
                "dataset": dataset.name,
                "annotators": [
                    {
                        "annotator_id": r.annotator_id,
                        "name": r.name,
                        "sentences": r.sentences,
                        "samples": r.samples,
                        "time_spent_seconds": r.time_spent_seconds,
                        "tp": r.tp,
                        "fp": r.fp,
                        "fn": r.fn,
                        "p": r.p,
                        "r": r.r,
                        "f05": r.f05,
                        "by_source": r.by_source,
                    }
                    for r in rows
                ],
                "human": selectors.human_scores(dataset),
            }
        )


# --- meta-evaluation --------------------------------------------------------------------------
#
#   GET  /api/scoring/releases/<id>/meta/          metrics, human sources, runs of the release
#   POST /api/scoring/releases/<id>/meta/          {"metrics": [...], "human_scores": id |
#                                                   "campaign": id, "method"?, "bootstrap"?,
#                                                   "sentence_bootstrap"?,
#                                                   "window"?, "seed"?, "exclude"?: [system],
#                                                   "aggregation"?: default | trueskill |
#                                                   expected-wins, "wait"?} -> the run
#   POST /api/scoring/releases/<id>/human-scores/  multipart: file, name?, replace?
#   GET  /api/scoring/meta/<id>/                   status + the stored report when done


def _human_scores_state(human: HumanSystemScores) -> dict[str, Any]:
    return {
        "id": human.pk,
        "name": human.name,
        "file_name": human.file_name,
        "layout": human.layout,
        "scores": human.scores,
    }


_META_STATE = inline_serializer(
    name="MetaEvaluationState",
    fields={
        "id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "job_id": serializers.IntegerField(allow_null=True),
        "error": serializers.CharField(),
        "metrics": serializers.ListField(child=serializers.CharField()),
        "aggregation": serializers.CharField(),
        "systems": serializers.ListField(child=serializers.CharField(), required=False),
        "signatures": serializers.DictField(required=False),
        "report": serializers.DictField(required=False),
    },
)
_META_RELEASE = inline_serializer(
    name="MetaEvaluationRelease",
    fields={
        "release": serializers.CharField(),
        "metrics": serializers.ListField(child=serializers.DictField()),
        "human_scores": serializers.ListField(child=serializers.DictField()),
        "campaigns": serializers.ListField(child=serializers.DictField()),
        "evaluations": serializers.ListField(child=serializers.DictField()),
    },
)
_HUMAN_SCORES = inline_serializer(
    name="HumanSystemScores",
    fields={
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "file_name": serializers.CharField(),
        "layout": serializers.CharField(),
        "scores": serializers.DictField(child=serializers.FloatField()),
    },
)


class HumanScoresUploadSerializer(serializers.Serializer):  # type: ignore[type-arg]
    file = serializers.FileField()
    name = serializers.CharField(max_length=100, required=False, allow_blank=True)
    replace = serializers.BooleanField(default=False)


class MetaEvaluationSerializer(serializers.Serializer):  # type: ignore[type-arg]
    metrics = serializers.ListField(child=serializers.CharField(), min_length=1)
    human_scores = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    campaign = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    method = serializers.ChoiceField(
        choices=[
            *meta_services.HUMAN_METHODS,
            *meta_services.EDIT_METHODS,
            *meta_services.ESA_METHODS,
        ],
        default="ew",
    )
    bootstrap = serializers.IntegerField(
        min_value=0, max_value=meta_services.MAX_BOOTSTRAP, default=meta_services.DEFAULT_BOOTSTRAP
    )
    sentence_bootstrap = serializers.IntegerField(
        min_value=0, max_value=meta_services.MAX_BOOTSTRAP, default=0
    )
    window = serializers.IntegerField(
        min_value=2, max_value=meta_services.MAX_WINDOW, required=False
    )
    seed = serializers.IntegerField(default=0, min_value=0, max_value=MAX_INT32)
    exclude = serializers.ListField(child=serializers.CharField(), default=list)
    # The service answers an unknown aggregation with a message naming the choices.
    aggregation = serializers.CharField(max_length=32, default="default")
    wait = serializers.BooleanField(default=False)


class MetaEvaluationListView(APIView):
    permission_classes = [IsPlatformAdmin]
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    @extend_schema(responses={200: _META_RELEASE})
    def get(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        return Response(
            {
                "release": version.label,
                "metrics": [
                    {"key": c.key, "label": c.label, "systems": c.systems}
                    for c in meta_services.available_metrics(version)
                ],
                "human_scores": [
                    _human_scores_state(h)
                    for h in HumanSystemScores.objects.filter(version=version)
                ],
                "campaigns": [
                    {"id": c.pk, "name": str(c)}
                    for c in meta_services.campaigns_for_release(version, user=request.user)
                ],
                "evaluations": [
                    meta_services.evaluation_state(e)
                    for e in meta_services.evaluations_for(version, user=request.user)[:20]
                ],
            }
        )

    @extend_schema(request=MetaEvaluationSerializer, responses={202: _META_STATE, 200: _META_STATE})
    def post(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        form = MetaEvaluationSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        human = None
        if "human_scores" in data:
            human = HumanSystemScores.objects.filter(pk=data["human_scores"]).first()
            if human is None:
                raise NotFound(f"no human scores {data['human_scores']}", field="human_scores")
        evaluation = meta_services.request_meta_evaluation(
            version=version,
            user=request.user,
            metrics=data["metrics"],
            human_scores=human,
            campaign_id=data.get("campaign"),
            method=data["method"],
            bootstrap=data["bootstrap"],
            sentence_bootstrap=data["sentence_bootstrap"],
            window=data.get("window"),
            seed=data["seed"],
            exclude=data["exclude"],
            aggregation=data["aggregation"],
            queue=not data["wait"],
        )
        if data["wait"]:
            evaluation = meta_services.run_meta_evaluation(
                evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
            )
            return Response(meta_services.evaluation_state(evaluation))
        evaluation.refresh_from_db()
        return Response(meta_services.evaluation_state(evaluation), status=202)


class HumanScoresUploadView(APIView):
    permission_classes = [IsPlatformAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=HumanScoresUploadSerializer, responses={201: _HUMAN_SCORES})
    def post(self, request: Request, version_id: int) -> Response:
        version = release_by_id(version_id)
        form = HumanScoresUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        uploaded = form.validated_data["file"]
        human = meta_services.upload_human_scores(
            version=version,
            name=form.validated_data.get("name", ""),
            data=uploaded,
            file_name=uploaded.name or "",
            user=request.user,
            replace=form.validated_data["replace"],
        )
        return Response(_human_scores_state(human), status=201)


class MetaEvaluationDetailView(APIView):
    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: _META_STATE})
    def get(self, request: Request, evaluation_id: int) -> Response:
        evaluation = meta_services.settle_with_job(
            meta_services.evaluation_for(evaluation_id, user=request.user)
        )
        return Response(meta_services.evaluation_state(evaluation))
