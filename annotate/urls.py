from django.urls import path

from annotate import views

app_name = "annotate"

urlpatterns = [
    path("annotate/", views.dashboard, name="dashboard"),
    path("annotate/next/", views.next_sentence, name="next"),
    path("annotate/a/<int:assignment_id>/", views.assignment_page, name="assignment"),
    path("annotate/admin/reassign/<int:assignment_id>/", views.reassign_view, name="reassign"),
    path("guidelines/", views.guidelines, name="guidelines"),
    path("guidelines/edit/", views.guidelines_edit, name="guidelines-edit"),
]
