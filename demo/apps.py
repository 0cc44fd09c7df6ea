from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The quick start's demo (`manage.py seed_demo`): users of every role and a small
    dataset handed out to annotators. It sits above every domain app, which it drives."""

    name = "demo"
    verbose_name = "Demo data"
