from django.urls import path

from core import job_views

urlpatterns = [
    path("<int:job_id>/", job_views.job_detail, name="job-detail"),
    path("<int:job_id>/cancel/", job_views.job_cancel, name="job-cancel"),
    path("<int:job_id>/retry/", job_views.job_retry, name="job-retry"),
]
