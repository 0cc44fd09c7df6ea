from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring of annotators and systems"

    def ready(self) -> None:
        from scoring import (
            judgment_receivers,  # noqa: F401  (judgment campaigns' systems)
            receivers,  # noqa: F401  (the anchoring report for review's and datasets' pages)
            signals,  # noqa: F401  (connects the receivers)
            suggestion_receivers,  # noqa: F401  (post-edit projects' system outputs)
        )
