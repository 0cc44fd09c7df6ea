from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review, verdicts, self-study, complaints"

    def ready(self) -> None:
        from review import receivers  # noqa: F401  (connects the receivers)
