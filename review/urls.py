from django.urls import path

from review import project_views, views

app_name = "review"

urlpatterns = [
    path("review/", views.queue, name="queue"),
    path("annotate/study/<int:item_id>/", views.study_page, name="study"),
    path("annotate/admin/", views.admin_dashboard, name="admin-dashboard"),
    path("annotate/admin/assign/", views.assign_dataset_view, name="assign-dataset"),
    path(
        "annotate/admin/reassign-review/<int:task_id>/",
        views.reassign_review_view,
        name="reassign-review",
    ),
    path("annotate/admin/projects/", project_views.projects_page, name="projects"),
    path("annotate/admin/projects/<slug:name>/", project_views.project_page, name="project"),
    path(
        "annotate/admin/projects/<slug:name>/settings/",
        project_views.project_settings,
        name="project-settings",
    ),
    path(
        "annotate/admin/projects/<slug:name>/reference-style/",
        project_views.project_reference_style,
        name="project-reference-style",
    ),
    path(
        "annotate/admin/projects/<slug:name>/annotation-mode/",
        project_views.project_annotation_mode,
        name="project-annotation-mode",
    ),
    path(
        "annotate/admin/projects/<slug:name>/pool/add/",
        project_views.project_pool_add,
        name="project-pool-add",
    ),
    path(
        "annotate/admin/projects/<slug:name>/pool/remove/",
        project_views.project_pool_remove,
        name="project-pool-remove",
    ),
    path("review/t/<int:task_id>/", views.task_page, name="task"),
    path("review/complaints/", views.complaints, name="complaints"),
    path("review/complaints/new/<int:item_id>/", views.complaint_new, name="complaint-new"),
    path("review/complaints/<int:complaint_id>/", views.complaint_page, name="complaint"),
]
