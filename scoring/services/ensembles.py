"""Ensembles: edit-wise voting over stored system outputs, then scored like any output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

# System combination, not a metric: its own module.
from gecscore.ensemble import vote, vote_edits_from

from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.unique import create_unique
from scoring import metric
from scoring.models import (
    OutputFormat,
    SystemOutput,
)
from scoring.services.systems import released_rows, scoring_resources, system_name_taken
from scoring.uploads import hypotheses_checksum


def create_ensemble(
    *,
    systems: Sequence[SystemOutput],
    name: str,
    user: Any,
    resources_dir: str | None = None,
    description: str = "",
) -> SystemOutput:
    """Combine stored outputs of one release by edit-wise voting (keep edits proposed by
    more than half of them) into a new output, stored and ready to score."""
    systems = list(dict.fromkeys(systems))
    if len(systems) < 2:
        raise ServiceError("choose at least two systems to combine", field="systems")
    versions = {system.version_id for system in systems}
    if len(versions) != 1:
        raise ServiceError(
            "all systems of an ensemble must be outputs for the same release", field="systems"
        )
    version = systems[0].version
    name = (name or "").strip()
    if not name:
        raise ServiceError("give the ensemble a name", field="name")
    existing = SystemOutput.objects.filter(version=version, name=name).first()
    if existing is not None:
        raise Conflict(system_name_taken(existing), field="name")
    resources = scoring_resources(resources_dir)
    rows = released_rows(version)
    hypotheses: list[str] = []
    for position, row in enumerate(rows):
        tokens = metric.source_tokens(row.text)
        edit_sets = []
        for system in systems:
            edits = metric.extract(row.text, system.hypotheses[position], resources=resources)
            keys = [vote_edits_from(e.type, e.start, e.end, e.target_text) for e in edits]
            edit_sets.append([key for key in keys if key is not None])
        text, _kept = vote(tokens, edit_sets)
        hypotheses.append(text)
    with transaction.atomic():
        # The vote takes a while: another request may have taken the name meanwhile.
        ensemble = create_unique(
            SystemOutput,
            lambda: SystemOutput.objects.create(
                version=version,
                name=name,
                description=description
                or "edit-wise majority vote of " + ", ".join(s.name for s in systems),
                file_name="",
                file_format=OutputFormat.ENSEMBLE,
                hypotheses=hypotheses,
                checksum=hypotheses_checksum(hypotheses),
                created_by=user if getattr(user, "is_authenticated", False) else None,
            ),
            unique=["version", "name"],
            values={"version": version, "name": name},
            message=system_name_taken,
        )
        ensemble.ensemble_of.set(systems)
        log_action(ensemble, user, "scoring.ensemble", {"members": [s.pk for s in systems]})
    return ensemble
