"""Writing judgment campaigns, one module per concern: `campaigns` (create: items built,
judges assigned), `judging` (next item, submit, skip, stale reassignment), `appraise`
(Appraise XML import and export, WMT pairwise CSV).

Every service runs in one transaction and raises core.exceptions.ServiceError (or a subclass)
with a message a person can act on; nothing is half-written.
"""

from judgments.services.appraise import (
    export_edit_verdicts_csv,
    export_judgments,
    export_pairwise_csv,
    import_judgments,
)
from judgments.services.campaigns import create_campaign
from judgments.services.judging import (
    next_assignment,
    reassign_stale,
    skip_assignment,
    start_assignment,
    submit_judgment,
)

__all__ = [
    "create_campaign",
    "export_edit_verdicts_csv",
    "export_judgments",
    "export_pairwise_csv",
    "import_judgments",
    "next_assignment",
    "reassign_stale",
    "skip_assignment",
    "start_assignment",
    "submit_judgment",
]
