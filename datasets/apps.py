from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "datasets"
    verbose_name = "Datasets, releases, imports and exports"
