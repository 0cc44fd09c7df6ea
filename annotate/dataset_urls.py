from django.urls import path

from annotate import dataset_api, dataset_views

app_name = "datasets"

urlpatterns = [
    path("", dataset_views.dataset_list, name="list"),
    path("import/", dataset_views.dataset_import, name="import"),
    path("jobs/<int:job_id>/", dataset_views.job_page, name="job"),
    path("exports/<int:job_id>/download/", dataset_views.export_download, name="download"),
    path("api/", dataset_api.DatasetListAPI.as_view(), name="api-list"),
    path("api/import/", dataset_api.ImportAPI.as_view(), name="api-import"),
    path("api/<slug:name>/releases/", dataset_api.ReleaseListAPI.as_view(), name="api-releases"),
    path("api/<slug:name>/exports/", dataset_api.ExportAPI.as_view(), name="api-export"),
    path("api/<slug:name>/stats/", dataset_api.StatsAPI.as_view(), name="api-stats"),
    path("<slug:name>/", dataset_views.dataset_detail, name="detail"),
    path("<slug:name>/release/", dataset_views.dataset_release, name="release"),
    path("<slug:name>/export/", dataset_views.dataset_export, name="export"),
    path("<slug:name>/stats/", dataset_views.dataset_stats, name="stats"),
]
