"""ESA campaign files: the systems' mean scores as a WMT human-score file, the human side of
`gecscore meta system --human` (docs/judgments.md, "ESA for GEC")."""

from __future__ import annotations

from core.audit import log_action
from core.exceptions import ServiceError
from core.models import User
from gecscore import esa_system_results as system_results
from gecscore import esa_wmt_score_lines as wmt_score_lines
from judgments.esa import esa_rows
from judgments.models import Campaign, CampaignMode


def export_esa_scores(*, campaign: Campaign, by: User | None = None) -> str:
    """`ESA  src-trg  CAMPAIGN  SYSTEM  MEAN-SCORE` lines (tab-separated), best first."""
    if campaign.mode != CampaignMode.ESA:
        raise ServiceError(f"campaign {campaign.name} is not an ESA campaign", field="campaign")
    results = system_results(esa_rows(campaign))
    if not results:
        raise ServiceError(
            f"campaign {campaign.name} has no finished ESA judgment yet", field="campaign"
        )
    # The test-set column is one field: spaces in a campaign name would not split it, tabs would.
    testset = "_".join(campaign.name.split()) or "campaign"
    lines = wmt_score_lines({r.system: r.mean_score for r in results}, testset=testset)
    log_action(campaign, by, "judgments.export", {"format": "esa-scores"})
    return "\n".join(lines) + "\n"
