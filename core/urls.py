from django.contrib.auth import views as auth_views
from django.urls import path

from core import user_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("notifications/read/", views.notifications_read, name="notifications-read"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("users/", user_views.users_page, name="users"),
    path("users/<int:user_id>/roles/", user_views.user_roles, name="user-roles"),
    path("users/<int:user_id>/active/", user_views.user_active, name="user-active"),
    path("users/<int:user_id>/unlock/", user_views.user_unlock, name="user-unlock"),
]
