from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

from core.views import ApiDocsView

urlpatterns = [
    path("", include("core.urls")),
    path("django-admin/", admin.site.urls),
    # Browsers ask for /favicon.ico whatever the page says; answer with the pinned icon.
    path("favicon.ico", RedirectView.as_view(url=static("core/favicon.svg"), permanent=True)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("jobs/", include("core.job_urls")),
    path("datasets/", include("datasets.urls")),
]
urlpatterns += [
    path("", include("annotate.urls")),
    path("", include("review.urls")),
    path("api/", include("annotate.api")),
    path("api/", include("review.api")),
    path("api/", include("review.project_api")),
]
urlpatterns += [path("", include("scoring.urls"))]
urlpatterns += [
    path("", include("judgments.urls")),
    path("api/", include("judgments.api")),
]
