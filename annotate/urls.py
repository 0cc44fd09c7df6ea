from django.urls import path

from annotate import views

app_name = "annotate"

urlpatterns = [
    path("annotate/", views.dashboard, name="dashboard"),
    path("annotate/next/", views.next_sentence, name="next"),
    path("annotate/a/<int:assignment_id>/", views.assignment_page, name="assignment"),
    path("annotate/study/<int:item_id>/", views.study_page, name="study"),
    path("annotate/admin/", views.admin_dashboard, name="admin-dashboard"),
    path("annotate/admin/assign/", views.assign_dataset_view, name="assign-dataset"),
    path("annotate/admin/reassign/<int:assignment_id>/", views.reassign_view, name="reassign"),
    path("annotate/admin/reassign-review/<int:task_id>/", views.reassign_review_view, name="reassign-review"),
    path("annotate/notifications/read/", views.notifications_read, name="notifications-read"),
    path("guidelines/", views.guidelines, name="guidelines"),
    path("guidelines/edit/", views.guidelines_edit, name="guidelines-edit"),
]
