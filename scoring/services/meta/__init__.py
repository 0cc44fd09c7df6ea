"""Meta-evaluation of a release's stored metric scores against human scores.

Which metric agrees with people? The metric side is read from the stored ``SystemScore``
rows (nothing is recomputed: the numbers, and their signatures, are the ones the
leaderboard shows; `catalogue`); the human side is an uploaded system-score file (CoNLL-14 /
SEEDA layouts, parsed by ``gecscore.meta.scorefiles``) or a judgments campaign on the
release (Expected Wins or TrueSkill, from ``judgments.selectors.human_system_scores``;
`human`). The correlations, bootstrap intervals, Williams' tests and window analysis all
come from ``gecscore.meta`` (`statistics` adds the sentence-level interval and the test
against the best metric).

``upload_human_scores`` -> ``request_meta_evaluation`` (a BackgroundJob plus the Celery task
``scoring.meta_evaluate``, queued on commit) -> ``run_meta_evaluation`` (the work;
idempotent: a re-run replaces the stored report; `runs`). A run may rank the systems of each
metric by TrueSkill or Expected Wins over its stored sentence scores instead of its corpus
score (`aggregation`, the library's ``meta system --aggregation``), and always reports the
``length`` baseline beside the chosen metrics.
"""

from judgments.selectors import EDIT_METHODS, ESA_METHODS, HUMAN_METHODS
from scoring.services.meta.aggregation import AGGREGATIONS
from scoring.services.meta.catalogue import available_metrics
from scoring.services.meta.human import campaigns_for_release, upload_human_scores
from scoring.services.meta.runs import (
    DEFAULT_BOOTSTRAP,
    JOB_KIND_META,
    MAX_BOOTSTRAP,
    MAX_WINDOW,
    evaluation_for,
    evaluation_state,
    evaluations_for,
    get_evaluation,
    request_meta_evaluation,
    run_meta_evaluation,
    settle_with_job,
)
from scoring.services.meta.statistics import auto_window

__all__ = [
    "AGGREGATIONS",
    "DEFAULT_BOOTSTRAP",
    "EDIT_METHODS",
    "ESA_METHODS",
    "HUMAN_METHODS",
    "JOB_KIND_META",
    "MAX_BOOTSTRAP",
    "MAX_WINDOW",
    "auto_window",
    "available_metrics",
    "campaigns_for_release",
    "evaluation_for",
    "evaluation_state",
    "evaluations_for",
    "get_evaluation",
    "request_meta_evaluation",
    "run_meta_evaluation",
    "settle_with_job",
    "upload_human_scores",
]
