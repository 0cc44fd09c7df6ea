"""A dataset's annotation project: its annotator and reviewer pools, k (annotators per
sentence) and the deadline after which open work counts as stale.

Pools hold only active users with the pool's role, so the assignment never hands a sentence
to someone who cannot open it. Every change is all-or-nothing and goes to the audit log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet

from core.audit import log_action
from core.exceptions import ServiceError
from core.models import User
from core.params import bounded_int
from core.roles import Role
from datasets.models import AnnotationMode, Dataset, GoldenReference, ReferenceStyle

MAX_ANNOTATORS_PER_SENTENCE = 20
# A year: long enough for any project, short enough that the cutoff date stays representable.
MAX_STALE_AFTER_HOURS = 24 * 365
MAX_NAMES_PER_PASTE = 1000


class Pool(StrEnum):
    ANNOTATORS = "annotators"
    REVIEWERS = "reviewers"


POOL_ROLE: dict[Pool, Role] = {Pool.ANNOTATORS: Role.ANNOTATOR, Pool.REVIEWERS: Role.REVIEWER}


def parse_pool(value: Any) -> Pool:
    try:
        return Pool(value)
    except ValueError:
        raise ServiceError(
            f"unknown pool {value!r}: use 'annotators' or 'reviewers'", field="pool"
        ) from None


def users_with_role(role: Role) -> QuerySet[User]:
    """Active users whose role group is `role` (the people a pool may hold)."""
    return User.objects.filter(is_active=True, groups__name=role.value).distinct()


def _whole_number(value: Any, *, field: str, label: str, low: int, high: int) -> int:
    number = bounded_int(value, field=field, low=low, high=high, label=label)
    if number is None:
        raise ServiceError(f"give {label}", field=field)
    return number


@transaction.atomic
def update_project_settings(
    *, dataset: Dataset, by: Any, annotators_per_sentence: Any, stale_after_hours: Any
) -> Dataset:
    """Set k and the stale deadline. k applies to sentences assigned from now on."""
    k = _whole_number(
        annotators_per_sentence,
        field="annotators_per_sentence",
        label="annotators per sentence (k)",
        low=1,
        high=MAX_ANNOTATORS_PER_SENTENCE,
    )
    hours = _whole_number(
        stale_after_hours,
        field="stale_after_hours",
        label="the stale deadline in hours",
        low=1,
        high=MAX_STALE_AFTER_HOURS,
    )
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    before = {"k": dataset.annotators_per_sentence, "stale_after_hours": dataset.stale_after_hours}
    dataset.annotators_per_sentence = k
    dataset.stale_after_hours = hours
    dataset.save(update_fields=["annotators_per_sentence", "stale_after_hours"])
    log_action(
        dataset,
        by,
        "project.settings",
        {"before": before, "after": {"k": k, "stale_after_hours": hours}},
    )
    return dataset


def split_names(text: Any) -> list[str]:
    """Usernames or e-mail addresses pasted one a line, or separated by commas, semicolons
    or spaces; each kept once, in the order given."""
    if not isinstance(text, str):
        raise ServiceError("paste usernames or e-mail addresses as text", field="names")
    names: list[str] = []
    for token in re.split(r"[\s,;]+", text):
        if token and token.lower() not in {n.lower() for n in names}:
            names.append(token)
    if len(names) > MAX_NAMES_PER_PASTE:
        raise ServiceError(
            f"at most {MAX_NAMES_PER_PASTE} names at a time; got {len(names)}", field="names"
        )
    return names


def _resolve_names(names: list[str]) -> tuple[list[User], list[str]]:
    """The user each name means (username or e-mail, case-insensitive), and names matching
    nobody or more than one user."""
    found: list[User] = []
    unresolved: list[str] = []
    for name in names:
        matches = list(User.objects.filter(Q(username__iexact=name) | Q(email__iexact=name))[:2])
        if len(matches) == 1:
            found.append(matches[0])
        else:
            unresolved.append(f"{name} ({'no such user' if not matches else 'ambiguous'})")
    return found, unresolved


def _check_can_join(users: list[User], pool: Pool) -> None:
    role = POOL_ROLE[pool]
    allowed = set(
        users_with_role(role).filter(pk__in=[u.pk for u in users]).values_list("pk", flat=True)
    )
    refused = [u.username for u in users if u.pk not in allowed]
    if refused:
        raise ServiceError(
            f"not an active {role.value}, so not added to the {pool.value} pool: "
            f"{', '.join(refused)}; give them the {role.value} role on the users page first",
            field=pool.value,
        )


@transaction.atomic
def set_annotator_reference_style(*, dataset: Dataset, by: Any, style: Any) -> int:
    """The style of the references the annotator pool writes (minimal / fluency / "" for
    unspecified). A review stores it on each golden reference taken from an annotator's
    correction; setting it also restamps the dataset's current references that came from
    its annotators (released versions keep what they froze). Returns how many changed."""
    allowed = [choice.value for choice in ReferenceStyle]
    if style not in allowed:
        raise ServiceError(
            f"reference style {style!r} is not minimal, fluency or empty (unspecified)",
            field="annotator_reference_style",
        )
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    before = dataset.annotator_reference_style
    dataset.annotator_reference_style = style
    dataset.save(update_fields=["annotator_reference_style"])
    changed = (
        GoldenReference.objects.filter(
            sentence__dataset=dataset, is_current=True, annotator__isnull=False
        )
        .exclude(style=style)
        .update(style=style)
    )
    if before != style or changed:
        log_action(
            dataset,
            by,
            "project.reference_style",
            {"before": before, "after": style, "references_restamped": changed},
        )
    return changed


@dataclass(frozen=True)
class PoolChange:
    pool: Pool
    added: list[str]
    already: list[str]


@transaction.atomic
def add_to_pool(*, dataset: Dataset, by: Any, pool: Any, names: Any) -> PoolChange:
    """Add the users named (usernames or e-mails, pasted) to a pool; all or nothing."""
    pool = parse_pool(pool)
    wanted = split_names(names)
    if not wanted:
        raise ServiceError("name at least one user (username or e-mail)", field="names")
    users, unresolved = _resolve_names(wanted)
    if unresolved:
        raise ServiceError(f"nothing was added; unknown: {', '.join(unresolved)}", field="names")
    return _add_users(dataset=dataset, by=by, pool=pool, users=users)


@transaction.atomic
def add_users_to_pool(*, dataset: Dataset, by: Any, pool: Any, user_ids: Any) -> PoolChange:
    """Add users picked from the role's list (by id) to a pool; all or nothing."""
    pool = parse_pool(pool)
    try:
        ids = sorted({int(value) for value in user_ids})
    except (TypeError, ValueError):
        raise ServiceError("pick users from the list", field=pool.value) from None
    if not ids:
        raise ServiceError("pick at least one user from the list", field=pool.value)
    users = list(User.objects.filter(pk__in=ids).order_by("username"))
    if len(users) != len(ids):
        raise ServiceError("a picked user no longer exists; reload the page", field=pool.value)
    return _add_users(dataset=dataset, by=by, pool=pool, users=users)


