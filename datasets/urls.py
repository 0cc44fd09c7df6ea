from django.urls import path

from datasets import api, views

app_name = "datasets"

urlpatterns = [
    path("", views.dataset_list, name="list"),
    path("import/", views.dataset_import, name="import"),
    path("jobs/<int:job_id>/", views.job_page, name="job"),
    path("exports/<int:job_id>/download/", views.export_download, name="download"),
    path("api/", api.DatasetListAPI.as_view(), name="api-list"),
    path("api/import/", api.ImportAPI.as_view(), name="api-import"),
    path("api/<slug:name>/releases/", api.ReleaseListAPI.as_view(), name="api-releases"),
    path("api/<slug:name>/exports/", api.ExportAPI.as_view(), name="api-export"),
    path("api/<slug:name>/stats/", api.StatsAPI.as_view(), name="api-stats"),
    path("<slug:name>/", views.dataset_detail, name="detail"),
    path("<slug:name>/release/", views.dataset_release, name="release"),
    path("<slug:name>/export/", views.dataset_export, name="export"),
    path("<slug:name>/stats/", views.dataset_stats, name="stats"),
]
