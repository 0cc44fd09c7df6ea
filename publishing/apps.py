from django.apps import AppConfig


class PublishingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "publishing"
    verbose_name = "Publishing releases"

    def ready(self) -> None:
        from publishing import receivers  # noqa: F401  (connects the receivers)
