from django.contrib import admin
from django.urls import include, path

from core.views import ApiDocsView, CachedSchemaView

urlpatterns = [
    path("", include("core.urls")),
    path("django-admin/", admin.site.urls),
    path("api/schema/", CachedSchemaView.as_view(), name="api-schema"),
    path("api/docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("jobs/", include("core.job_urls")),
    path("datasets/", include("datasets.urls")),
    path("publishing/", include("publishing.urls")),
]
urlpatterns += [
    path("", include("annotate.urls")),
    path("", include("review.urls")),
    path("api/", include("annotate.api")),
    path("api/", include("review.api")),
    path("api/", include("review.project_api")),
    path("api/", include("review.amend_api")),
]
urlpatterns += [path("", include("scoring.urls"))]
urlpatterns += [
    path("", include("judgments.urls")),
    path("api/", include("judgments.api")),
]
