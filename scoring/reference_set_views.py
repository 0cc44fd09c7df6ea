"""Pages' part of the three reference sets (docs/closest-gold.md): the leaderboard's and the
system page's golden / closest-gold / pooled card (context builders) and the admins' buttons
that compute the closest-gold and pooled scores."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.permissions import role_required
from core.roles import Role
from core.web import call_service, lookup
from datasets.models import DatasetVersion, Language
from datasets.selectors import release_by_id
from scoring import selectors
from scoring.models import ClosestGoldTask, ReferenceSet, SystemOutput
from scoring.reference_set_selectors import SETS, SetState, release_sets
from scoring.services.reference_sets import request_reference_set_scoring, score_reference_set

# The metrics of the system page's comparison: (label zh, label en, where in a score).
COMPARED = (
    ("ChERRANT P (char)", "ERRANT P", ("p",)),
    ("ChERRANT R (char)", "ERRANT R", ("r",)),
    ("ChERRANT F0.5 (char)", "ERRANT F0.5", ("f05",)),
    ("CLEME F0.5", "CLEME F0.5", ("summary", "extra", "cleme", "f05")),
    ("CLEME2.0", "CLEME2.0", ("summary", "extra", "cleme2", "score")),
    ("GREEN", "GREEN", ("summary", "extra", "green", "score")),
    ("M2 F0.5", "M2 F0.5", ("summary", "extra", "m2", "f05")),
    ("GLEU", "GLEU", ("summary", "extra", "gleu", "score")),
)


def _value(score: Any, path: tuple[str, ...]) -> float | None:
    value: Any = score
    for step in path:
        value = value.get(step) if isinstance(value, dict) else getattr(value, step, None)
        if value is None:
            return None
    return float(value) if isinstance(value, int | float) else None


def has_closest_golds(version: DatasetVersion) -> bool:
    return ClosestGoldTask.objects.filter(version=version).exists()


def leaderboard_context(version: DatasetVersion) -> dict[str, Any]:
    """The leaderboard's reference-set card: every system under each set, ranked."""
    if not has_closest_golds(version):
        return {"reference_sets": None}
    systems = list(SystemOutput.objects.filter(version=version).order_by("name"))
    rows = release_sets(systems)
    rows.sort(key=lambda row: (row.sets[ReferenceSet.GOLDEN].rank or 10**9, row.system.name))
    return {"reference_sets": rows, "set_names": SETS}


def system_context(system: SystemOutput, *, partial: bool) -> dict[str, Any]:
    """The system page's card: each metric under the three sets, this system's rank under
    each (among the release's systems) and its change against golden."""
    if not has_closest_golds(system.version):
        return {"reference_sets": None}
    systems = list(SystemOutput.objects.filter(version=system.version))
    mine = next(row for row in release_sets(systems) if row.system.pk == system.pk)
    english = system.version.dataset.language == Language.ENGLISH
    states = [mine.sets[name] for name in SETS]

    def shown(state: SetState) -> Any:
        return state.score or (state.partial if partial else None)

    metrics = []
    for label_zh, label_en, path in COMPARED:
        values = [None if shown(s) is None else _value(shown(s), path) for s in states]
        if any(v is not None for v in values):
            metrics.append((label_en if english else label_zh, values))
    return {
        "reference_sets": states,
        "set_metrics": metrics,
        "show_partial": partial,
    }


@role_required(Role.ADMIN)
@require_POST
def score_release_sets(request: HttpRequest, version_id: int) -> HttpResponse:
    version = lookup(release_by_id, version_id)
    job = call_service(request, request_reference_set_scoring, version=version, user=request.user)
    if job is not None:
        messages.success(
            request,
            f"closest-gold and pooled scoring queued (job {job.pk}); the card fills in as "
            "systems are done",
        )
    return redirect("scoring:leaderboard", version_id=version.pk)


@role_required(Role.ADMIN)
@require_POST
def score_system_set(request: HttpRequest, system_id: int) -> HttpResponse:
    system = lookup(selectors.get_system, system_id)
    name = request.POST.get("refs", "")
    partial = request.POST.get("partial") == "1"
    if call_service(
        request,
        score_reference_set,
        system=system,
        reference_set=name,
        partial=partial,
        user=request.user,
    ):
        messages.success(request, f"{system.name} scored against {name}")
    return redirect(reverse("scoring:system", args=[system.pk]) + ("?partial=1" if partial else ""))
