from django.urls import path

from judgments import attention_views, views

app_name = "judgments"

urlpatterns = [
    path("judgments/", views.index, name="index"),
    path("judgments/new/", views.create, name="create"),
    path("judgments/<int:campaign_id>/next/", views.judge_next, name="next"),
    path("judgments/item/<int:assignment_id>/", views.judge, name="judge"),
    path("judgments/<int:campaign_id>/results/", views.results, name="results"),
    path(
        "judgments/<int:campaign_id>/export.<str:fmt>",
        views.export,
        name="export",
    ),
    path(
        "judgments/<int:campaign_id>/reassign-stale/",
        views.reassign_stale,
        name="reassign-stale",
    ),
    path(
        "judgments/<int:campaign_id>/attention-threshold/",
        attention_views.attention_threshold,
        name="attention-threshold",
    ),
]
