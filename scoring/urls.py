"""Pages under /scoring/ and the API under /api/scoring/ (one include in config/urls.py)."""

from django.urls import path

from scoring import (
    api,
    closest_gold_api,
    closest_gold_views,
    meta_views,
    people_views,
    prefill_api,
    reference_set_api,
    reference_set_views,
    suggestion_views,
    views,
)

app_name = "scoring"

urlpatterns = [
    path("scoring/", views.index, name="index"),
    path("scoring/releases/<int:version_id>/", views.leaderboard, name="leaderboard"),
    path("scoring/releases/<int:version_id>/upload/", views.upload, name="upload"),
    path("scoring/releases/<int:version_id>/ensemble/", views.ensemble, name="ensemble"),
    path("scoring/releases/<int:version_id>/judges/", views.judges, name="judges"),
    path("scoring/systems/<int:system_id>/", views.system_page, name="system"),
    path(
        "scoring/releases/<int:version_id>/reference-sets/",
        reference_set_views.score_release_sets,
        name="reference-sets",
    ),
    path(
        "scoring/systems/<int:system_id>/reference-sets/",
        reference_set_views.score_system_set,
        name="reference-set",
    ),
    path("scoring/systems/<int:system_id>/rescore/", views.rescore, name="rescore"),
    path("scoring/systems/<int:system_id>/cancel/", views.cancel, name="cancel"),
    path("scoring/systems/<int:system_id>/weighted/", views.weighted, name="weighted"),
    path("scoring/systems/<int:system_id>/reffree/", views.reffree, name="reffree"),
    path("scoring/systems/<int:system_id>/delete/", views.delete, name="delete"),
    path(
        "scoring/datasets/<int:dataset_id>/annotators/", people_views.annotators, name="annotators"
    ),
    path("scoring/pay/", people_views.pay, name="pay"),
    path(
        "scoring/releases/<int:version_id>/meta/",
        meta_views.meta_evaluation,
        name="meta-evaluation",
    ),
    path(
        "scoring/releases/<int:version_id>/meta/human/",
        meta_views.meta_human_upload,
        name="meta-human-upload",
    ),
    path(
        "annotate/admin/projects/<slug:name>/suggest/",
        suggestion_views.suggest_corrections,
        name="suggest-corrections",
    ),
    path(
        "scoring/releases/<int:version_id>/closest-gold/",
        closest_gold_views.tasks_of_release,
        name="closest-gold-tasks",
    ),
    path(
        "scoring/closest-gold/<int:task_id>/",
        closest_gold_views.task_page,
        name="closest-gold-task",
    ),
    path(
        "scoring/closest-gold/<int:task_id>/proposals/",
        closest_gold_views.request_proposals,
        name="closest-gold-proposals",
    ),
    path(
        "scoring/closest-gold/<int:task_id>/next/",
        closest_gold_views.next_item,
        name="closest-gold-next",
    ),
    path(
        "scoring/closest-gold/items/<int:item_id>/",
        closest_gold_views.verify,
        name="closest-gold-verify",
    ),
    # API
    path(
        "api/scoring/projects/<slug:name>/suggestions/",
        suggestion_views.SuggestionsAPI.as_view(),
        name="api-suggestions",
    ),
    path("api/scoring/systems/", api.SystemListView.as_view(), name="api-systems"),
    path("api/scoring/systems/<int:system_id>/", api.SystemDetailView.as_view(), name="api-system"),
    path(
        "api/scoring/systems/<int:system_id>/score/",
        api.SystemScoreView.as_view(),
        name="api-system-score",
    ),
    path(
        "api/scoring/systems/<int:system_id>/cancel/",
        api.SystemCancelView.as_view(),
        name="api-system-cancel",
    ),
    path(
        "api/scoring/releases/<int:version_id>/leaderboard/",
        api.LeaderboardView.as_view(),
        name="api-leaderboard",
    ),
    path(
        "api/scoring/systems/<int:system_id>/reference-sets/",
        reference_set_api.SystemReferenceSetsView.as_view(),
        name="api-system-reference-sets",
    ),
    path(
        "api/scoring/releases/<int:version_id>/reference-sets/",
        reference_set_api.ReleaseReferenceSetsView.as_view(),
        name="api-release-reference-sets",
    ),
    path(
        "api/scoring/releases/<int:version_id>/closest-gold.jsonl",
        reference_set_api.ClosestGoldExportView.as_view(),
        name="api-closest-gold-export",
    ),
    path("api/scoring/ensembles/", api.EnsembleView.as_view(), name="api-ensembles"),
    path(
        "api/scoring/releases/<int:version_id>/judges/",
        api.JudgeRunView.as_view(),
        name="api-judges",
    ),
    path(
        "api/scoring/releases/<int:version_id>/meta/",
        api.MetaEvaluationListView.as_view(),
        name="api-meta-evaluations",
    ),
    path(
        "api/scoring/releases/<int:version_id>/human-scores/",
        api.HumanScoresUploadView.as_view(),
        name="api-human-scores",
    ),
    path(
        "api/scoring/meta/<int:evaluation_id>/",
        api.MetaEvaluationDetailView.as_view(),
        name="api-meta-evaluation",
    ),
    path(
        "api/scoring/datasets/<int:dataset_id>/annotators/",
        api.AnnotatorQualityView.as_view(),
        name="api-annotators",
    ),
    path(
        "api/scoring/releases/<int:version_id>/closest-gold/",
        closest_gold_api.TaskCreateView.as_view(),
        name="api-closest-gold-tasks",
    ),
    path(
        "api/scoring/closest-gold/<int:task_id>/",
        closest_gold_api.TaskDetailView.as_view(),
        name="api-closest-gold-task",
    ),
    path(
        "api/scoring/closest-gold/<int:task_id>/next/",
        closest_gold_api.NextItemView.as_view(),
        name="api-closest-gold-next",
    ),
    path(
        "api/scoring/closest-gold/items/<int:item_id>/verify/",
        closest_gold_api.VerifyView.as_view(),
        name="api-closest-gold-verify",
    ),
    path(
        "api/scoring/datasets/<int:dataset_id>/anchoring/",
        prefill_api.AnchoringReportView.as_view(),
        name="api-anchoring",
    ),
]
