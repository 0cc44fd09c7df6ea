from django.apps import AppConfig


class JudgmentsConfig(AppConfig):
    name = "judgments"
    verbose_name = "Human judgments: ranking campaigns, edit judging, human rankings"
