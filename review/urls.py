from django.urls import path

from review import views

app_name = "review"

urlpatterns = [
    path("review/", views.queue, name="queue"),
    path("review/t/<int:task_id>/", views.task_page, name="task"),
    path("review/complaints/", views.complaints, name="complaints"),
    path("review/complaints/new/<int:item_id>/", views.complaint_new, name="complaint-new"),
    path("review/complaints/<int:complaint_id>/", views.complaint_page, name="complaint"),
]