def _add_users(*, dataset: Dataset, by: Any, pool: Pool, users: list[User]) -> PoolChange:
    _check_can_join(users, pool)
    members = getattr(dataset, pool.value)
    present = set(members.values_list("pk", flat=True))
    new = [u for u in users if u.pk not in present]
    members.add(*new)
    change = PoolChange(
        pool=pool,
        added=[u.username for u in new],
        already=[u.username for u in users if u.pk in present],
    )
    if new:
        log_action(dataset, by, "project.pool_added", {"pool": pool.value, "users": change.added})
    return change


@transaction.atomic
def remove_from_pool(*, dataset: Dataset, by: Any, pool: Any, user_id: Any) -> User:
    """Take a user out of a pool. Work already handed to them stays theirs (reassign it
    from the progress page); they get no new sentences of this dataset."""
    pool = parse_pool(pool)
    members = getattr(dataset, pool.value)
    try:
        user = members.get(pk=int(user_id))
    except (TypeError, ValueError, User.DoesNotExist):
        raise ServiceError(f"that user is not in the {pool.value} pool", field=pool.value) from None
    members.remove(user)
    log_action(dataset, by, "project.pool_removed", {"pool": pool.value, "user": user.username})
    return user


@transaction.atomic
def set_annotation_mode(*, dataset: Dataset, by: Any, mode: Any) -> Dataset:
    """Rewrite (the box opens with the source) or post-edit (it opens with the project's
    suggestion, see annotate/suggestions.py). Applies to every sentence opened from then on;
    a submission records what its page was shown."""
    allowed = [choice.value for choice in AnnotationMode]
    if mode not in allowed:
        raise ServiceError(
            f"annotation mode {str(mode)[:40]!r} is not one of {', '.join(allowed)}",
            field="annotation_mode",
        )
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    before = dataset.annotation_mode
    if before != mode:
        dataset.annotation_mode = mode
        dataset.save(update_fields=["annotation_mode"])
        log_action(dataset, by, "project.annotation_mode", {"before": before, "after": mode})
    return dataset
