"""Writing judgment campaigns, one module per concern: `campaigns` (create: items built,
judges assigned), `judging` (next item, submit, skip, stale reassignment), `appraise`
(Appraise XML import and export, WMT pairwise CSV), `esa_files` (an ESA campaign's scores as
a WMT human-score file).

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
from judgments.services.esa_files import export_esa_scores
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
    "export_esa_scores",
    "export_judgments",
    "export_pairwise_csv",
    "import_judgments",
    "next_assignment",
    "reassign_stale",
    "skip_assignment",
    "start_assignment",
    "submit_judgment",
]
