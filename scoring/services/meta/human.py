"""The human side of meta-evaluation: uploaded system-score files (WMT / SEEDA layouts) and
the judgment campaigns of a release (Expected Wins or TrueSkill)."""

from __future__ import annotations

import math
import os
import tempfile
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from gecscore.boundedio import Source  # the bounded upload reader: platform I/O plumbing, not API

from core.audit import log_action
from core.exceptions import Conflict, NotFound, ServiceError
from core.unique import create_unique
from core.uploads import human_scores_limits, read_upload
from datasets.models import DatasetVersion
from gecscore import ScoreFileError, decode_utf8, read_system_scores
from judgments import selectors as judgment_selectors
from judgments.models import Campaign
from scoring.models import (
    HumanScoreLayout,
    HumanSource,
    HumanSystemScores,
    MetaEvaluation,
    SystemOutput,
)


def visible_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns `user` may see: those they administer, by the judgments app's own rule
    (its results page and API answer 404 to anyone else, so meta-evaluation must too)."""
    return Campaign.objects.filter(
        pk__in=judgment_selectors.campaigns_administered_by(user).values("pk")
    )


def campaigns_for_release(version: DatasetVersion, *, user: Any) -> list[Campaign]:
    """The judgment campaigns on the release that `user` may see (judgments sits below
    scoring: allowed)."""
    return list(
        judgment_selectors.campaigns_for_release(version).filter(pk__in=visible_campaigns(user))
    )


def campaign_on_release(version: DatasetVersion, campaign_id: int, *, user: Any) -> Campaign:
    """A campaign of the release that `user` may see; another admin's campaign is not found,
    as on the judgments side."""
    campaign = (
        judgment_selectors.campaigns_for_release(version)
        .filter(pk=campaign_id, pk__in=visible_campaigns(user))
        .first()
    )
    if campaign is None:
        raise NotFound(f"{version.label} has no judgment campaign {campaign_id}", field="campaign")
    return campaign


def upload_human_scores(
    *,
    version: DatasetVersion,
    name: str,
    data: Source,
    file_name: str,
    user: Any,
    replace: bool = False,
) -> HumanSystemScores:
    """Parse and store a human system-score file (WMT or SEEDA layout, gzipped or not).

    The SEEDA layout is one score a line with no system names: the lines are read in the
    ASCII order of the release's system names, as SEEDA orders its 15 systems, so such a
    file must have exactly one line per system output of the release."""
    name = (name or "").strip() or os.path.basename(file_name or "").split(".")[0]
    if not name:
        raise ServiceError("give the human scores a name", field="name")
    if len(name) > 100:
        raise ServiceError("name longer than 100 characters", field="name")
    # The one bounded reader, with the human-score limits (GEC_MAX_HUMAN_SCORES_BYTES):
    # a gzip bomb stops at the limit instead of filling the worker's memory.
    data = read_upload(data, name=file_name or "the file", limits=human_scores_limits())
    if not data:
        raise ServiceError(f"{file_name or 'the file'} is empty", field="file")
    release_systems = tuple(
        sorted(SystemOutput.objects.filter(version=version).values_list("name", flat=True))
    )
    # The library reads files by path; a private temporary copy of the content is removed
    # at once, the parsed scores are what is stored.
    handle, path = tempfile.mkstemp(prefix="human-scores-", suffix=".txt")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        parsed = read_system_scores(path, systems=release_systems)
    except ScoreFileError as exc:
        raise ServiceError(str(exc).replace(path, file_name or "the file"), field="file") from None
    finally:
        os.unlink(path)
    infinite = sorted(system for system, value in parsed.scores.items() if not math.isfinite(value))
    if infinite:
        raise ServiceError(
            f"{file_name}: the score of {', '.join(infinite)} is not a finite number",
            field="file",
        )
    first_line = _first_line(data)
    layout = HumanScoreLayout.WMT if "\t" in first_line else HumanScoreLayout.SEEDA
    matched = [s for s in parsed.scores if s in set(release_systems)]
    if not matched:
        raise ServiceError(
            f"{file_name}: none of its systems ({', '.join(sorted(parsed.scores)[:8])}) is a "
            f"system output of {version.label}; name the systems as on the leaderboard",
            field="file",
        )
    stored = HumanSystemScores(
        version=version,
        name=name,
        created_by=user if getattr(user, "is_authenticated", False) else None,
        file_name=file_name,
        layout=layout,
        scores=parsed.scores,
    )
    return _store(stored, user=user, replace=replace)


@transaction.atomic
def _store(new: HumanSystemScores, *, user: Any, replace: bool) -> HumanSystemScores:
    """Insert `new`, or with `replace` overwrite the scores of that name on its release."""
    existing = (
        HumanSystemScores.objects.select_for_update()
        .filter(version=new.version, name=new.name)
        .first()
    )
    if existing is not None and not replace:
        raise Conflict(_name_taken(existing), field="name")
    if existing is None:
        # Two uploads of a new name both find none above; the second insert loses.
        existing = create_unique(
            HumanSystemScores,
            lambda: _saved(new),
            unique=["version", "name"],
            values={"version": new.version, "name": new.name},
            message=_name_taken,
        )
    else:
        existing.file_name = new.file_name
        existing.layout = new.layout
        existing.scores = new.scores
        existing.save()
    log_action(
        existing,
        user,
        "scoring.human_scores.upload",
        {"version": new.version.pk, "name": new.name, "systems": len(new.scores)},
    )
    return existing


def _name_taken(existing: HumanSystemScores) -> str:
    return (
        f"{existing.version.label} already has human scores named {existing.name!r} "
        f"(human scores {existing.pk}); choose another name or replace them"
    )


def _saved(scores: HumanSystemScores) -> HumanSystemScores:
    scores.save(force_insert=True)
    return scores


def _first_line(data: bytes) -> str:
    """The first non-blank line of the file's content (decompressed by read_upload)."""
    text = decode_utf8(data, name="the file")  # read_system_scores checked it already
    return next((line for line in text.splitlines() if line.strip()), "")


def human_side(evaluation: MetaEvaluation) -> tuple[dict[str, float], str]:
    """The human system scores an evaluation uses, and a label saying where they came from."""
    if evaluation.human_source == HumanSource.UPLOAD:
        if evaluation.human_scores is None:
            raise ServiceError("the uploaded human scores of this run were deleted")
        upload = evaluation.human_scores
        return dict(upload.scores), f"uploaded: {upload.name} ({upload.file_name})"
    if evaluation.campaign_id is None:
        raise ServiceError("this run names no judgment campaign")
    # The requester's visibility was checked when the run was asked for.
    campaign = (
        judgment_selectors.campaigns_for_release(evaluation.version)
        .filter(pk=evaluation.campaign_id)
        .first()
    )
    if campaign is None:
        raise NotFound(
            f"{evaluation.version.label} has no judgment campaign {evaluation.campaign_id}",
            field="campaign",
        )
    scores = judgment_selectors.human_system_scores(campaign, method=evaluation.human_method)
    if not scores:
        raise ServiceError(
            f"campaign {campaign.name} has no finished judgments yet; judge some items first"
        )
    method = judgment_selectors.METHOD_LABELS.get(evaluation.human_method, evaluation.human_method)
    return {str(k): float(v) for k, v in scores.items()}, f"campaign: {campaign.name} ({method})"
