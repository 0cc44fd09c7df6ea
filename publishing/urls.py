from django.urls import path

from publishing import api, views

app_name = "publishing"

urlpatterns = [
    path("releases/<int:version_id>/", views.release_page, name="release"),
    path("releases/<int:version_id>/card/", views.card_preview, name="card"),
    path(
        "releases/<int:version_id>/card/figures/reference_counts.svg",
        views.card_figure,
        name="card-figure",
    ),
    path("releases/<int:version_id>/report/", views.run_report, name="run-report"),
    path("releases/<int:version_id>/publish/", views.publish, name="publish"),
    path(
        "releases/<int:version_id>/reference-files/",
        views.upload_reference_file,
        name="reference-file",
    ),
    path("jobs/<int:job_id>/", views.job_page, name="job"),
    path("jobs/<int:job_id>/download/", views.download, name="download"),
    path("api/releases/<int:version_id>/metadata/", api.MetadataAPI.as_view(), name="api-metadata"),
    path("api/releases/<int:version_id>/report/", api.ReportAPI.as_view(), name="api-report"),
    path("api/releases/<int:version_id>/publish/", api.PublishAPI.as_view(), name="api-publish"),
    path("api/reference-files/", api.ReferenceFileAPI.as_view(), name="api-reference-files"),
]
