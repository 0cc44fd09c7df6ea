"""Services of the scoring app: everything that writes scores, one module per concern.

The numbers always come from the metric library (`gecscore`, wrapped in
scoring/metric.py); these modules load rows, call it, and store the results.

* `systems`: system outputs, scoring jobs (`upload_system_output` -> `request_scoring` ->
  `run_scoring`, idempotent and cancellable).
* `reffree`: SOME, IMPARA, Scribendi (when their models are configured) on the `gpu` queue.
* `judges`: the LLM judges (LLM-S, LLM-E) over all scored systems of a release, on the `gpu`
  queue, when an LLM is configured (GEC_LLM_URL / GEC_LLM_MODEL).
* `weighted`: PT-M2 and other BERTScore-weighted scores on the `gpu` queue.
* `ensembles`: edit-wise voting over stored outputs.
* `annotators`: annotator quality samples, rescored when golden references change.
* `pay`: pay rates.
* `closest_gold`, `closest_gold_proposals`: closest-gold tasks (items from system outputs,
  verification by reviewers) and the LLM's proposals for them (docs/closest-gold.md).
* `meta`: meta-evaluation of a release's stored metric scores against human scores
  (imported as `scoring.services.meta`; its names are not re-exported here).

The names below are the app's service API (views, API views, commands and tasks import
them from here).
"""

from scoring.services.annotators import (
    INLINE_REFRESH_LIMIT,
    JOB_KIND_ANNOTATORS,
    refresh_annotator_scores,
    refresh_stale_samples,
    release_human_scores,
    rescore_dataset,
    rescore_sentence,
    rescore_sentence_on_commit,
    stale_sentence_ids,
    start_annotator_rescoring,
)
from scoring.services.closest_gold import (
    create_closest_gold_task,
    next_item,
    submit_verification,
)
from scoring.services.closest_gold_proposals import (
    JOB_KIND_PROPOSALS,
    request_proposals,
    run_proposals,
)
from scoring.services.ensembles import create_ensemble
from scoring.services.judges import (
    JOB_KIND_JUDGE,
    JUDGE_METRICS,
    judge_setup,
    request_judge_run,
    run_judges,
)
from scoring.services.pay import set_pay_rates
from scoring.services.reffree import (
    JOB_KIND_REFFREE,
    REFFREE_METRICS,
    configured_reffree_metrics,
    request_reffree_scoring,
    run_reffree_scoring,
)
from scoring.services.systems import (
    JOB_KIND_SYSTEM,
    MAX_NAME_LENGTH,
    cancel_scoring,
    delete_system_output,
    reference_m2_blocks,
    released_rows,
    request_scoring,
    run_scoring,
    score_now,
    scoring_resources,
    upload_system_output,
)
from scoring.services.weighted import (
    JOB_KIND_WEIGHTED,
    request_weighted_scoring,
    run_weighted_scoring,
    weighted_model,
)

__all__ = [
    "JOB_KIND_PROPOSALS",
    "create_closest_gold_task",
    "next_item",
    "request_proposals",
    "run_proposals",
    "submit_verification",
    "JOB_KIND_JUDGE",
    "JUDGE_METRICS",
    "judge_setup",
    "request_judge_run",
    "run_judges",
    "JOB_KIND_REFFREE",
    "REFFREE_METRICS",
    "configured_reffree_metrics",
    "request_reffree_scoring",
    "run_reffree_scoring",
    "INLINE_REFRESH_LIMIT",
    "JOB_KIND_ANNOTATORS",
    "JOB_KIND_SYSTEM",
    "JOB_KIND_WEIGHTED",
    "MAX_NAME_LENGTH",
    "cancel_scoring",
    "create_ensemble",
    "delete_system_output",
    "reference_m2_blocks",
    "refresh_annotator_scores",
    "release_human_scores",
    "refresh_stale_samples",
    "released_rows",
    "request_scoring",
    "request_weighted_scoring",
    "rescore_dataset",
    "rescore_sentence",
    "rescore_sentence_on_commit",
    "run_scoring",
    "run_weighted_scoring",
    "score_now",
    "scoring_resources",
    "set_pay_rates",
    "stale_sentence_ids",
    "start_annotator_rescoring",
    "upload_system_output",
    "weighted_model",
]
