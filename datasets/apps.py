from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "datasets"
    verbose_name = "Datasets, releases, imports and exports"

    def ready(self) -> None:
        from datasets import (
            jobs,  # noqa: F401  (connects discard_export_leftovers)
            warmup,  # noqa: F401  (connects the Celery worker's English model warm-up)
        )
